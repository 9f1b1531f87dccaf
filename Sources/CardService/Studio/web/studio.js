// The card studio: make a postcard with your fingers, previewed by the print renderer.
//
// Plain JavaScript, no build step and nothing fetched from elsewhere. The page's gesture
// state *is* the spec's `transform`: from the photo covering the window, `scale` multiplies,
// `rotation` turns it clockwise (degrees) about its centre, and `offset` moves that centre
// by fractions of the window's width and height (a drag of a fifth of the window's width is
// `offset.x = 0.2`). While a gesture runs the page hides the last preview and moves its
// own copy of the photo (the browser's decode, or the service's JPEG of a photo the browser
// cannot decode) by the same numbers, clipped to the window; when it ends, the service's
// preview (the print renderer's sample) replaces the copy.
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
    recipientDraft: {}, // the recipient form's fields as typed, not yet added
    backRecipient: 0, // whose back is previewed (an index in `recipients`)
  };
  const senderFields = ['name', 'address1', 'postcode', 'city', 'country'];
  const recipientFields = ['name', 'address1', 'address2', 'postcode', 'city', 'region', 'country'];
  let key = null;
  let geometry = null; // {card: {width, height}, window: {x, y, width, height} in fractions of the card}
  let reason = '';
  let cards = []; // the ordered cards as the service last answered
  let orderedNames = []; // the recipients' names when the cards were ordered
  let pendingOrder = null; // {body, idempotencyKey}: a retried order is the same order
  const timings = []; // ms from the end of a gesture to its preview on screen
  const longTasks = [];
  let previewDigest = null; // SHA-256 of the preview on screen
  let backDigest = null; // SHA-256 of the back's preview on screen
  let shownSpec = null; // the photo side's spec (JSON) the preview on screen was made from
  let frontFailed = null; // the photo side's spec (JSON) whose preview the service refused or failed
  let shownBack = null; // the spec (JSON) the back's preview on screen was made from, or '' for none
  let previewsInFlight = 0;
  let live = null; // the moving copy: {photo (id), source ('browser' or 'service'), width, height}

  // ---- Helpers -------------------------------------------------------------------------

  const delay = (ms, signal) => new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    if (signal) signal.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason); }, { once: true });
  });
  const round = (value, places) => Math.round(value * 10 ** places) / 10 ** places;
  const clamp = (value, low, high) => Math.min(high, Math.max(low, value));
  const hex = (buffer) => Array.from(new Uint8Array(buffer), (byte) => byte.toString(16).padStart(2, '0')).join('');
  const randomKey = () => (crypto.randomUUID ? crypto.randomUUID() : hex(crypto.getRandomValues(new Uint8Array(16))));
  const sha256 = async (blob) => hex(await crypto.subtle.digest('SHA-256', await blob.arrayBuffer()));

  function setText(id, text) { $(id).textContent = text; }
  function connection(text) { setText('connection', text); }

  /** The service's answer to a failed request: its problem's detail, with each field's. */
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
        ? `The service is busy; trying again in ${Math.ceil(pause / 1000)} s. Nothing is lost.`
        : `The service cannot be reached; trying again in ${Math.ceil(pause / 1000)} s. Nothing is lost.`);
      await delay(pause, signal);
      wait = Math.min(wait * 2, 8000);
    }
  }

  function saveDraft() {
    try { sessionStorage.setItem(draftName, JSON.stringify(state)); } catch { /* storage full or off */ }
  }

  // ---- Words for people ----------------------------------------------------------------
  //
  // The service names a refused value by its path in the spec (`recipients[1].name`), for
  // programs; the page says which field that is, as its label reads ("Recipient 2, name"),
  // and shows it at the field.

  const addressLabels = {
    name: 'name', organisation: 'organisation', address1: 'address', address2: 'address, line 2',
    address3: 'address, line 3', dependentLocality: 'district', city: 'city', locality: 'city',
    region: 'state or region', postcode: 'postcode', sortingCode: 'sorting code', country: 'country',
  };
  const specLabels = {
    photo: 'Photo', frame: 'Frame', effect: 'Effect', 'effect.name': 'Effect', 'effect.strength': 'Effect, strength',
    card: 'Card size', 'card.size': 'Card size', 'card.dpi': 'Card size', 'card.bleed': 'Card size',
    transform: 'Placement', 'transform.scale': 'Placement, zoom', 'transform.rotation': 'Placement, turn',
    'transform.offset': 'Placement', 'transform.offset.x': 'Placement, move right',
    'transform.offset.y': 'Placement, move down', background: 'Background', message: 'Message',
    'message.text': 'Message', 'message.font': 'Font', 'message.size': 'Size (pt)', 'message.colour': 'Colour',
    'message.align': 'Alignment', recipients: 'Recipients', sender: 'Sender',
  };

  /**
   * Where an error about `path` is shown and how its field is named. `recipientIndex` is
   * the recipient a one-recipient spec was sent for (its `recipients[0]`).
   */
  function fieldOf(path, recipientIndex) {
    const field = String(path || '').replace(/^spec\./, '');
    const recipient = field.match(/^recipients\[(\d+)\](?:\.(\w+))?/);
    if (recipient) {
      const index = recipientIndex !== undefined ? recipientIndex : Number(recipient[1]);
      const part = recipient[2] ? `, ${addressLabels[recipient[2]] || recipient[2]}` : '';
      return { target: 'recipient-error', label: `Recipient ${index + 1}${part}` };
    }
    const sender = field.match(/^sender(?:\.(\w+))?/);
    if (sender) {
      return { target: 'sender-error', label: `Sender${sender[1] ? `, ${addressLabels[sender[1]] || sender[1]}` : ''}` };
    }
    if (field.startsWith('message')) return { target: 'message-error', label: specLabels[field] || 'Message' };
    if (field === 'recipients') return { target: 'recipient-error', label: 'Recipients' };
    const top = field.split(/[.[]/)[0];
    return { target: 'photo-error', label: specLabels[field] || specLabels[top] || 'The card' };
  }

  /** The service's words without its own naming of the field (the page puts the label). */
  function cleanDetail(detail) {
    return String(detail || '')
      .replace(/^The spec is refused: (?:spec: )?(?:[\w.[\]]+: )?/, '')
      .replace(/^(?:recipient \d+|the sender)(?:, [^:]*)?: /i, '')
      .trim();
  }

  /**
   * Shows a refusal at the fields it names, in words for people; a refusal naming no field
   * goes to `fallback`. Returns the lines shown, by where.
   */
  function showProblem(failed, fallback, recipientIndex) {
    const messages = { 'message-error': [], 'recipient-error': [], 'sender-error': [], 'photo-error': [] };
    messages[fallback] = messages[fallback] || [];
    for (const error of failed.errors) {
      const where = fieldOf(error.field, recipientIndex);
      messages[where.target].push(`${where.label}: ${cleanDetail(error.detail)}`);
    }
    const any = Object.values(messages).some((list) => list.length);
    if (!any) messages[fallback].push(cleanDetail(failed.detail) || failed.detail);
    for (const [id, list] of Object.entries(messages)) if (list.length) setText(id, list.join('\n'));
    return messages;
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

  /** The recipient whose back is previewed, or -1 for none. */
  function backIndex() {
    if (!state.recipients.length) return -1;
    return clamp(Math.trunc(Number(state.backRecipient) || 0), 0, state.recipients.length - 1);
  }

  /**
   * The spec of the back's preview: the card with only the previewed recipient (the back
   * shows the first recipient of the spec it is made from); null for a card without a back.
   */
  function backCard() {
    const card = spec();
    if (!card.message && !card.recipients) return null;
    const index = backIndex();
    if (index >= 0) card.recipients = [Object.assign({}, state.recipients[index])];
    return card;
  }

  /** What the back's preview depends on (JSON), or '' for a card without a back. */
  function backSpec() {
    const card = backCard();
    if (!card) return '';
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
  function drawLive() {
    const canvas = $('live');
    const stage = $('stage');
    if (!state.photo || !live || live.photo !== state.photo.id) return;
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
  function liveReady() { return !!(state.photo && live && live.photo === state.photo.id); }

  /**
   * One picture at a time: during a gesture (`on`) the moving copy alone, clipped to the
   * window, over the card's own background; else the service's preview. Without a copy
   * (not decoded yet), the last preview stays.
   */
  function showLive(on) {
    const moving = on && liveReady();
    $('live').hidden = !moving;
    const preview = $('preview');
    preview.hidden = moving || !preview.getAttribute('src');
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
        if (request.controller.signal.aborted) return;
        const failed = await problem(response);
        if (request.controller.signal.aborted) return;
        showProblem(failed, 'photo-error');
        frontFailed = front;
        if (!gestureActive()) showLive(false);
        return;
      }
      const blob = await response.blob();
      if (request.controller.signal.aborted) return;
      const url = URL.createObjectURL(blob);
      const image = $('preview');
      const previous = image.getAttribute('src') || '';
      const loaded = new Image();
      loaded.src = url;
      await loaded.decode();
      if (request.controller.signal.aborted) { URL.revokeObjectURL(url); return; }
      image.src = url;
      $('empty').hidden = true;
      // A gesture already under way keeps its moving copy alone on the card.
      if (!gestureActive()) showLive(false); else showLive(true);
      await image.decode().catch(() => {});
      if (previous.startsWith('blob:')) URL.revokeObjectURL(previous);
      if (gestureEnded !== undefined) timings.push(performance.now() - gestureEnded);
      setText('photo-error', '');
      shownSpec = front;
      frontFailed = null;
      // The tests' check that the order is what was shown; outside a secure context (a
      // phone on the dev server by its LAN address) there is no crypto.subtle: no digest.
      previewDigest = await sha256(blob).catch(() => null);
    } catch (error) {
      if (!(error && error.name === 'AbortError') && !request.controller.signal.aborted) {
        setText('photo-error', 'The preview could not be shown; change anything to try again.');
        frontFailed = front;
        if (!gestureActive()) showLive(false);
      }
    } finally {
      previewsInFlight--;
      if (frontRequest === request) { frontRequest = null; $('busy').hidden = true; }
    }
  }

  let backTimer = null;
  let backRequest = null;
  let recipientErrorFromBack = false; // the recipients' error line says what the back's preview refused
  function previewBackSoon() {
    saveDraft();
    clearTimeout(backTimer);
    backTimer = setTimeout(previewBack, 350);
  }

  /** Shows a back's preview (a JPEG blob) made from `back` (backSpec()'s JSON). */
  async function showBack(blob, back, signal, index) {
    const url = URL.createObjectURL(blob);
    const image = $('back-preview');
    const previous = image.getAttribute('src') || '';
    const loaded = new Image();
    loaded.src = url;
    await loaded.decode().catch(() => {});
    if (signal && signal.aborted) { URL.revokeObjectURL(url); return; }
    image.src = url;
    if (image.naturalWidth && image.naturalHeight) {
      $('back-frame').style.setProperty('--aspect', String(image.naturalWidth / image.naturalHeight));
    }
    image.hidden = false;
    if (previous.startsWith('blob:')) URL.revokeObjectURL(previous);
    const recipient = state.recipients[index];
    setText('back-caption', recipient
      ? `The back for recipient ${index + 1}, ${recipient.name}.`
      : 'The back, with the message.');
    image.alt = recipient ? `Preview of the message side for recipient ${index + 1}, ${recipient.name}`
      : 'Preview of the message side';
    shownBack = back;
    backDigest = await sha256(blob).catch(() => null);
  }

  async function previewBack() {
    backTimer = null;
    const card = backCard();
    if (!state.photo || !card) {
      $('back-preview').removeAttribute('src');
      $('back-preview').hidden = true;
      setText('back-caption', 'Write a message or add a recipient to see the back.');
      setText('message-error', '');
      shownBack = '';
      backDigest = null;
      return;
    }
    const back = backSpec();
    const index = backIndex();
    if (backRequest) backRequest.abort();
    const controller = new AbortController();
    backRequest = controller;
    previewsInFlight++;
    try {
      const response = await api('POST', '/v1/previews?side=back',
        { body: JSON.stringify(card), type: 'application/json', signal: controller.signal });
      if (!response.ok) {
        if (controller.signal.aborted) return;
        const failed = await problem(response);
        if (controller.signal.aborted) return;
        setText('message-error', '');
        setText('sender-error', '');
        const shown = showProblem(failed, 'message-error', index >= 0 ? index : undefined);
        if (shown['recipient-error'].length) recipientErrorFromBack = true;
        shownBack = back;
        return;
      }
      const blob = await response.blob();
      if (controller.signal.aborted) return;
      setText('message-error', '');
      setText('sender-error', '');
      if (recipientErrorFromBack) { setText('recipient-error', ''); recipientErrorFromBack = false; }
      await showBack(blob, back, controller.signal, index);
    } catch (error) {
      if (!(error && error.name === 'AbortError')) setText('message-error', 'The back could not be shown; change anything to try again.');
    } finally {
      previewsInFlight--;
      if (backRequest === controller) backRequest = null;
    }
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
  let liveToken = 0; // the latest copy asked for: an older one finishing later is dropped
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
    live = { photo: id, source, width: canvas.width, height: canvas.height };
    drawLive();
    if (gestureActive()) showLive(true);
  }

  /** Forgets the moving copy (a new photo is coming). */
  function dropLive() {
    liveToken++;
    live = null;
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
  async function liveFromService(photo, token) {
    const factor = Math.min(1, liveSide / Math.max(photo.width, photo.height));
    const width = clamp(Math.round(photo.width * factor), 16, 2048);
    try {
      const response = await api('GET', `/v1/photos/${encodeURIComponent(photo.id)}?width=${width}`);
      if (!response.ok || token !== liveToken) return;
      const bitmap = await createImageBitmap(await response.blob());
      if (token !== liveToken || !state.photo || state.photo.id !== photo.id) { bitmap.close(); return; }
      setLive(bitmap, photo.id, 'service');
    } catch { /* no moving copy: gestures show the last preview until the new one */ }
  }

  async function choosePhoto(file) {
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
    const token = liveToken;
    state.photo = photo;
    $('order').disabled = false;
    const bitmap = await decoded;
    if (bitmap && token === liveToken) setLive(bitmap, photo.id, 'browser');
    else if (bitmap) bitmap.close();
    await Promise.all([place(true), bitmap ? null : liveFromService(photo, token)]);
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
  let turning = null; // {transform, angle, x, y} (where the press began) while the turn button is dragged
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
      setText('photo-error', `The frames could not be listed: ${cleanDetail((await problem(response)).detail)}`);
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
    const shown = backIndex();
    state.recipients.forEach((recipient, index) => {
      const item = document.createElement('li');
      const who = document.createElement('span');
      who.className = 'who';
      who.dir = 'auto';
      who.textContent = `${index + 1}. ` + [recipient.name, recipient.address1, recipient.address2, recipient.postcode,
        recipient.city, recipient.region, recipient.country].filter(Boolean).join(', ');
      const preview = document.createElement('button');
      preview.type = 'button';
      preview.textContent = 'Show back';
      preview.className = 'show-back';
      preview.setAttribute('aria-label', `Show the back for recipient ${index + 1}, ${recipient.name}`);
      preview.setAttribute('aria-pressed', String(index === shown));
      preview.addEventListener('click', () => {
        state.backRecipient = index;
        renderRecipients();
        previewBackSoon();
      });
      const remove = document.createElement('button');
      remove.type = 'button';
      remove.textContent = 'Remove';
      remove.className = 'remove';
      remove.setAttribute('aria-label', `Remove recipient ${index + 1}, ${recipient.name}`);
      remove.addEventListener('click', () => {
        state.recipients.splice(index, 1);
        if (state.backRecipient >= index && state.backRecipient > 0) state.backRecipient--;
        setText('recipient-error', '');
        renderRecipients();
        previewBackSoon();
      });
      item.append(who, preview, remove);
      list.append(item);
    });
    setText('recipient-next', `Add recipient ${state.recipients.length + 1}`);
  }

  const requiredRecipientFields = ['name', 'address1', 'postcode', 'city', 'country'];
  let adding = false;
  /**
   * Adds the recipient typed in the form once the service takes it: the back of a card
   * with this recipient alone (and no message or sender, whose own errors are shown at
   * their fields) is asked first, and a refused address stays in the form with the
   * service's words, not in the list.
   */
  async function addRecipient() {
    if (adding) return;
    const number = state.recipients.length + 1;
    const recipient = {};
    for (const field of recipientFields) {
      const value = $(`r-${field}`).value.trim();
      if (value) recipient[field] = value;
    }
    for (const field of recipientFields) $(`r-${field}`).removeAttribute('aria-invalid');
    // The region is asked by the destination's post (a US state): the service says when.
    const missing = requiredRecipientFields.filter((field) => !recipient[field]);
    if (missing.length) {
      const names = missing.map((field) => `the ${addressLabels[field]}`);
      const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}` : names[0];
      setText('recipient-error', `Recipient ${number}: add ${list}.`);
      for (const field of missing) $(`r-${field}`).setAttribute('aria-invalid', 'true');
      $(`r-${missing[0]}`).focus();
      return;
    }
    if (!state.photo) {
      setText('recipient-error', `Recipient ${number}: choose the photo first; each address is checked on the card before it is added.`);
      return;
    }
    adding = true; // a second tap while the service checks this one adds nothing
    setText('recipient-error', '');
    try {
      const card = spec();
      delete card.message;
      delete card.sender;
      card.recipients = [recipient];
      const response = await api('POST', '/v1/previews?side=back', { body: JSON.stringify(card), type: 'application/json' });
      if (!response.ok) {
        const failed = await problem(response);
        const shown = showProblem(failed, 'recipient-error', number - 1);
        // What the service refused may be another field's (the photo, the frame): the line
        // under this button says so too, since on a phone those fields are far above.
        if (!shown['recipient-error'].length) {
          setText('recipient-error', [`Recipient ${number} is not added yet:`, ...Object.values(shown).flat()].join('\n'));
        }
        for (const error of failed.errors) {
          const field = (error.field.match(/^(?:spec\.)?recipients\[\d+\]\.(\w+)/) || [])[1];
          if (field && $(`r-${field}`)) $(`r-${field}`).setAttribute('aria-invalid', 'true');
        }
        recipientErrorFromBack = false;
        return;
      }
      state.recipients.push(recipient);
      state.backRecipient = state.recipients.length - 1;
      state.recipientDraft = {};
      for (const field of recipientFields) $(`r-${field}`).value = '';
      renderRecipients();
      clearTimeout(backTimer);
      saveDraft();
      await previewBack();
    } finally {
      adding = false;
    }
  }

  function setUpFields() {
    $('photo-input').addEventListener('change', (event) => choosePhoto(event.target.files[0]));
    $('effect').addEventListener('change', () => { state.effect = $('effect').value; previewFront(); });
    $('strength').addEventListener('change', () => { state.strength = Number($('strength').value); previewFront(); });
    $('size').addEventListener('change', async () => { state.size = $('size').value; await place(false); });
    $('message').addEventListener('input', () => { state.message.text = $('message').value; previewBackSoon(); });
    for (const [id, field] of [['font', 'font'], ['colour', 'colour'], ['align', 'align']]) {
      $(id).addEventListener('change', () => {
        state.message[field] = $(id).value;
        previewBackSoon();
      });
    }
    $('font-size').addEventListener('change', () => {
      const value = Number($('font-size').value);
      if ($('font-size').value === '' || !Number.isInteger(value) || value < 10 || value > 30) {
        setText('message-error', 'Size (pt): choose a whole number from 10 to 30.');
        $('font-size').setAttribute('aria-invalid', 'true');
        return;
      }
      $('font-size').removeAttribute('aria-invalid');
      state.message.size = value;
      previewBackSoon();
    });
    $('add-recipient').addEventListener('click', addRecipient);
    for (const field of recipientFields) {
      $(`r-${field}`).addEventListener('input', () => {
        state.recipientDraft[field] = $(`r-${field}`).value;
        $(`r-${field}`).removeAttribute('aria-invalid');
        saveDraft();
      });
    }
    for (const field of senderFields) {
      $(`s-${field}`).addEventListener('input', () => {
        state.sender[field] = $(`s-${field}`).value;
        saveDraft();
        previewBackSoon();
      });
    }
    $('order').addEventListener('click', order);
    // On a phone the card sticks at the top of the photo side: a field scrolled into view
    // (a Tab, a focus) stops below it, not under it.
    const front = $('front');
    new ResizeObserver(() => {
      const area = $('stage-area');
      const above = getComputedStyle(area).position === 'sticky' && !matchMedia('(min-width: 900px)').matches;
      front.style.setProperty('--sticky-height', above ? `${area.offsetHeight}px` : '0px');
    }).observe($('stage-area'));
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
    const done = () => previewsInFlight === 0 && (shownSpec === frontSpec() || frontFailed === frontSpec());
    while (performance.now() < deadline && !done()) {
      await delay(50);
    }
  }

  /** Orders the card; whatever fails on the way is said under the button, which comes back. */
  async function order() {
    try {
      await placeOrder();
    } catch {
      setText('order-error', 'The card is not ordered yet: something failed on the way. Nothing is lost; press Order again.');
      setText('status', 'not ordered');
    } finally {
      $('order').disabled = !state.photo;
    }
  }

  async function placeOrder() {
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
      const shown = showProblem(failed, 'order-error');
      // Also here, under the button: on a phone the fields are far above.
      const lines = Object.values(shown).flat();
      setText('order-error', ['The card is not ordered yet:', ...lines].join('\n'));
      setText('status', 'not ordered');
      $('order').disabled = false;
      return;
    }
    const created = await response.json();
    pendingOrder = null;
    orderedNames = state.recipients.map((recipient) => recipient.name);
    cards = created.cards.map((card) => ({ id: card.id, status: card.status, recipient: card.recipient }));
    setText('status', describe(cards));
    renderOrdered();
    await follow(created.cards.map((card) => card.id));
    $('order').disabled = false;
  }

  const fileWords = { sample: 'Sample', small: 'Small image', print: 'Print file' };
  const extensions = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/tiff': 'tif', 'application/pdf': 'pdf' };
  const fileLinks = new Map(); // the API path of a card's file -> {url, type} of its blob, once fetched

  /**
   * A link to one of a card's files. The files need the key, so the first tap fetches the
   * file with it and then follows the link to the file's blob URL (a download).
   */
  function fileLink(card, name, path) {
    const link = document.createElement('a');
    link.textContent = fileWords[name];
    const fetched = fileLinks.get(path);
    link.href = fetched ? fetched.url : path;
    link.download = `card-${card.id}-${name}.${fetched ? extensions[fetched.type] || 'bin' : 'jpg'}`;
    link.dataset.file = name;
    link.setAttribute('aria-label', `${fileWords[name]} of card ${card.index + 1} (download)`);
    link.addEventListener('click', async (event) => {
      if (link.href.startsWith('blob:')) return;
      event.preventDefault();
      if (link.dataset.loading) return;
      link.dataset.loading = '1';
      try {
        const response = await api('GET', path);
        if (!response.ok) {
          setText('order-error', `${fileWords[name]} of card ${card.index + 1}: ${cleanDetail((await problem(response)).detail)}`);
          return;
        }
        const blob = await response.blob();
        const known = fileLinks.get(path) || { url: URL.createObjectURL(blob), type: blob.type.split(';')[0].trim() };
        fileLinks.set(path, known);
        link.download = `card-${card.id}-${name}.${extensions[known.type] || 'bin'}`;
        link.href = known.url;
        link.click();
      } finally {
        delete link.dataset.loading;
      }
    });
    return link;
  }

  /** The ordered cards, one line each: whom it goes to, its status, and its files once ready. */
  function renderOrdered() {
    const list = $('ordered');
    list.textContent = '';
    cards.forEach((card, index) => {
      const item = document.createElement('li');
      item.dataset.card = card.id;
      const name = Number.isInteger(card.recipient) ? orderedNames[card.recipient] : null;
      const title = document.createElement('span');
      title.dir = 'auto';
      title.textContent = `Card ${index + 1}${name ? ` for ${name}` : ''}: ` +
        (card.status === 'failed' ? `failed: ${card.error}` : card.status);
      item.append(title);
      if (card.files && card.status !== 'failed') {
        const files = document.createElement('div');
        files.className = 'files';
        for (const name of ['sample', 'small', 'print']) {
          if (card.files[name]) files.append(fileLink(Object.assign({ index }, card), name, card.files[name]));
        }
        if (files.childElementCount) item.append(files);
      }
      list.append(item);
    });
  }

  /** Follows the ordered cards to ready (or failed), then shows the first one's sample. */
  async function follow(ids) {
    for (;;) {
      const answers = await Promise.all(ids.map((id) => api('GET', `/v1/cards/${encodeURIComponent(id)}`)));
      const next = [];
      for (const answer of answers) {
        if (!answer.ok) {
          setText('order-error', cleanDetail((await problem(answer)).detail));
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
          const blob = await sample.blob();
          const url = URL.createObjectURL(blob);
          fileLinks.set(first.files.sample, { url, type: blob.type.split(';')[0].trim() });
          final.src = url;
          await final.decode().catch(() => {});
          final.hidden = false;
        }
      }
      const changed = JSON.stringify(next.map((card) => [card.status, card.files])) !==
        JSON.stringify(cards.map((card) => [card.status, card.files]));
      cards = next;
      setText('status', describe(cards));
      setText('mail', mailNote(cards));
      if (changed) renderOrdered();
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
    if (!state.recipientDraft || typeof state.recipientDraft !== 'object') state.recipientDraft = {};
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
    for (const field of recipientFields) $(`r-${field}`).value = state.recipientDraft[field] || '';
    renderRecipients();
    $('order').disabled = !state.photo;
  }

  async function start(photoId) {
    $('signin').hidden = true;
    $('studio').hidden = false;
    restoreDraft();
    const frames = loadFrames();
    if (photoId && (!state.photo || state.photo.id !== photoId)) {
      // A photo already uploaded (`#photo=ID`): its moving copy comes from the service.
      const response = await api('GET', `/v1/photos/${encodeURIComponent(photoId)}`);
      if (response.ok) {
        state.photo = await response.json();
        $('order').disabled = false;
        dropLive();
        await Promise.all([place(true), liveFromService(state.photo, liveToken)]);
      } else {
        setText('photo-error', `The photo in the address cannot be used: ${cleanDetail((await problem(response)).detail)}`);
      }
    } else if (state.photo) {
      // After a reload the file is gone: the moving copy comes from the service.
      dropLive();
      await Promise.all([place(false), liveFromService(state.photo, liveToken)]);
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
    /** The back's preview on screen: whose it is (an index in the spec's recipients, or null) and its SHA-256. */
    back: () => ({ recipient: backIndex() >= 0 ? backIndex() : null, digest: backDigest, spec: backCard() }),
    /** The moving copy: where it came from ('browser' or 'service') and its size, or null. */
    liveCopy: () => (liveReady() ? { source: live.source, width: live.width, height: live.height } : null),
    /** Why the photo was placed where it started. */
    placement: () => reason,
    /** True when the preview on screen is the spec's and nothing is loading. */
    settled: () => previewsInFlight === 0 && !gestureActive() && backTimer === null && shownSpec === frontSpec()
      && shownBack === backSpec() && previewDigest !== null,
  });
  boot();
})();
