// The router: #/<view>/<arg>?<params> mounts one view, which refreshes every few seconds.

import {$, showError} from './dom.js';
import {me} from './api.js';

const REFRESH_MS = 5000;
let views = {};           // name → function(main, arg, params) returning the view
let notFound = null;      // the view of an unknown name
let sessionEnded = null;  // called with a message when a call answers 401
let view = null;          // the mounted view: {update(), busy()}
let refreshPaused = false;
let timer = null;

/** Sets the views, the view of an unknown name and what a 401 of a refresh calls. */
export function configure(config) {
  views = config.views;
  notFound = config.notFound;
  sessionEnded = config.sessionEnded;
}

function parseHash() {
  const raw = location.hash.replace(/^#\/?/, '');
  const [path, query] = raw.split('?');
  const params = new URLSearchParams(query || '');
  const parts = (path || 'queues').split('/').filter(Boolean);
  return {name: parts[0] || 'queues', arg: parts[1], params};
}

export function go(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

export function route() {
  if (!me()) return;
  const {name, arg, params} = parseHash();
  for (const a of document.querySelectorAll('#nav a')) {
    const current = a.dataset.view === name || (name === 'instance' && a.dataset.view === 'search');
    if (current) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  const main = $('#main');
  main.replaceChildren();
  // own names only: 'toString', 'constructor' or '__proto__' are not views
  view = (Object.hasOwn(views, name) ? views[name] : notFound)(main, arg, params);
  refresh();
}

export async function refresh() {
  if (!view || !view.update) return;
  const v = view;
  try {
    await v.update();
    if (v === view) $('#updated').textContent = 'Updated ' + new Date().toLocaleTimeString();
  } catch (e) {
    if (e.status === 401) {
      sessionEnded('Your session ended: sign in again.');
      return;
    }
    if (v === view) showError($('#main'), e);
  }
}

export function schedule() {
  clearInterval(timer);
  timer = refreshPaused ? null : setInterval(() => {
    if (!document.hidden && !$('#action-dialog').open && !(view && view.busy && view.busy())) refresh();
  }, REFRESH_MS);
}

export function refreshIsPaused() {
  return refreshPaused;
}

/** Pauses the refresh, or resumes it (refreshing at once). */
export function pauseRefresh(paused) {
  refreshPaused = paused;
  if (!refreshPaused) refresh();
  schedule();
}

/** Unmounts the view and stops its refresh (signed out). */
export function stop() {
  view = null;
  clearInterval(timer);
}
