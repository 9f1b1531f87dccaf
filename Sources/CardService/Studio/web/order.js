// The order: sending the card (the same idempotency key for a retried order), the ordered
// cards' status and how the post takes them, their files' links (fetched with the key,
// then downloaded from a blob URL), and following the cards until they are ready.

import { $, delay, frontSpec, randomKey, session, setText, spec, state } from './state.js';
import { api, cleanDetail, problem, showProblem } from './api.js';
import { endWaitingGesture } from './gestures.js';

let orderedNames = []; // the recipients' names when the cards were ordered
let pendingOrder = null; // {body, idempotencyKey}: a retried order is the same order

/** The ordered cards' status in a few words. */
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
  endWaitingGesture();
  const deadline = performance.now() + seconds * 1000;
  const done = () => session.previewsInFlight === 0 && (session.shownSpec === frontSpec() || session.frontFailed === frontSpec());
  while (performance.now() < deadline && !done()) {
    await delay(50);
  }
}

/** Orders the card; whatever fails on the way is said under the button, which comes back. */
export async function order() {
  try {
    await placeOrder();
  } catch {
    setText('order-error', 'The card is not ordered yet: something failed on the way. Nothing is lost; press Order again.');
    setText('status', 'not ordered');
  } finally {
    $('order').disabled = !state.photo;
  }
}

/** Sends the order (the spec as last previewed) and follows its cards. */
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
  session.cards = created.cards.map((card) => ({ id: card.id, status: card.status, recipient: card.recipient }));
  setText('status', describe(session.cards));
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
  session.cards.forEach((card, index) => {
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
    const shown = session.cards.length && session.cards[0].id === first.id && session.cards[0].status === 'ready';
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
      JSON.stringify(session.cards.map((card) => [card.status, card.files]));
    session.cards = next;
    setText('status', describe(session.cards));
    setText('mail', mailNote(session.cards));
    if (changed) renderOrdered();
    // Settled once none is waiting for a render (ready, failed, cancelled, or on past the press:
    // printed, mailed, returned, delivered).
    if (session.cards.every((card) => !['queued', 'rendering'].includes(card.status))) return;
    await delay(400);
  }
}
