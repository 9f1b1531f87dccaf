// The gestures on the card: one or two fingers (or a mouse) on the photo's window and the
// card's margin, the wheel, the keyboard, the turn button and the transform's number fields.
// Each changes `state.transform` as it goes (the moving copy follows); when it ends, the
// service's preview is asked for.

import { $, state } from './state.js';
import { drawLive, place, setTransform, showLive } from './stage.js';
import { previewFront } from './previews.js';

const pointers = new Map(); // pointerId -> {x, y}
let base = null; // {transform, points} when the set of pointers last changed
let turning = null; // {transform, angle, x, y} (where the press began) while the turn button is dragged
let wheelTimer = null;
let keyTimer = null;

export function gestureActive() { return pointers.size > 0 || turning !== null || wheelTimer !== null || keyTimer !== null; }

function copyTransform(t) { return { scale: t.scale, rotation: t.rotation, offset: { x: t.offset.x, y: t.offset.y } }; }

function rebase() {
  base = { transform: copyTransform(state.transform), points: Array.from(pointers.values(), (p) => ({ x: p.x, y: p.y })) };
}

function beginGesture() { showLive(true); }

function endGesture() { previewFront(performance.now()); }

/** Ends now a wheel or keyboard gesture still waiting for its pause (an order is coming). */
export function endWaitingGesture() {
  if (wheelTimer !== null || keyTimer !== null) {
    clearTimeout(wheelTimer);
    clearTimeout(keyTimer);
    wheelTimer = null;
    keyTimer = null;
    endGesture();
  }
}

function onPointerMove() {
  if (!base) return;
  const stage = $('stage');
  const width = stage.clientWidth;
  const height = stage.clientHeight;
  const now = Array.from(pointers.values());
  const t = copyTransform(base.transform);
  if (now.length === 1 || base.points.length === 1) {
    t.offset.x += (now[0].x - base.points[0].x) / width;
    t.offset.y += (now[0].y - base.points[0].y) / height;
  } else {
    const [a0, b0] = base.points;
    const [a1, b1] = now;
    const mid0 = { x: (a0.x + b0.x) / 2, y: (a0.y + b0.y) / 2 };
    const mid1 = { x: (a1.x + b1.x) / 2, y: (a1.y + b1.y) / 2 };
    t.offset.x += (mid1.x - mid0.x) / width;
    t.offset.y += (mid1.y - mid0.y) / height;
    const d0 = Math.hypot(b0.x - a0.x, b0.y - a0.y);
    const d1 = Math.hypot(b1.x - a1.x, b1.y - a1.y);
    if (d0 > 0) t.scale *= d1 / d0;
    // Screen y points down, so a growing angle turns clockwise, as the spec's rotation.
    const angle0 = Math.atan2(b0.y - a0.y, b0.x - a0.x);
    const angle1 = Math.atan2(b1.y - a1.y, b1.x - a1.x);
    t.rotation += ((angle1 - angle0) * 180) / Math.PI;
  }
  setTransform(t);
}

/** Listens to the stage, the card's margin, the turn button and the transform's fields. */
export function setUpGestures() {
  const stage = $('stage');
  stage.addEventListener('pointerdown', (event) => {
    if (!state.photo) return;
    event.preventDefault();
    stage.focus({ preventScroll: true });
    stage.setPointerCapture(event.pointerId);
    pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    if (pointers.size > 2) return;
    beginGesture();
    rebase();
  });
  stage.addEventListener('pointermove', (event) => {
    if (!pointers.has(event.pointerId)) return;
    pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    onPointerMove();
  });
  const up = (event) => {
    if (!pointers.has(event.pointerId)) return;
    pointers.delete(event.pointerId);
    if (pointers.size === 0) {
      base = null;
      endGesture();
    } else {
      rebase();
    }
  };
  stage.addEventListener('pointerup', up);
  stage.addEventListener('pointercancel', up);
  // A second finger may land on the frame's margin (the window is small on a phone): it
  // joins the gesture the first finger began on the photo. The card, not the page, takes
  // it (touch-action: none on the card), so the page is never pinch-zoomed instead.
  const card = $('card');
  const onMargin = (event) => !stage.contains(event.target) && !$('turn-handle').contains(event.target);
  card.addEventListener('pointerdown', (event) => {
    if (!onMargin(event) || pointers.size !== 1) return;
    event.preventDefault();
    card.setPointerCapture(event.pointerId);
    pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    rebase();
  });
  card.addEventListener('pointermove', (event) => {
    if (event.target !== card || !pointers.has(event.pointerId)) return;
    pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    onPointerMove();
  });
  const cardUp = (event) => { if (event.target === card) up(event); };
  card.addEventListener('pointerup', cardUp);
  card.addEventListener('pointercancel', cardUp);

  stage.addEventListener('wheel', (event) => {
    if (!state.photo) return;
    event.preventDefault();
    const t = copyTransform(state.transform);
    t.scale *= Math.exp(-event.deltaY / 500);
    if (wheelTimer === null) beginGesture();
    setTransform(t);
    clearTimeout(wheelTimer);
    // The wheel has no "up": the gesture ends when it has been still for 120 ms.
    wheelTimer = setTimeout(() => { wheelTimer = null; endGesture(); }, 120);
  }, { passive: false });

  /** A change made from the keyboard: held or repeated keys are one gesture, ended 250 ms after the last. */
  const keyed = (t) => {
    if (keyTimer === null) beginGesture();
    setTransform(t);
    clearTimeout(keyTimer);
    keyTimer = setTimeout(() => { keyTimer = null; endGesture(); }, 250);
  };
  const keys = (event) => {
    if (!state.photo) return;
    const t = copyTransform(state.transform);
    const big = event.shiftKey;
    switch (event.key) {
      case 'ArrowLeft': t.offset.x -= big ? 0.1 : 0.01; break;
      case 'ArrowRight': t.offset.x += big ? 0.1 : 0.01; break;
      case 'ArrowUp': t.offset.y -= big ? 0.1 : 0.01; break;
      case 'ArrowDown': t.offset.y += big ? 0.1 : 0.01; break;
      // + needs Shift on most layouts, so Shift does not change the zoom's step;
      // { and } (Shift with [ and ]) turn by 15 degrees.
      case '+': case '=': t.scale *= 1.05; break;
      case '-': case '_': t.scale /= 1.05; break;
      case '[': t.rotation -= 1; break;
      case ']': t.rotation += 1; break;
      case '{': t.rotation -= 15; break;
      case '}': t.rotation += 15; break;
      default: return;
    }
    event.preventDefault();
    keyed(t);
  };
  stage.addEventListener('keydown', keys);

  // The turn button: a tap, Enter or Space turns a quarter clockwise; dragged around the
  // window it turns by the angle swept; [ and ] on it turn as on the window.
  const handle = $('turn-handle');
  handle.addEventListener('keydown', keys);
  const centre = () => {
    const box = stage.getBoundingClientRect();
    return {
      x: box.left + box.width / 2 + state.transform.offset.x * box.width,
      y: box.top + box.height / 2 + state.transform.offset.y * box.height,
    };
  };
  const angleOf = (event) => {
    const c = centre();
    return (Math.atan2(event.clientY - c.y, event.clientX - c.x) * 180) / Math.PI;
  };
  let dragged = false; // the last press on the button turned the photo by dragging
  handle.addEventListener('pointerdown', (event) => {
    if (!state.photo) return;
    event.preventDefault();
    handle.setPointerCapture(event.pointerId);
    turning = { transform: copyTransform(state.transform), angle: angleOf(event), x: event.clientX, y: event.clientY };
    dragged = false;
    beginGesture();
  });
  handle.addEventListener('pointermove', (event) => {
    if (!turning) return;
    if (Math.hypot(event.clientX - turning.x, event.clientY - turning.y) > 4) dragged = true;
    const t = copyTransform(turning.transform);
    t.rotation += angleOf(event) - turning.angle;
    setTransform(t);
  });
  const release = () => {
    if (!turning) return;
    turning = null;
    if (dragged) endGesture();
    else showLive(false);
  };
  handle.addEventListener('pointerup', release);
  handle.addEventListener('pointercancel', release);
  handle.addEventListener('click', (event) => {
    // A click after a drag is the drag's end, not a tap (a keyboard's click has detail 0).
    if (event.detail !== 0 && dragged) { dragged = false; return; }
    if (!state.photo) return;
    const t = copyTransform(state.transform);
    t.rotation += 90;
    keyed(t);
  });

  for (const [id, apply] of [
    ['scale', (t, v) => { t.scale = v; }],
    ['rotation', (t, v) => { t.rotation = v; }],
    ['offset-x', (t, v) => { t.offset.x = v; }],
    ['offset-y', (t, v) => { t.offset.y = v; }],
  ]) {
    $(id).addEventListener('change', () => {
      const value = Number($(id).value);
      if ($(id).value === '' || !Number.isFinite(value)) { setTransform(state.transform); return; }
      const t = copyTransform(state.transform);
      apply(t, value);
      setTransform(t);
      previewFront();
    });
  }
  $('auto-place').addEventListener('click', () => place(true));
  new ResizeObserver(drawLive).observe(stage);
}
