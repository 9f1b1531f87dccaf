// The API client: requests to the service with the key (retried while the service is busy
// or out of reach), its problem answers, signing out when it refuses the key, and the words
// for people that say which field a refusal is about, shown at that field.

import { $, connection, delay, keyName, session, setText } from './state.js';

/** The service's answer to a failed request: its problem's detail, with each field's. */
export async function problem(response) {
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
export async function api(method, path, { body, type, headers = {}, signal } = {}) {
  let wait = 400;
  for (;;) {
    let response = null;
    try {
      const all = Object.assign({ Authorization: `Bearer ${session.key}` }, headers);
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

/** Forgets the key and asks for it again, saying why. */
function signOut(message) {
  sessionStorage.removeItem(keyName);
  session.key = null;
  $('studio').hidden = true;
  $('signin').hidden = false;
  connection(message);
}

// ---- Words for people ----------------------------------------------------------------
//
// The service names a refused value by its path in the spec (`recipients[1].name`), for
// programs; the page says which field that is, as its label reads ("Recipient 2, name"),
// and shows it at the field.

export const addressLabels = {
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
export function cleanDetail(detail) {
  return String(detail || '')
    .replace(/^The spec is refused: (?:spec: )?(?:[\w.[\]]+: )?/, '')
    .replace(/^(?:recipient \d+|the sender)(?:, [^:]*)?: /i, '')
    .trim();
}

/**
 * Shows a refusal at the fields it names, in words for people; a refusal naming no field
 * goes to `fallback`. Returns the lines shown, by where.
 */
export function showProblem(failed, fallback, recipientIndex) {
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
