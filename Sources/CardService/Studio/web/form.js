// The form: the frames, the effect and its strength, the card size, the message, the
// recipients (each checked on the card's back before it is added), the sender, and the
// draft kept in the tab's session storage and restored after a reload.

import { $, backIndex, draftName, recipientFields, saveDraft, senderFields, session, setText, spec, state } from './state.js';
import { addressLabels, api, cleanDetail, problem, showProblem } from './api.js';
import { choosePhoto, place, setTransform } from './stage.js';
import { previewBack, previewBackSoon, previewFront } from './previews.js';
import { order } from './order.js';

/** Lists the frames to choose from, with their thumbnails. */
export async function loadFrames() {
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

/** The recipients added, each with its Show back and Remove buttons. */
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
      session.recipientErrorFromBack = false;
      return;
    }
    state.recipients.push(recipient);
    state.backRecipient = state.recipients.length - 1;
    state.recipientDraft = {};
    for (const field of recipientFields) $(`r-${field}`).value = '';
    renderRecipients();
    clearTimeout(session.backTimer);
    saveDraft();
    await previewBack();
  } finally {
    adding = false;
  }
}

/** Listens to the photo input, the effect, size, message, recipient and sender fields, and the order button. */
export function setUpFields() {
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

/** Puts the draft this tab kept (a reload) back into the state and the fields. */
export function restoreDraft() {
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
