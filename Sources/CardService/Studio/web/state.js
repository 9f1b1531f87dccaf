// What the studio holds: the customer's choices (`state`, what a reload restores), the
// visit's values shared between modules (`session`), the spec built from the choices, and
// small helpers (the DOM, numbers, digests). It imports nothing, so any module may import it.

export const $ = (id) => document.getElementById(id);
const meta = document.querySelector('meta[name="cardrender-max-photo-bytes"]');
export const maxPhotoBytes = Number(meta && meta.content) || 64 * 1024 * 1024;
export const keyName = 'cardrender.studio.key';
export const draftName = 'cardrender.studio.draft';

// Everything the customer chose: what `spec()` sends, and what a reload restores.
export const state = {
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
export const senderFields = ['name', 'address1', 'postcode', 'city', 'country'];
export const recipientFields = ['name', 'address1', 'address2', 'postcode', 'city', 'region', 'country'];

/**
 * The values of this visit that several modules read or change. An imported binding cannot
 * be assigned, so they are properties of this object (`session.key = ...`).
 */
export const session = {
  key: null, // the API key, or null when signed out
  reason: '', // why the photo was placed where it started
  cards: [], // the ordered cards as the service last answered
  timings: [], // ms from the end of a gesture to its preview on screen
  previewDigest: null, // SHA-256 of the preview on screen
  backDigest: null, // SHA-256 of the back's preview on screen
  shownSpec: null, // the photo side's spec (JSON) the preview on screen was made from
  frontFailed: null, // the photo side's spec (JSON) whose preview the service refused or failed
  shownBack: null, // the spec (JSON) the back's preview on screen was made from, or '' for none
  previewsInFlight: 0,
  live: null, // the moving copy: {photo (id), source ('browser' or 'service'), width, height}
  liveToken: 0, // the latest moving copy asked for: an older one finishing later is dropped
  backTimer: null, // the back's preview asked for soon (a timer), or null
  recipientErrorFromBack: false, // the recipients' error line says what the back's preview refused
};

// ---- Helpers -------------------------------------------------------------------------

export const delay = (ms, signal) => new Promise((resolve, reject) => {
  const timer = setTimeout(resolve, ms);
  if (signal) signal.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason); }, { once: true });
});
export const round = (value, places) => Math.round(value * 10 ** places) / 10 ** places;
export const clamp = (value, low, high) => Math.min(high, Math.max(low, value));
const hex = (buffer) => Array.from(new Uint8Array(buffer), (byte) => byte.toString(16).padStart(2, '0')).join('');
export const randomKey = () => (crypto.randomUUID ? crypto.randomUUID() : hex(crypto.getRandomValues(new Uint8Array(16))));
export const sha256 = async (blob) => hex(await crypto.subtle.digest('SHA-256', await blob.arrayBuffer()));

export function setText(id, text) { $(id).textContent = text; }
export function connection(text) { setText('connection', text); }

export function saveDraft() {
  try { sessionStorage.setItem(draftName, JSON.stringify(state)); } catch { /* storage full or off */ }
}

// ---- The spec ------------------------------------------------------------------------

/** The spec the page would send: numbers always. */
export function spec() {
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
export function frontSpec() {
  const card = spec();
  delete card.message;
  delete card.recipients;
  delete card.sender;
  return JSON.stringify(card);
}

/** The recipient whose back is previewed, or -1 for none. */
export function backIndex() {
  if (!state.recipients.length) return -1;
  return clamp(Math.trunc(Number(state.backRecipient) || 0), 0, state.recipients.length - 1);
}

/**
 * The spec of the back's preview: the card with only the previewed recipient (the back
 * shows the first recipient of the spec it is made from); null for a card without a back.
 */
export function backCard() {
  const card = spec();
  if (!card.message && !card.recipients) return null;
  const index = backIndex();
  if (index >= 0) card.recipients = [Object.assign({}, state.recipients[index])];
  return card;
}

/** What the back's preview depends on (JSON), or '' for a card without a back. */
export function backSpec() {
  const card = backCard();
  if (!card) return '';
  return JSON.stringify({ message: card.message, recipients: card.recipients, sender: card.sender, card: card.card });
}
