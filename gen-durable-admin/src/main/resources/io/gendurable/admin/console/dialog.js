// The confirmation dialog of every action, and the form fields in it.

import {$, h, replace, toast} from './dom.js';
import {refresh} from './router.js';

/**
 * Opens the dialog; on Confirm runs action(), which throws an ApiError to keep it open with the
 * API's message, or returns a text for the toast.
 */
export function confirmAction(title, body, confirmLabel, action) {
  const dialog = $('#action-dialog');
  $('#dialog-title').textContent = title;
  replace($('#dialog-body'), body);
  const error = $('#dialog-error');
  error.hidden = true;
  error.textContent = '';
  const confirm = $('#dialog-confirm');
  confirm.textContent = confirmLabel;
  confirm.disabled = false;
  $('#dialog-form').onsubmit = async ev => {
    ev.preventDefault();
    confirm.disabled = true;
    try {
      const done = await action();
      dialog.close();
      if (done) toast(done);
      refresh();
    } catch (e) {
      error.hidden = false;
      error.textContent = e.message;
    } finally {
      confirm.disabled = false;
    }
  };
  dialog.showModal();
  const first = $('#dialog-body input, #dialog-body textarea, #dialog-body select');
  (first || confirm).focus();
}

export function field(id, label, input, hint) {
  input.id = id;
  if (hint) input.setAttribute('aria-describedby', id + '-hint');
  return h('div', {class: 'field'}, h('label', {for: id}, label), input,
    hint ? h('small', {id: id + '-hint', class: 'muted'}, hint) : null);
}
