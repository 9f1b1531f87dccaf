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
//
// This module is the entry (`<script type="module">`, no build step: the browser loads the
// others by their `import`s): it signs in, starts the page and gives `window.studio`. The
// others, by concern: state.js (the choices, the shared values, the spec), api.js (requests
// with the key, words for refused fields), stage.js (the card on screen, the moving copy, the
// photo), previews.js, gestures.js, form.js (frames to sender, the draft), order.js. Some
// import each other (stage, previews, gestures): they call each other's functions only once
// the page runs, never while the modules load, so the order they load in does not matter.

import { $, backCard, backIndex, backSpec, connection, frontSpec, keyName, session, setText, spec, state } from './state.js';
import { api, cleanDetail, problem } from './api.js';
import { dropLive, liveFromService, liveReady, place } from './stage.js';
import { gestureActive, setUpGestures } from './gestures.js';
import { loadFrames, restoreDraft, setUpFields } from './form.js';

const longTasks = []; // the main thread's long tasks (over 50 ms), for the tests

/** Shows the studio with the draft, the frames and the photo (the address's, or the draft's). */
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
      await Promise.all([place(true), liveFromService(state.photo, session.liveToken)]);
    } else {
      setText('photo-error', `The photo in the address cannot be used: ${cleanDetail((await problem(response)).detail)}`);
    }
  } else if (state.photo) {
    // After a reload the file is gone: the moving copy comes from the service.
    dropLive();
    await Promise.all([place(false), liveFromService(state.photo, session.liveToken)]);
  }
  await frames;
}

/** Takes the key (the address's or the tab's), listens to the page, and starts or asks for the key. */
function boot() {
  // The key arrives in the fragment (never sent to the server), is kept for this tab
  // only, and leaves the address bar at once.
  const match = location.hash.match(/(?:^#|&)key=([^&]+)/);
  const photo = location.hash.match(/(?:^#|&)photo=([0-9a-f]{64})(?:&|$)/);
  if (match) sessionStorage.setItem(keyName, decodeURIComponent(match[1]));
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  session.key = sessionStorage.getItem(keyName);
  $('signin').addEventListener('submit', (event) => {
    event.preventDefault();
    session.key = $('key').value.trim();
    if (!session.key) return;
    sessionStorage.setItem(keyName, session.key);
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
  if (session.key) start(photo && photo[1]); else $('signin').hidden = false;
}

window.studio = Object.freeze({
  /** The spec the page would send (numbers always). */
  spec: () => spec(),
  /** The ordered card as the service last answered (the first, for several recipients). */
  card: () => (session.cards.length ? JSON.parse(JSON.stringify(session.cards[0])) : null),
  /** Every ordered card. */
  cards: () => JSON.parse(JSON.stringify(session.cards)),
  /** Milliseconds from the end of each gesture to its preview on screen. */
  timings: () => session.timings.slice(),
  /** Long tasks (over 50 ms) seen on the main thread. */
  longTasks: () => longTasks.slice(),
  /** SHA-256 (hex) of the preview on screen. */
  previewDigest: () => session.previewDigest,
  /** The back's preview on screen: whose it is (an index in the spec's recipients, or null) and its SHA-256. */
  back: () => ({ recipient: backIndex() >= 0 ? backIndex() : null, digest: session.backDigest, spec: backCard() }),
  /** The moving copy: where it came from ('browser' or 'service') and its size, or null. */
  liveCopy: () => (liveReady()
    ? { source: session.live.source, width: session.live.width, height: session.live.height } : null),
  /** Why the photo was placed where it started. */
  placement: () => session.reason,
  /** True when the preview on screen is the spec's and nothing is loading. */
  settled: () => session.previewsInFlight === 0 && !gestureActive() && session.backTimer === null
    && session.shownSpec === frontSpec() && session.shownBack === backSpec() && session.previewDigest !== null,
});
boot();
