// Signing in and out: the console keeps no credential; its sign-in is a session of the server
// (POST/DELETE ../session), whose cookie is HttpOnly.

import {$, h, replace, toast} from './dom.js';
import {api, chooseEngine, currentEngine, me, setMe} from './api.js';
import {go, route, schedule, stop} from './router.js';

export function signedIn() {
  $('#nav').hidden = false;
  $('#session').hidden = false;
  replace($('#whoami'), h('span', {class: 'user'}, me().user), ' ',
    h('span', {class: 'badge role', id: 'role'}, me().admin ? 'admin' : 'viewer (read-only)'));
  schedule();
  engines().finally(route);
}

/** Shows the engine selector when the application runs more than one engine. */
async function engines() {
  let names = [];
  try {
    names = (await api('engines')).engines || [];
  } catch (e) {
    names = [];  // an admin API without the engines endpoint: the default engine only
  }
  const box = $('#engine-box');
  if (names.length < 2) {
    box.hidden = true;
    if (currentEngine()) chooseEngine(null);
    return;
  }
  if (currentEngine() && !names.includes(currentEngine())) chooseEngine(null);
  const select = h('select', {id: 'engine-select', 'aria-label': 'Engine', onchange: ev => {
    chooseEngine(ev.target.value);
    go('#/queues');  // ids and queues belong to one engine
  }}, names.map(n => h('option', {value: n, selected: n === (currentEngine() || 'default')}, n)));
  replace(box, h('label', {for: 'engine-select', class: 'muted'}, 'Engine'), ' ', select);
  box.hidden = false;
}

/** Ends the console's session on the server (its cookie is refused from then on), then shows the form. */
export async function signOut() {
  try {
    await api('session', {method: 'DELETE'});
  } catch (e) {
    toast('Sign-out: ' + e.message);
  }
  signedOut('Signed out.');
}

export function signedOut(message) {
  setMe(null);
  stop();
  chooseEngine(null);
  signInForm(message);
}

export function signInForm(message) {
  $('#nav').hidden = true;
  $('#session').hidden = true;
  const error = h('p', {id: 'sign-in-error', class: 'error', role: 'alert', hidden: !message}, message || '');
  const user = h('input', {id: 'sign-in-user', name: 'username', autocomplete: 'username', required: true});
  const password = h('input', {id: 'sign-in-password', name: 'password', type: 'password',
    autocomplete: 'current-password', required: true});
  const form = h('form', {id: 'sign-in', class: 'card sign-in', onsubmit: async ev => {
    ev.preventDefault();
    // the password goes to the server once, and is kept nowhere: the server keeps the sign-in in
    // its session, whose cookie (HttpOnly) no script can read
    const body = JSON.stringify({user: user.value, password: password.value});
    password.value = '';
    try {
      await api('session', {method: 'POST', body});
    } catch (e) {
      error.hidden = false;
      error.textContent = e.status === 401 ? 'Wrong user name or password.' : e.message;
      return;
    }
    try {
      setMe(await api('me'));
      signedIn();
    } catch (e) {
      error.hidden = false;
      // signed in, but the session's cookie did not come back: it is Secure, and this page is
      // plain HTTP on a host other than localhost
      error.textContent = e.status === 401 && location.protocol !== 'https:'
        ? 'Signed in, but the browser did not keep the session cookie, which the server marks Secure: '
          + 'open the console over HTTPS.'
        : e.message;
    }
  }},
  h('h1', {}, 'Sign in'),
  h('p', {class: 'muted'}, 'A user holding gendurable-viewer (reads) or gendurable-admin (reads and actions).'),
  error,
  h('label', {for: 'sign-in-user'}, 'User name'), user,
  h('label', {for: 'sign-in-password'}, 'Password'), password,
  h('button', {type: 'submit', class: 'primary', id: 'sign-in-submit'}, 'Sign in'));
  replace($('#main'), form);
  user.focus();
}
