// The previews: the photo side's and the back's, asked of the service (the print renderer's
// sample) for the spec as it is now, a newer request aborting an older one, and put on
// screen with their digests for the tests.

import { $, backCard, backIndex, backSpec, frontSpec, saveDraft, session, setText, sha256, state } from './state.js';
import { api, problem, showProblem } from './api.js';
import { showLive } from './stage.js';
import { gestureActive } from './gestures.js';

let frontRequest = null; // {controller}
/**
 * Asks for the photo side's preview of the spec as it is now; `gestureEnded` (a
 * performance.now() time) is measured to the moment the new preview is on screen.
 */
export async function previewFront(gestureEnded) {
  if (!state.photo || !session.key) return;
  saveDraft();
  if (frontRequest) frontRequest.controller.abort();
  const request = { controller: new AbortController() };
  frontRequest = request;
  // The photo side's fields alone: a message the back cannot hold must not stop the
  // photo's previews (the front's sample does not depend on the back).
  const front = frontSpec();
  session.previewsInFlight++;
  $('busy').hidden = false;
  try {
    const response = await api('POST', '/v1/previews?side=front',
      { body: front, type: 'application/json', signal: request.controller.signal });
    if (!response.ok) {
      if (request.controller.signal.aborted) return;
      const failed = await problem(response);
      if (request.controller.signal.aborted) return;
      showProblem(failed, 'photo-error');
      session.frontFailed = front;
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
    if (gestureEnded !== undefined) session.timings.push(performance.now() - gestureEnded);
    setText('photo-error', '');
    session.shownSpec = front;
    session.frontFailed = null;
    // The tests' check that the order is what was shown; outside a secure context (a
    // phone on the dev server by its LAN address) there is no crypto.subtle: no digest.
    session.previewDigest = await sha256(blob).catch(() => null);
  } catch (error) {
    if (!(error && error.name === 'AbortError') && !request.controller.signal.aborted) {
      setText('photo-error', 'The preview could not be shown; change anything to try again.');
      session.frontFailed = front;
      if (!gestureActive()) showLive(false);
    }
  } finally {
    session.previewsInFlight--;
    if (frontRequest === request) { frontRequest = null; $('busy').hidden = true; }
  }
}

let backRequest = null; // the AbortController of the back's preview asked for
/** Asks for the back's preview once typing has paused (350 ms). */
export function previewBackSoon() {
  saveDraft();
  clearTimeout(session.backTimer);
  session.backTimer = setTimeout(previewBack, 350);
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
  session.shownBack = back;
  session.backDigest = await sha256(blob).catch(() => null);
}

/** Asks for the back's preview of the spec as it is now (or clears it: no back). */
export async function previewBack() {
  session.backTimer = null;
  const card = backCard();
  if (!state.photo || !card) {
    $('back-preview').removeAttribute('src');
    $('back-preview').hidden = true;
    setText('back-caption', 'Write a message or add a recipient to see the back.');
    setText('message-error', '');
    session.shownBack = '';
    session.backDigest = null;
    return;
  }
  const back = backSpec();
  const index = backIndex();
  if (backRequest) backRequest.abort();
  const controller = new AbortController();
  backRequest = controller;
  session.previewsInFlight++;
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
      if (shown['recipient-error'].length) session.recipientErrorFromBack = true;
      session.shownBack = back;
      return;
    }
    const blob = await response.blob();
    if (controller.signal.aborted) return;
    setText('message-error', '');
    setText('sender-error', '');
    if (session.recipientErrorFromBack) { setText('recipient-error', ''); session.recipientErrorFromBack = false; }
    await showBack(blob, back, controller.signal, index);
  } catch (error) {
    if (!(error && error.name === 'AbortError')) setText('message-error', 'The back could not be shown; change anything to try again.');
  } finally {
    session.previewsInFlight--;
    if (backRequest === controller) backRequest = null;
  }
}
