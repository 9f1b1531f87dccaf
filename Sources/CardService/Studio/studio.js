// The card studio: make a postcard with your fingers, previewed by the print renderer.
//
// Plain JavaScript, no build step and nothing fetched from elsewhere. The page's gesture
// state *is* the spec's `transform`: from the photo covering the window, `scale` multiplies,
// `rotation` turns it clockwise (degrees) about its centre, and `offset` moves that centre
// by fractions of the window's width and height (a drag of a fifth of the window's width is
// `offset.x = 0.2`). While a gesture runs the page moves a low-resolution copy of the photo
// (the browser's own decode) by the same numbers; when it ends, the service's preview (the
// print renderer's sample) replaces it.
//
// The contract for browser tests: `/studio#key=KEY` signs in (the key is kept in the tab's
// session storage and dropped from the address; `&photo=ID` starts with an uploaded photo); `data-testid` marks photo-input, stage,
// preview, message, order and status; `window.studio.spec()` is the spec the page would
// send and `window.studio.card()` the ordered card as the service answers it.
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const meta = document.querySelector('meta[name="cardrender-max-photo-bytes"]');
  const maxPhotoBytes = Number(meta && meta.content) || 64 * 1024 * 1024;
  const keyName = 'cardrender.studio.key';
  const draftName = 'cardrender.studio.draft';

  // Everything the customer chose: what `spec()` sends, and what a reload restores.
  const state = {
    photo: null, // {id, width, height, format} as the service answered the upload
    transform: { scale: 1, rotation: 0, offset: { x: 0, y: 0 } },
    frame: '',
    effect: '',
    strength: 1,
    size: 'a6',
    message: { text: '', font: 'sans', size: 14, colour: 'black', align: 'left' },
    recipients: [],
    sender: {}, // the sender's fields as typed; sent when it has a name
  };
  const senderFields = ['name', 'address1', 'postcode', 'city', 'country'];
  let key = null;
  let geometry = null; // {card: {width, height}, window: {x, y, width, height} in fractions of the card}
  let reason = '';
  let cards = []; // the ordered cards as the service last answered
  let pendingOrder = null; // {body, idempotencyKey}: a retried order is the same order
  const timings = []; // ms from the end of a gesture to its preview on screen
  const longTasks = [];
  let previewDigest = null; // SHA-256 of the preview on screen
  let shownSpec = null; // the photo side's spec (JSON) the preview on screen was made from
  let shownBack = null; // the spec (JSON) the back's preview on screen was made from, or '' for none
  let previewsInFlight = 0;

  // ---- Helpers -------------------------------------------------------------------------

  const delay = (ms, signal) => new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    if (signal) signal.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason); }, { once: true });
  });
  const round = (value, places) => Math.round(value * 10 ** places) / 10 ** places;
  const clamp = (value, low, high) => Math.min(high, Math.max(low, value));
  const hex = (buffer) => Array.from(new Uint8Array(buffer), (byte) => byte.toString(16).padStart(2, '0')).join('');
  const randomKey = () => (crypto.randomUUID ? crypto.randomUUID() : hex(crypto.getRandomValues(new Uint8Array(16))));

  function setText(id, text) { $(id).textContent = text; }
  function connection(text) { setText('connection', text); }

  /** The service's words for a failed answer: its problem's detail, with each field's. */
  async function problem(response) {
    try {
      const body = await response.json();
      return { detail: body.detail || `${response.status}`, errors: body.errors || [], status: response.status };
    } catch {
      return { detail: `The service answered ${response.status} ${response.statusText}.`, errors: [], status: response.status };
    }
  }

  /**
   * A request to the service with the key. Network failures, 429, 502, 503 and 504 are
   * retried with back-off (the request, and so everything typed, is kept); other answers
   * are returned.
   */
  async function api(method, path, { body, type, headers = {}, signal } = {}) {
    let wait = 400;
    for (;;) {
      let response = null;
      try {
        const all = Object.assign({ Authorization: `Bearer ${key}` }, headers);
        if (type) all['Content-Type'] = type;
        response = await fetch(path, { method, headers: all, body, signal, cache: 'no-store' });
      } catch (error) {
        if (signal && signal.aborted) throw error;
      }
      // Network failures and the statuses that say "later" (429, 502, 503, 504) are
      // retried; any other answer, a 500 included, is the answer.
      if (response && ![429, 502, 503, 504].includes(response.status)) {
        connection('');
        if (response.status === 401) signOut('The service refused the API key; enter it again.');
        return response;
      }
      const after = response ? Number(response.headers.get('Retry-After')) : 0;
      const pause = after > 0 ? after * 1000 : wait;
      connection(response
        ? `The service is busy (${response.status}); trying again in ${Math.ceil(pause / 1000)} s. Nothing is lost.`
        : `The service cannot be reached; trying again in ${Math.ceil(pause / 1000)} s. Nothing is lost.`);
      await delay(pause, signal);
      wait = Math.min(wait * 2, 8000);
    }
  }

  function saveDraft() {
    try { sessionStorage.setItem(draftName, JSON.stringify(state)); } catch { /* storage full or off */ }
  }

  // ---- The spec ------------------------------------------------------------------------

  /** The spec the page would send: numbers always. */
  function spec() {
    const t = state.transform;
    const card = {
      version: 1,
      photo: state.photo ? state.photo.id : null,
      transform: { scale: t.scale, rotation: t.rotation, offset: { x: t.offset.x, y: t.offset.y } },
      card: { size: state.size },
    };
    if (state.frame) card.frame = state.frame;
    if (state.effect) card.effect = { name: state.effect, strength: state.strength };
    if (state.message.text.trim() !== '') card.message = Object.assign({}, state.message);
    if (state.recipients.length) card.recipients = state.recipients.map((r) => Object.assign({}, r));
    const sender = {};
    for (const field of senderFields) if ((state.sender[field] || '').trim()) sender[field] = state.sender[field].trim();
    if (sender.name) card.sender = sender;
    return card;
  }

  /** The spec without the back's fields: what the photo side's preview depends on. */
  function frontSpec() {
    const card = spec();
    delete card.message;
    delete card.recipients;
    delete card.sender;
    return JSON.stringify(card);
  }

  /** What the back's preview depends on (JSON), or '' for a card without a back. */
  function backSpec() {
    const card = spec();
    if (!card.message && !card.recipients) return '';
    return JSON.stringify({ message: card.message, recipients: card.recipients, sender: card.sender, card: card.card });
  }

  /** Puts a transform in the spec's ranges and rounds it as the page shows it. */
  function setTransform(t) {
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

  // ---- The card on screen --------------------------------------------------------------

  /** Sizes the card to the print file's shape and puts the stage on its photo window. */
  function applyGeometry() {
    if (!geometry) return;
    const card = $('card');
    card.style.aspectRatio = `${geometry.card.width} / ${geometry.card.height}`;
    card.style.setProperty('--aspect', String(geometry.card.width / geometry.card.height));
    const w = geometry.window;
    const stage = $('stage');
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

  /** Moves the low-resolution copy by the transform, as the renderer will place the photo. */
  function drawLive() {
    const live = $('live');
    const stage = $('stage');
    if (!state.photo || !live.dataset.ready) return;
    const width = stage.clientWidth;
    const height = stage.clientHeight;
    const pw = state.photo.width;
    const ph = state.photo.height;
    if (!width || !height) return;
    const t = state.transform;
    // The copy (at most `liveSide` px long) is laid out at its own size and scaled by one
    // transform: photo pixels x cover x scale, over the copy's reduction.
    const s = (Math.max(width / pw, height / ph) * t.scale * pw) / live.width;
    const cx = width / 2 + t.offset.x * width;
    const cy = height / 2 + t.offset.y * height;
    live.style.transform = `translate(${cx}px, ${cy}px) rotate(${t.rotation}deg) scale(${s}) ` +
      `translate(${-live.width / 2}px, ${-live.height / 2}px)`;
  }

  function showLive(on) {
    const live = $('live');
    live.hidden = !(on && live.dataset.ready);
    $('stage').classList.toggle('moving', on);
  }

  // ---- Previews ------------------------------------------------------------------------

  let frontRequest = null; // {controller}
  /**
   * Asks for the photo side's preview of the spec as it is now; `gestureEnded` (a
   * performance.now() time) is measured to the moment the new preview is on screen.
   */
  async function previewFront(gestureEnded) {
    if (!state.photo || !key) return;
    saveDraft();
    if (frontRequest) frontRequest.controller.abort();
    const request = { controller: new AbortController() };
    frontRequest = request;
    // The photo side's fields alone: a message the back cannot hold must not stop the
    // photo's previews (the front's sample does not depend on the back).
    const front = frontSpec();
    previewsInFlight++;
    $('busy').hidden = false;
    try {
      const response = await api('POST', '/v1/previews?side=front',
        { body: front, type: 'application/json', signal: request.controller.signal });
      if (!response.ok) {
        const failed = await problem(response);
        showProblem(failed, 'photo-error');
        return;
      }
      const blob = await response.blob();
      if (request.controller.signal.aborted) return;
      const url = URL.createObjectURL(blob);
      const image = $('preview');
      const previous = image.src;
      const loaded = new Image();
      loaded.src = url;
      await loaded.decode();
      if (request.controller.signal.aborted) { URL.revokeObjectURL(url); return; }
      image.src = url;
      image.hidden = false;
      $('empty').hidden = true;
      await image.decode().catch(() => {});
      if (previous.startsWith('blob:')) URL.revokeObjectURL(previous);
      if (gestureEnded !== undefined) timings.push(performance.now() - gestureEnded);
      setText('photo-error', '');
      if (!gestureActive()) showLive(false);
      const digest = hex(await crypto.subtle.digest('SHA-256', await blob.arrayBuffer()));
      if (request.controller.signal.aborted) return;
      shownSpec = front;
      previewDigest = digest;
    } catch (error) {
      if (!(error && error.name === 'AbortError') && !request.controller.signal.aborted) {
        setText('photo-error', `The preview failed: ${error}`);
      }
    } finally {
      previewsInFlight--;
      if (frontRequest === request) { frontRequest = null; $('busy').hidden = true; }
    }
  }

  let backTimer = null;
  let backRequest = null;
  function previewBackSoon() {
    saveDraft();
    clearTimeout(backTimer);
    backTimer = setTimeout(previewBack, 350);
  }
  async function previewBack() {
    backTimer = null;
    const card = spec();
    if (!state.photo || (!card.message && !card.recipients)) {
      $('back-preview').removeAttribute('src');
      $('back-preview').hidden = true;
      setText('message-error', '');
      shownBack = '';
      return;
    }
    const sent = JSON.stringify(card);
    const back = backSpec();
    if (backRequest) backRequest.abort();
    const controller = new AbortController();
    backRequest = controller;
    previewsInFlight++;
    try {
      const response = await api('POST', '/v1/previews?side=back',
        { body: sent, type: 'application/json', signal: controller.signal });
      if (!response.ok) {
        showProblem(await problem(response), 'message-error');
        shownBack = back;
        return;
      }
      const url = URL.createObjectURL(await response.blob());
      if (controller.signal.aborted) return;
      const image = $('back-preview');
      const previous = image.src;
      image.src = url;
      image.hidden = false;
      await image.decode().catch(() => {});
      if (previous.startsWith('blob:')) URL.revokeObjectURL(previous);
      if (controller.signal.aborted) return;
      setText('message-error', '');
      setText('recipient-error', '');
      setText('sender-error', '');
      shownBack = back;
    } catch (error) {
      if (!(error && error.name === 'AbortError')) setText('message-error', `The preview failed: ${error}`);
    } finally {
      previewsInFlight--;
      if (backRequest === controller) backRequest = null;
    }
  }

  /** Shows a refusal at the field it names, in the service's words. */
  function showProblem(failed, fallback) {
    const messages = { 'message-error': [], 'recipient-error': [], 'sender-error': [], 'photo-error': [] };
    for (const error of failed.errors) {
      const target = error.field.startsWith('message') ? 'message-error'
        : error.field.startsWith('recipients') ? 'recipient-error'
          : error.field.startsWith('sender') ? 'sender-error' : 'photo-error';
      messages[target].push(`${error.field}: ${error.detail}`);
    }
    const any = Object.values(messages).some((list) => list.length);
    if (!any) messages[fallback].push(failed.detail);
    for (const [id, list] of Object.entries(messages)) if (list.length) setText(id, list.join('\n'));
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

  /** The long side of the live copy: a 12 MP photo moved at full size costs the
   * compositor hundreds of milliseconds a frame without a GPU. */
  const liveSide = 1600;

  /**
   * The live copy: the browser's own decode of the file (upright by its EXIF orientation)
   * reduced into a canvas, all off the main thread but the last draw; a format the browser
   * cannot decode (HEIC) gives no copy, and gestures wait for the preview.
   */
  async function makeLiveCopy(file) {
    const live = $('live');
    delete live.dataset.ready;
    live.hidden = true;
    const url = URL.createObjectURL(file);
    try {
      const source = new Image();
      source.src = url;
      await source.decode();
      const factor = Math.min(1, liveSide / Math.max(source.naturalWidth, source.naturalHeight));
      const width = Math.max(1, Math.round(source.naturalWidth * factor));
      const height = Math.max(1, Math.round(source.naturalHeight * factor));
      const bitmap = await createImageBitmap(source, { resizeWidth: width, resizeHeight: height, resizeQuality: 'medium' });
      live.width = width;
      live.height = height;
      live.style.width = `${width}px`;
      live.style.height = `${height}px`;
      live.getContext('2d').drawImage(bitmap, 0, 0);
      bitmap.close();
      live.dataset.ready = '1';
      drawLive();
    } catch {
      // Not decodable here: previews only.
    } finally {
      URL.revokeObjectURL(url);
    }
  }

  async function choosePhoto(file) {
    setText('photo-error', '');
    if (!file) return;
    if (file.size > maxPhotoBytes) {
      setText('photo-error',
        `${file.name} is ${(file.size / 1048576).toFixed(1)} MB; the service takes photos up to ` +
        `${(maxPhotoBytes / 1048576).toFixed(1)} MB.`);
      $('photo-input').value = '';
      return;
    }
    const head = new Uint8Array(await file.slice(0, 16).arrayBuffer());
    if (file.size < 16 || !isImage(head)) {
      setText('photo-error', `${file.name} is not an image the service reads (JPEG, PNG, HEIC, WebP, TIFF or GIF).`);
      $('photo-input').value = '';
      return;
    }
    setText('placement', 'Uploading the photo…');
    makeLiveCopy(file);
    const response = await api('POST', '/v1/photos', { body: file, type: 'application/octet-stream' });
    if (!response.ok) {
      const failed = await problem(response);
      setText('photo-error', `${file.name}: ${failed.detail}`);
      setText('placement', '');
      return;
    }
    state.photo = await response.json();
    $('order').disabled = false;
    await place(true);
  }

  let placing = 0; // the latest placement asked for: an older answer arriving later is dropped
  /** Asks the service for the window's geometry and, when `apply`, its first placement. */
  async function place(apply) {
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
      reason = answer.reason;
      setText('placement', `Placed automatically: ${answer.reason}.`);
    }
    await Promise.all([previewFront(), previewBack()]);
  }

  // ---- Gestures ------------------------------------------------------------------------

  const pointers = new Map(); // pointerId -> {x, y}
  let base = null; // {transform, points} when the set of pointers last changed
  let turning = null; // {transform, angle} while the handle is dragged
  let wheelTimer = null;
  let keyTimer = null;

  function gestureActive() { return pointers.size > 0 || turning !== null || wheelTimer !== null || keyTimer !== null; }

  function copyTransform(t) { return { scale: t.scale, rotation: t.rotation, offset: { x: t.offset.x, y: t.offset.y } }; }

  function rebase() {
    base = { transform: copyTransform(state.transform), points: Array.from(pointers.values(), (p) => ({ x: p.x, y: p.y })) };
  }

  function beginGesture() { showLive(true); }

  function endGesture() { previewFront(performance.now()); }

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

  function setUpGestures() {
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
      if (keyTimer === null) beginGesture();
      setTransform(t);
      clearTimeout(keyTimer);
      // Held or repeated keys are one gesture, ended 250 ms after the last.
      keyTimer = setTimeout(() => { keyTimer = null; endGesture(); }, 250);
    };
    stage.addEventListener('keydown', keys);

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
    handle.addEventListener('pointerdown', (event) => {
      if (!state.photo) return;
      event.preventDefault();
      handle.setPointerCapture(event.pointerId);
      turning = { transform: copyTransform(state.transform), angle: angleOf(event) };
      beginGesture();
    });
    handle.addEventListener('pointermove', (event) => {
      if (!turning) return;
      const t = copyTransform(turning.transform);
      t.rotation += angleOf(event) - turning.angle;
      setTransform(t);
    });
    const release = () => {
      if (!turning) return;
      turning = null;
      endGesture();
    };
    handle.addEventListener('pointerup', release);
    handle.addEventListener('pointercancel', release);

    for (const [id, apply] of [
      ['scale', (t, v) => { t.scale = v; }],
      ['rotation', (t, v) => { t.rotation = v; }],
      ['offset-x', (t, v) => { t.offset.x = v; }],
      ['offset-y', (t, v) => { t.offset.y = v; }],
    ]) {
      $(id).addEventListener('change', () => {
        const value = Number($(id).value);
        if (!Number.isFinite(value)) return;
        const t = copyTransform(state.transform);
        apply(t, value);
        setTransform(t);
        previewFront();
      });
    }
    $('auto-place').addEventListener('click', () => place(true));
    new ResizeObserver(drawLive).observe(stage);
  }

  // ---- Frames, effect, size, message, recipients --------------------------------------

  async function loadFrames() {
    const list = $('frame-list');
    list.textContent = '';
    const option = (value, title, image) => {
      const label = document.createElement('label');
      const input = document.createElement('input');
      input.type = 'radio';
      input.name = 'frame';
      input.value = value;
      input.checked = state.frame === value;
      input.addEventListener('change', async () => {
        state.frame = value;
        await place(false);
      });
      label.append(input);
      if (image) {
        label.append(image);
      } else {
        const none = document.createElement('span');
        none.className = 'none';
        none.textContent = '—';
        none.setAttribute('aria-hidden', 'true');
        label.append(none);
      }
      label.append(document.createTextNode(title));
      list.append(label);
    };
    option('', 'No frame', null);
    const response = await api('GET', '/v1/frames');
    if (!response.ok) {
      setText('photo-error', `The frames could not be listed: ${(await problem(response)).detail}`);
      return;
    }
    const { frames } = await response.json();
    const images = [];
    for (const frame of frames) {
      const image = document.createElement('img');
      image.alt = '';
      images.push([image, frame.thumbnail]);
      option(frame.id, `${frame.title} (${frame.theme})`, image);
    }
    // Thumbnails need the key, so they are fetched rather than linked; four at a time.
    const queue = images.slice();
    const worker = async () => {
      for (let item = queue.shift(); item; item = queue.shift()) {
        const [image, path] = item;
        const answer = await api('GET', `${path}?width=192`);
        if (answer.ok) image.src = URL.createObjectURL(await answer.blob());
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
  }

  function renderRecipients() {
    const list = $('recipient-list');
    list.textContent = '';
    state.recipients.forEach((recipient, index) => {
      const item = document.createElement('li');
      item.textContent = [recipient.name, recipient.address1, recipient.address2, recipient.postcode,
        recipient.city, recipient.country].filter(Boolean).join(', ');
      const remove = document.createElement('button');
      remove.type = 'button';
      remove.textContent = 'Remove';
      remove.setAttribute('aria-label', `Remove ${recipient.name}`);
      remove.addEventListener('click', () => {
        state.recipients.splice(index, 1);
        renderRecipients();
        previewBackSoon();
      });
      item.append(remove);
      list.append(item);
    });
  }

  function setUpFields() {
    $('photo-input').addEventListener('change', (event) => choosePhoto(event.target.files[0]));
    $('effect').addEventListener('change', () => { state.effect = $('effect').value; previewFront(); });
    $('strength').addEventListener('change', () => { state.strength = Number($('strength').value); previewFront(); });
    $('size').addEventListener('change', async () => { state.size = $('size').value; await place(false); });
    $('message').addEventListener('input', () => { state.message.text = $('message').value; previewBackSoon(); });
    for (const [id, field, number] of [['font', 'font'], ['font-size', 'size', true], ['colour', 'colour'], ['align', 'align']]) {
      $(id).addEventListener('change', () => {
        state.message[field] = number ? Number($(id).value) : $(id).value;
        previewBackSoon();
      });
    }
    $('add-recipient').addEventListener('click', () => {
      const fields = ['name', 'address1', 'address2', 'postcode', 'city', 'region', 'country'];
      const recipient = {};
      for (const field of fields) {
        const value = $(`r-${field}`).value.trim();
        if (value) recipient[field] = value;
      }
      // The region is asked by the destination's post (a US state): the service says when.
      const missing = fields.filter((field) => field !== 'address2' && field !== 'region' && !recipient[field]);
      if (missing.length) {
        setText('recipient-error', `A recipient needs ${missing.join(', ')}.`);
        return;
      }
      setText('recipient-error', '');
      state.recipients.push(recipient);
      for (const field of fields) $(`r-${field}`).value = '';
      renderRecipients();
      previewBackSoon();
    });
    for (const field of senderFields) {
      $(`s-${field}`).addEventListener('input', () => {
        state.sender[field] = $(`s-${field}`).value;
        saveDraft();
        previewBackSoon();
      });
    }
    $('order').addEventListener('click', order);
  }

  // ---- Ordering ------------------------------------------------------------------------

  function describe(list) {
    if (list.length === 1) {
      const card = list[0];
      return card.status === 'failed' ? `failed: ${card.error}` : card.status;
    }
    const counts = {};
    for (const card of list) counts[card.status] = (counts[card.status] || 0) + 1;
    return `${list.length} cards: ` + Object.entries(counts).map(([status, n]) => `${n} ${status}`).join(', ');
  }

  /** How the post takes the ordered cards: their mail class, and what it may do with them. */
  function mailNote(list) {
    if (!list.length || !list[0].mailClass) return '';
    const warnings = [...new Set(list.flatMap((card) => card.warnings || []))]
      .map((text) => text.charAt(0).toUpperCase() + text.slice(1));
    return [`Posted as a ${list[0].mailClass}.`, ...warnings].join(' ');
  }

  /**
   * Until the preview on screen is the current spec's (a gesture still running is ended
   * first), so that what is ordered is what was last shown; at most `seconds`.
   */
  async function previewShown(seconds) {
    if (wheelTimer !== null || keyTimer !== null) {
      clearTimeout(wheelTimer);
      clearTimeout(keyTimer);
      wheelTimer = null;
      keyTimer = null;
      endGesture();
    }
    const deadline = performance.now() + seconds * 1000;
    while (performance.now() < deadline && !(previewsInFlight === 0 && shownSpec === frontSpec())) {
      await delay(50);
    }
  }

  async function order() {
    if (!state.photo) return;
    setText('order-error', '');
    $('order').disabled = true;
    setText('status', 'ordering');
    await previewShown(30);
    const body = JSON.stringify({ spec: spec(), press: 'rgb-jpeg' });
    // The same order sent again (a retry after a lost answer) keeps its idempotency key.
    if (!pendingOrder || pendingOrder.body !== body) pendingOrder = { body, idempotencyKey: randomKey() };
    const response = await api('POST', '/v1/cards', {
      body, type: 'application/json', headers: { 'Idempotency-Key': pendingOrder.idempotencyKey },
    });
    if (!response.ok) {
      const failed = await problem(response);
      showProblem(failed, 'order-error');
      setText('order-error', failed.detail);
      setText('status', 'not ordered');
      $('order').disabled = false;
      return;
    }
    const created = await response.json();
    pendingOrder = null;
    cards = created.cards.map((card) => ({ id: card.id, status: card.status }));
    setText('status', describe(cards));
    await follow(created.cards.map((card) => card.id));
    $('order').disabled = false;
  }

  /** Follows the ordered cards to ready (or failed), then shows the first one's sample. */
  async function follow(ids) {
    for (;;) {
      const answers = await Promise.all(ids.map((id) => api('GET', `/v1/cards/${encodeURIComponent(id)}`)));
      const next = [];
      for (const answer of answers) {
        if (!answer.ok) {
          setText('order-error', (await problem(answer)).detail);
          return;
        }
        next.push(await answer.json());
      }
      const first = next[0];
      const shown = cards.length && cards[0].id === first.id && cards[0].status === 'ready';
      if (first.status === 'ready' && first.files && first.files.sample && !shown) {
        const sample = await api('GET', first.files.sample);
        if (sample.ok) {
          const final = $('final');
          final.src = URL.createObjectURL(await sample.blob());
          await final.decode().catch(() => {});
          final.hidden = false;
        }
      }
      cards = next;
      setText('status', describe(cards));
      setText('mail', mailNote(cards));
      if (cards.every((card) => ['ready', 'failed', 'cancelled', 'printed'].includes(card.status))) return;
      await delay(400);
    }
  }

  // ---- Signing in, start -----------------------------------------------------------------

  function signOut(message) {
    sessionStorage.removeItem(keyName);
    key = null;
    $('studio').hidden = true;
    $('signin').hidden = false;
    connection(message);
  }

  function restoreDraft() {
    try {
      const draft = JSON.parse(sessionStorage.getItem(draftName) || 'null');
      if (draft && typeof draft === 'object') Object.assign(state, draft);
    } catch { /* an unreadable draft is dropped */ }
    $('message').value = state.message.text;
    $('font').value = state.message.font;
    $('font-size').value = state.message.size;
    $('colour').value = state.message.colour;
    $('align').value = state.message.align;
    $('effect').value = state.effect;
    $('strength').value = state.strength;
    $('size').value = state.size;
    setTransform(state.transform);
    for (const field of senderFields) $(`s-${field}`).value = (state.sender || {})[field] || '';
    renderRecipients();
    $('order').disabled = !state.photo;
  }

  async function start(photoId) {
    $('signin').hidden = true;
    $('studio').hidden = false;
    restoreDraft();
    const frames = loadFrames();
    if (photoId && (!state.photo || state.photo.id !== photoId)) {
      // A photo already uploaded (`#photo=ID`): no live copy of it here, only previews.
      const response = await api('GET', `/v1/photos/${encodeURIComponent(photoId)}`);
      if (response.ok) {
        state.photo = await response.json();
        $('order').disabled = false;
        await place(true);
      } else {
        setText('photo-error', `The photo ${photoId} cannot be used: ${(await problem(response)).detail}`);
      }
    } else if (state.photo) {
      await place(false);
    }
    await frames;
  }

  function boot() {
    // The key arrives in the fragment (never sent to the server), is kept for this tab
    // only, and leaves the address bar at once.
    const match = location.hash.match(/(?:^#|&)key=([^&]+)/);
    const photo = location.hash.match(/(?:^#|&)photo=([0-9a-f]{64})(?:&|$)/);
    if (match) sessionStorage.setItem(keyName, decodeURIComponent(match[1]));
    if (location.hash) history.replaceState(null, '', location.pathname + location.search);
    key = sessionStorage.getItem(keyName);
    $('signin').addEventListener('submit', (event) => {
      event.preventDefault();
      key = $('key').value.trim();
      if (!key) return;
      sessionStorage.setItem(keyName, key);
      $('key').value = '';
      connection('');
      start(photo && photo[1]);
    });
    setUpGestures();
    setUpFields();
    try {
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) longTasks.push({ start: entry.startTime, duration: entry.duration });
      }).observe({ type: 'longtask', buffered: true });
    } catch { /* no Long Tasks API: nothing to record */ }
    if (key) start(photo && photo[1]); else $('signin').hidden = false;
  }

  window.studio = Object.freeze({
    /** The spec the page would send (numbers always). */
    spec: () => spec(),
    /** The ordered card as the service last answered (the first, for several recipients). */
    card: () => (cards.length ? JSON.parse(JSON.stringify(cards[0])) : null),
    /** Every ordered card. */
    cards: () => JSON.parse(JSON.stringify(cards)),
    /** Milliseconds from the end of each gesture to its preview on screen. */
    timings: () => timings.slice(),
    /** Long tasks (over 50 ms) seen on the main thread. */
    longTasks: () => longTasks.slice(),
    /** SHA-256 (hex) of the preview on screen. */
    previewDigest: () => previewDigest,
    /** Why the photo was placed where it started. */
    placement: () => reason,
    /** True when the preview on screen is the spec's and nothing is loading. */
    settled: () => previewsInFlight === 0 && !gestureActive() && backTimer === null && shownSpec === frontSpec()
      && shownBack === backSpec() && previewDigest !== null,
  });
  boot();
})();
