// The card on screen: the card sized to the print file with the stage on its photo window,
// the moving copy of the photo (the browser's decode, or the service's JPEG) moved by the
// transform, one picture at a time; choosing and uploading a photo, and its placement.

import { $, clamp, frontSpec, maxPhotoBytes, round, session, setText, state } from './state.js';
import { api, cleanDetail, problem, showProblem } from './api.js';
import { previewBack, previewFront } from './previews.js';
import { gestureActive } from './gestures.js';

let geometry = null; // {card: {width, height}, window: {x, y, width, height} in fractions of the card}

/** Sizes the card to the print file's shape and puts the stage on its photo window. */
function applyGeometry() {
  if (!geometry) return;
  const card = $('card');
  card.style.aspectRatio = `${geometry.card.width} / ${geometry.card.height}`;
  card.style.setProperty('--aspect', String(geometry.card.width / geometry.card.height));
  $('back-frame').style.setProperty('--aspect', String(geometry.card.width / geometry.card.height));
  const w = geometry.window;
  const stage = $('stage');
  stage.style.inset = 'auto';
  stage.style.left = `${w.x * 100}%`;
  stage.style.top = `${w.y * 100}%`;
  stage.style.width = `${w.width * 100}%`;
  stage.style.height = `${w.height * 100}%`;
  const handle = $('turn-handle');
  handle.hidden = false;
  handle.style.left = `${(w.x + w.width) * 100}%`;
  handle.style.top = `${w.y * 100}%`;
  drawLive();
}

/** Moves the moving copy by the transform, as the renderer will place the photo. */
export function drawLive() {
  const canvas = $('live');
  const stage = $('stage');
  if (!state.photo || !session.live || session.live.photo !== state.photo.id) return;
  const width = stage.clientWidth;
  const height = stage.clientHeight;
  const pw = state.photo.width;
  const ph = state.photo.height;
  if (!width || !height) return;
  const t = state.transform;
  // The copy (at most `liveSide` px long) is laid out at its own size and scaled by one
  // transform: photo pixels x cover x scale, over the copy's reduction.
  const s = (Math.max(width / pw, height / ph) * t.scale * pw) / canvas.width;
  const cx = width / 2 + t.offset.x * width;
  const cy = height / 2 + t.offset.y * height;
  canvas.style.transform = `translate(${cx}px, ${cy}px) rotate(${t.rotation}deg) scale(${s}) ` +
    `translate(${-canvas.width / 2}px, ${-canvas.height / 2}px)`;
}

/** Whether the moving copy of the photo on the card is ready to be shown. */
export function liveReady() { return !!(state.photo && session.live && session.live.photo === state.photo.id); }

/**
 * One picture at a time: during a gesture (`on`) the moving copy alone, clipped to the
 * window, over the card's own background; else the service's preview. Without a copy
 * (not decoded yet), the last preview stays.
 */
export function showLive(on) {
  const moving = on && liveReady();
  $('live').hidden = !moving;
  const preview = $('preview');
  preview.hidden = moving || !preview.getAttribute('src');
  $('stage').classList.toggle('moving', on);
}

/** Puts a transform in the spec's ranges and rounds it as the page shows it. */
export function setTransform(t) {
  let rotation = ((t.rotation % 360) + 360) % 360;
  if (rotation > 180) rotation -= 360;
  state.transform = {
    scale: round(clamp(t.scale, 0.05, 20), 4),
    rotation: round(rotation, 2) || 0,
    offset: { x: round(clamp(t.offset.x, -10, 10), 4) || 0, y: round(clamp(t.offset.y, -10, 10), 4) || 0 },
  };
  $('scale').value = state.transform.scale;
  $('rotation').value = state.transform.rotation;
  $('offset-x').value = state.transform.offset.x;
  $('offset-y').value = state.transform.offset.y;
  drawLive();
}

// ---- The photo -----------------------------------------------------------------------

/** Whether the first bytes are an image format the service reads. */
function isImage(head) {
  const ascii = (from, to) => String.fromCharCode(...head.slice(from, to));
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return true; // JPEG
  if (head[0] === 0x89 && ascii(1, 4) === 'PNG') return true;
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return true;
  if (ascii(0, 4) === 'II*\0' || ascii(0, 4) === 'MM\0*') return true; // TIFF
  if (ascii(0, 4) === 'GIF8') return true;
  if (ascii(4, 8) === 'ftyp' && /^(heic|heix|heim|heis|hevc|hevx|mif1|msf1|avif)$/.test(ascii(8, 12))) return true;
  return false;
}

/** The long side of the moving copy: a 12 MP photo moved at full size costs the
 * compositor hundreds of milliseconds a frame without a GPU. */
const liveSide = 1600;
let photoChoice = 0; // the latest photo chosen: an older upload answering later is dropped

/** Draws a decoded copy of photo `id` into the canvas: the moving copy from now on. */
function setLive(bitmap, id, source) {
  const canvas = $('live');
  canvas.width = bitmap.width;
  canvas.height = bitmap.height;
  canvas.style.width = `${bitmap.width}px`;
  canvas.style.height = `${bitmap.height}px`;
  canvas.getContext('2d').drawImage(bitmap, 0, 0);
  bitmap.close();
  session.live = { photo: id, source, width: canvas.width, height: canvas.height };
  drawLive();
  if (gestureActive()) showLive(true);
}

/** Forgets the moving copy (a new photo is coming). */
export function dropLive() {
  session.liveToken++;
  session.live = null;
  $('live').hidden = true;
}

/**
 * The browser's own decode of the file (upright by its EXIF orientation), reduced, all
 * off the main thread but the last draw; null when the browser cannot decode it (HEIC
 * in Chromium), else the decoded bitmap.
 */
async function decodeFile(file) {
  const url = URL.createObjectURL(file);
  try {
    const source = new Image();
    source.src = url;
    await source.decode();
    const factor = Math.min(1, liveSide / Math.max(source.naturalWidth, source.naturalHeight));
    const width = Math.max(1, Math.round(source.naturalWidth * factor));
    const height = Math.max(1, Math.round(source.naturalHeight * factor));
    return await createImageBitmap(source, { resizeWidth: width, resizeHeight: height, resizeQuality: 'medium' });
  } catch {
    return null;
  } finally {
    URL.revokeObjectURL(url);
  }
}

/**
 * The moving copy from the service (`GET /v1/photos/{id}?width=N`: the photo upright, as
 * a JPEG): for a photo the browser cannot decode, and after a reload (the file is gone).
 */
export async function liveFromService(photo, token) {
  const factor = Math.min(1, liveSide / Math.max(photo.width, photo.height));
  const width = clamp(Math.round(photo.width * factor), 16, 2048);
  try {
    const response = await api('GET', `/v1/photos/${encodeURIComponent(photo.id)}?width=${width}`);
    if (!response.ok || token !== session.liveToken) return;
    const bitmap = await createImageBitmap(await response.blob());
    if (token !== session.liveToken || !state.photo || state.photo.id !== photo.id) { bitmap.close(); return; }
    setLive(bitmap, photo.id, 'service');
  } catch { /* no moving copy: gestures show the last preview until the new one */ }
}

export async function choosePhoto(file) {
  setText('photo-error', '');
  if (!file) return;
  if (file.size > maxPhotoBytes) {
    setText('photo-error',
      `${file.name} is ${(file.size / 1048576).toFixed(1)} MB; the service takes photos up to ` +
      `${(maxPhotoBytes / 1048576).toFixed(1)} MB. Choose a smaller photo.`);
    $('photo-input').value = '';
    return;
  }
  const head = new Uint8Array(await file.slice(0, 16).arrayBuffer());
  if (file.size < 16 || !isImage(head)) {
    setText('photo-error', `${file.name} is not an image the service reads. Choose a JPEG, PNG, HEIC, WebP, TIFF or GIF.`);
    $('photo-input').value = '';
    return;
  }
  setText('placement', 'Uploading the photo…');
  // The current photo keeps its moving copy until the new one is accepted.
  const choice = ++photoChoice;
  const decoded = decodeFile(file);
  const discard = () => decoded.then((bitmap) => bitmap && bitmap.close());
  let photo;
  try {
    const response = await api('POST', '/v1/photos', { body: file, type: 'application/octet-stream' });
    if (!response.ok) {
      const failed = await problem(response);
      setText('photo-error', `${file.name}: ${cleanDetail(failed.detail)}`);
      setText('placement', '');
      discard();
      return;
    }
    photo = await response.json();
  } catch {
    setText('photo-error', `${file.name} could not be sent; check the connection and choose it again.`);
    setText('placement', '');
    discard();
    return;
  }
  if (choice !== photoChoice) { discard(); return; } // another photo was chosen meanwhile
  dropLive();
  const token = session.liveToken;
  state.photo = photo;
  $('order').disabled = false;
  const bitmap = await decoded;
  if (bitmap && token === session.liveToken) setLive(bitmap, photo.id, 'browser');
  else if (bitmap) bitmap.close();
  await Promise.all([place(true), bitmap ? null : liveFromService(photo, token)]);
}

let placing = 0; // the latest placement asked for: an older answer arriving later is dropped
/** Asks the service for the window's geometry and, when `apply`, its first placement. */
export async function place(apply) {
  if (!state.photo) return;
  const asked = ++placing;
  const response = await api('POST', '/v1/placements', { body: frontSpec(), type: 'application/json' });
  if (asked !== placing) return;
  if (!response.ok) {
    showProblem(await problem(response), 'photo-error');
    return;
  }
  const answer = await response.json();
  if (asked !== placing) return;
  geometry = { card: answer.card, window: answer.window };
  applyGeometry();
  if (apply) {
    setTransform(answer.transform);
    session.reason = answer.reason;
    setText('placement', `Placed automatically: ${answer.reason}.`);
  }
  await Promise.all([previewFront(), previewBack()]);
}
