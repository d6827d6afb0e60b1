// gen-durable web console: plain ES2020, no library. It calls only the admin REST API beside it
// (../summary, ../instances, ../nodes, ../me, …) and builds its DOM with createElement (no
// innerHTML), under the page's Content-Security-Policy (no inline script or style).

const API = location.pathname.replace(/\/console(\/.*)?$/, '/');
const ENGINE_KEY = 'gendurable.console.engine';
const REFRESH_MS = 5000;
const STATUSES = ['RUNNABLE', 'EXECUTING', 'AWAITING_SIGNAL', 'AWAITING_CHILDREN', 'DONE', 'FAILED', 'CANCELLED'];
const LIVE = new Set(['RUNNABLE', 'EXECUTING', 'AWAITING_SIGNAL', 'AWAITING_CHILDREN']);
const FILTERS = ['fsm', 'fsmVersion', 'status', 'queue', 'step', 'correlationKey', 'correlationKeyPrefix',
  'concurrencyKey', 'parentId', 'insertedFrom', 'insertedTo', 'updatedFrom', 'updatedTo', 'errorContains'];

// the console keeps no credential: its sign-in is a session of the server, whose cookie scripts
// cannot read (HttpOnly); drop what a console of an older version kept in this tab
sessionStorage.removeItem('gendurable.console.auth');
let me = null;
let view = null;          // the mounted view: {update(), busy()}
let refreshPaused = false;
let timer = null;
let nodesMissing = false; // the server's admin API has no nodes endpoint
let engine = sessionStorage.getItem(ENGINE_KEY); // the engine every call names; null: the default one

// ---- DOM helpers --------------------------------------------------------------------------------

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'text') el.textContent = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, ...children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';
function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== null && v !== undefined) el.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c !== null && c !== undefined) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

const $ = (sel, root = document) => root.querySelector(sel);

// ---- formatting ---------------------------------------------------------------------------------

function fmtInstant(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (isNaN(d)) return iso;
  return d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z').replace(/Z$/, ' UTC');
}

function ago(iso) {
  if (!iso) return '';
  const secs = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
  return secs >= 0 ? fmtSeconds(secs) + ' ago' : 'in ' + fmtSeconds(-secs);
}

/** @return seconds of an ISO-8601 duration such as PT1M30.5S or P1DT2H, or null */
function durationSeconds(iso) {
  if (!iso) return null;
  const m = /^(-)?P(?:(\d+)D)?(?:T(?:(-?\d+)H)?(?:(-?\d+)M)?(?:(-?[\d.]+)S)?)?$/.exec(iso);
  if (!m) return null;
  const v = (+m[2] || 0) * 86400 + (+m[3] || 0) * 3600 + (+m[4] || 0) * 60 + (+m[5] || 0);
  return m[1] ? -v : v;
}

function fmtSeconds(secs) {
  if (secs === null || secs === undefined) return '—';
  if (secs > 0 && secs < 0.001) return '< 1 ms';
  if (secs < 1) return Math.round(secs * 1000) + ' ms';
  if (secs < 60) return (secs < 10 ? secs.toFixed(1).replace(/\.0$/, '') : Math.round(secs)) + ' s';
  if (secs < 3600) return Math.floor(secs / 60) + ' min ' + Math.round(secs % 60) + ' s';
  if (secs < 86400) return Math.floor(secs / 3600) + ' h ' + Math.round((secs % 3600) / 60) + ' min';
  return Math.floor(secs / 86400) + ' d ' + Math.round((secs % 86400) / 3600) + ' h';
}

function json(v) {
  return v === null || v === undefined ? 'null' : JSON.stringify(v, null, 2);
}

function statusBadge(status) {
  return h('span', {class: 'badge status-' + String(status).toLowerCase()}, String(status).replace('_', ' '));
}

// ---- the API ------------------------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, problem, text) {
    super(ApiError.message(status, problem, text));
    this.status = status;
    this.problem = problem;
  }

  static message(status, problem, text) {
    if (problem && problem.detail) return problem.detail;
    if (status === 401) return 'Not signed in (401): sign in again.';
    if (status === 403) return 'Refused (403): your user does not hold the gendurable-admin role.';
    if (status === 404) return 'Not found (404).';
    const plain = (text || '').replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 200);
    return 'The server answered ' + status + (plain ? ': ' + plain : '');
  }
}

async function api(path, {method = 'GET', body} = {}) {
  const headers = {'Accept': 'application/json', 'X-Requested-With': 'XMLHttpRequest'};
  // every action but DELETE carries a JSON object ({} when it has nothing to say); the server
  // refuses an action without X-Requested-With (its defence against cross-site requests)
  if (body === undefined && method !== 'GET' && method !== 'DELETE') body = '{}';
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let r;
  try {
    // the session's cookie (the console's sign-in, or the application's own) goes with every call
    if (engine && engine !== 'default') path += (path.includes('?') ? '&' : '?') + 'engine=' + encodeURIComponent(engine);
    r = await fetch(API + path, {method, headers, body, credentials: 'same-origin', cache: 'no-store'});
  } catch (e) {
    throw new ApiError(0, {detail: 'The server cannot be reached: ' + e.message}, '');
  }
  const text = await r.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch (e) {
    data = null;
  }
  if (!r.ok) throw new ApiError(r.status, data, text);
  return data;
}

/** @return the nodes answer, or null when the server's admin API has no nodes endpoint */
async function nodes() {
  if (nodesMissing) return null;
  try {
    return await api('nodes');
  } catch (e) {
    if (e.status === 404 || e.status === 405) {
      nodesMissing = true;
      return null;
    }
    throw e;
  }
}

// ---- routing ------------------------------------------------------------------------------------

function parseHash() {
  const raw = location.hash.replace(/^#\/?/, '');
  const [path, query] = raw.split('?');
  const params = new URLSearchParams(query || '');
  const parts = (path || 'queues').split('/').filter(Boolean);
  return {name: parts[0] || 'queues', arg: parts[1], params};
}

function go(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

function route() {
  if (!me) return;
  const {name, arg, params} = parseHash();
  for (const a of document.querySelectorAll('#nav a')) {
    const current = a.dataset.view === name || (name === 'instance' && a.dataset.view === 'search');
    if (current) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  const main = $('#main');
  main.replaceChildren();
  const views = {queues: queuesView, search: searchView, instance: instanceView, fsms: fsmsView};
  view = (views[name] || notFoundView)(main, arg, params);
  refresh();
}

async function refresh() {
  if (!view || !view.update) return;
  const v = view;
  try {
    await v.update();
    if (v === view) $('#updated').textContent = 'Updated ' + new Date().toLocaleTimeString();
  } catch (e) {
    if (e.status === 401) {
      signedOut('Your session ended: sign in again.');
      return;
    }
    if (v === view) showError($('#main'), e);
  }
}

function showError(where, e) {
  let box = $('#view-error', where);
  if (!box) {
    box = h('p', {id: 'view-error', class: 'error', role: 'alert'});
    where.prepend(box);
  }
  box.textContent = e.message;
}

function clearError() {
  const box = $('#view-error');
  if (box) box.remove();
}

function schedule() {
  clearInterval(timer);
  timer = refreshPaused ? null : setInterval(() => {
    if (!document.hidden && !$('#action-dialog').open && !(view && view.busy && view.busy())) refresh();
  }, REFRESH_MS);
}

function toast(text) {
  const t = $('#toast');
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, 6000);
}

// ---- sign-in ------------------------------------------------------------------------------------

async function boot() {
  $('#refresh-toggle').addEventListener('click', () => {
    refreshPaused = !refreshPaused;
    const b = $('#refresh-toggle');
    b.setAttribute('aria-pressed', String(refreshPaused));
    b.textContent = refreshPaused ? 'Resume refresh' : 'Pause refresh';
    b.setAttribute('aria-label', refreshPaused ? 'Resume auto-refresh' : 'Pause auto-refresh');
    b.classList.toggle('paused', refreshPaused);
    if (!refreshPaused) refresh();
    schedule();
  });
  $('#sign-out').addEventListener('click', signOut);
  $('#dialog-cancel').addEventListener('click', () => $('#action-dialog').close());
  window.addEventListener('hashchange', route);
  try {
    me = await api('me');
    signedIn();
  } catch (e) {
    if (e.status === 401) signInForm(null);
    else if (e.status === 403) signInForm(e.message);
    else signInForm('The console cannot reach the admin API: ' + e.message);
  }
}

function signedIn() {
  $('#nav').hidden = false;
  $('#session').hidden = false;
  replace($('#whoami'), h('span', {class: 'user'}, me.user), ' ',
    h('span', {class: 'badge role', id: 'role'}, me.admin ? 'admin' : 'viewer (read-only)'));
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
    if (engine) chooseEngine(null);
    return;
  }
  if (engine && !names.includes(engine)) chooseEngine(null);
  const select = h('select', {id: 'engine-select', 'aria-label': 'Engine', onchange: ev => {
    chooseEngine(ev.target.value);
    go('#/queues');  // ids and queues belong to one engine
  }}, names.map(n => h('option', {value: n, selected: n === (engine || 'default')}, n)));
  replace(box, h('label', {for: 'engine-select', class: 'muted'}, 'Engine'), ' ', select);
  box.hidden = false;
}

function chooseEngine(name) {
  engine = name && name !== 'default' ? name : null;
  if (engine) sessionStorage.setItem(ENGINE_KEY, engine); else sessionStorage.removeItem(ENGINE_KEY);
}

/** Ends the console's session on the server (its cookie is refused from then on), then shows the form. */
async function signOut() {
  try {
    await api('session', {method: 'DELETE'});
  } catch (e) {
    toast('Sign-out: ' + e.message);
  }
  signedOut('Signed out.');
}

function signedOut(message) {
  me = null;
  view = null;
  chooseEngine(null);
  clearInterval(timer);
  signInForm(message);
}

function signInForm(message) {
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
      me = await api('me');
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

// ---- confirmation dialog ------------------------------------------------------------------------

/**
 * Opens the dialog; on Confirm runs action(), which throws an ApiError to keep it open with the
 * API's message, or returns a text for the toast.
 */
function confirmAction(title, body, confirmLabel, action) {
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

function field(id, label, input, hint) {
  input.id = id;
  if (hint) input.setAttribute('aria-describedby', id + '-hint');
  return h('div', {class: 'field'}, h('label', {for: id}, label), input,
    hint ? h('small', {id: id + '-hint', class: 'muted'}, hint) : null);
}

// ---- charts (inline SVG) ------------------------------------------------------------------------

/** Bars per minute over the last hour: completed (and failed stacked on top). */
function throughputChart(points, label) {
  const w = 240, hgt = 48, n = 60;
  const now = Math.floor(Date.now() / 60000);
  const byMinute = new Map();
  for (const p of points) {
    const m = Math.floor(new Date(p.minute).getTime() / 60000);
    const e = byMinute.get(m) || {completed: 0, failed: 0};
    e.completed += p.completed || 0;
    e.failed += p.failed || 0;
    byMinute.set(m, e);
  }
  let max = 1, total = 0, failed = 0;
  for (const [, e] of byMinute) {
    max = Math.max(max, e.completed + e.failed);
    total += e.completed;
    failed += e.failed;
  }
  const bw = w / n;
  const bars = [];
  for (let i = 0; i < n; i++) {
    const e = byMinute.get(now - (n - 1 - i));
    if (!e) continue;
    const ch = (e.completed / max) * (hgt - 2), fh = (e.failed / max) * (hgt - 2);
    const x = (i * bw).toFixed(1);
    if (ch > 0) bars.push(s('rect', {x, y: (hgt - ch).toFixed(1), width: Math.max(bw - 1, 1).toFixed(1), height: ch.toFixed(1), class: 'bar-ok'}));
    if (fh > 0) bars.push(s('rect', {x, y: (hgt - ch - fh).toFixed(1), width: Math.max(bw - 1, 1).toFixed(1), height: fh.toFixed(1), class: 'bar-failed'}));
  }
  const text = `${label}: ${total} completed, ${failed} failed in the last hour`;
  return h('figure', {class: 'chart'},
    s('svg', {viewBox: `0 0 ${w} ${hgt}`, width: w, height: hgt, role: 'img', 'aria-label': text, preserveAspectRatio: 'none'},
      s('title', {}, text), s('line', {x1: 0, y1: hgt - 0.5, x2: w, y2: hgt - 0.5, class: 'axis'}), bars),
    h('figcaption', {}, h('strong', {}, String(total)), ' done / h', failed ? [' · ', h('strong', {class: 'bad'}, String(failed)), ' failed'] : ''));
}

/** The failure rate per minute (failed / all outcomes) over the last hour, as a line. */
function failureChart(points, label) {
  const w = 240, hgt = 48, n = 60;
  const now = Math.floor(Date.now() / 60000);
  const byMinute = new Map();
  for (const p of points) {
    const m = Math.floor(new Date(p.minute).getTime() / 60000);
    const e = byMinute.get(m) || {completed: 0, failed: 0};
    e.completed += p.completed || 0;
    e.failed += p.failed || 0;
    byMinute.set(m, e);
  }
  let all = 0, failed = 0;
  const coords = [];
  for (let i = 0; i < n; i++) {
    const e = byMinute.get(now - (n - 1 - i));
    const rate = e && e.completed + e.failed > 0 ? e.failed / (e.completed + e.failed) : 0;
    if (e) { all += e.completed + e.failed; failed += e.failed; }
    coords.push(`${(i * w / (n - 1)).toFixed(1)},${(hgt - 1 - rate * (hgt - 2)).toFixed(1)}`);
  }
  const pct = all ? (100 * failed / all) : 0;
  const text = `${label}: failure rate ${pct.toFixed(1)} % over the last hour`;
  return h('figure', {class: 'chart'},
    s('svg', {viewBox: `0 0 ${w} ${hgt}`, width: w, height: hgt, role: 'img', 'aria-label': text, preserveAspectRatio: 'none'},
      s('title', {}, text), s('line', {x1: 0, y1: hgt - 0.5, x2: w, y2: hgt - 0.5, class: 'axis'}),
      s('polyline', {points: coords.join(' '), class: pct > 0 ? 'line-failed' : 'line-ok'})),
    h('figcaption', {}, h('strong', {class: pct > 0 ? 'bad' : ''}, pct.toFixed(1) + ' %'), ' failed / h'));
}

// ---- Queues -------------------------------------------------------------------------------------

function queuesView(main) {
  const list = h('div', {id: 'queues', class: 'queue-grid'});
  const nodeNote = h('p', {id: 'node-note', class: 'muted', hidden: true});
  append(main, h('div', {class: 'view-head'}, h('h1', {}, 'Queues'),
    h('p', {class: 'muted', id: 'summary-at'})), nodeNote, list);
  return {
    async update() {
      const [summary, n] = await Promise.all([api('summary'), nodes()]);
      clearError();
      $('#summary-at').textContent = 'Counts at ' + fmtInstant(summary.at);
      const live = n ? n.nodes.filter(x => x.live) : [];
      nodeNote.hidden = !!(n && n.nodes.length);
      nodeNote.textContent = n ? 'No node has reported yet.' : 'No node data: this server\'s admin API has no nodes endpoint.';
      const alerts = summary.alerts || [];
      const names = new Set(summary.queues.map(q => q.queue));
      const lines = summary.queues.slice();
      for (const p of summary.paused || []) {
        if (!names.has(p.queue)) { lines.push({queue: p.queue, counts: {}, total: 0, paused: true}); names.add(p.queue); }
      }
      for (const a of alerts) {
        if (!names.has(a.queue)) { lines.push({queue: a.queue, counts: {}, total: 0, paused: false}); names.add(a.queue); }
      }
      for (const node of live) {
        for (const q of node.queues || []) {
          if (!names.has(q)) { lines.push({queue: q, counts: {}, total: 0, paused: false}); names.add(q); }
        }
      }
      lines.sort((a, b) => a.queue.localeCompare(b.queue));
      replace(list, lines.length ? lines.map(q => queueCard(q, summary, n, live, alerts.filter(a => a.queue === q.queue)))
        : h('p', {class: 'muted'}, 'No queue has instances yet.'));
    }
  };
}

function queueCard(q, summary, n, live, alerts) {
  const pause = (summary.paused || []).find(p => p.queue === q.queue);
  const counts = h('ul', {class: 'counts', 'aria-label': 'Instances of ' + q.queue + ' by status'},
    STATUSES.map(st => {
      const c = (q.counts || {})[st] || 0;
      return h('li', {class: 'count status-' + st.toLowerCase() + (c ? '' : ' zero'), 'data-status': st, 'data-count': c},
        h('a', {href: '#/search?' + new URLSearchParams({queue: q.queue, status: st}), 'aria-label': `${c} ${st} in ${q.queue}: search them`},
          h('span', {class: 'n'}, String(c)), h('span', {class: 'label'}, st.replace('_', ' ').toLowerCase())));
    }));
  const inFlight = live.map(node => ({node: node.node, count: (node.inFlight || {})[q.queue] || 0}))
    .filter(x => x.count > 0 || live.some(node => (node.queues || []).includes(q.queue) && node.node === x.node));
  const points = n ? n.nodes.flatMap(node => (node.throughput || []).filter(t => t.queue === q.queue)) : [];
  const actions = me.admin ? h('div', {class: 'actions'},
    pause
      ? h('button', {type: 'button', class: 'resume', 'aria-label': 'Resume queue ' + q.queue, onclick: () => resumeQueue(q.queue)}, 'Resume')
      : h('button', {type: 'button', class: 'pause', 'aria-label': 'Pause queue ' + q.queue, onclick: () => pauseQueue(q.queue)}, 'Pause'))
    : null;
  const age = q.oldestRunnableSince ? durationSeconds(q.oldestRunnableAge) : null;  // none due: no age
  return h('section', {class: 'card queue' + (pause ? ' is-paused' : '') + (alerts.length ? ' has-alert' : ''),
    id: 'queue-' + q.queue, 'data-queue': q.queue, 'aria-labelledby': 'queue-title-' + q.queue},
  h('div', {class: 'card-head'},
    h('h2', {id: 'queue-title-' + q.queue}, q.queue),
    pause ? h('span', {class: 'badge paused', title: `paused by ${pause.pausedBy || '?'} at ${fmtInstant(pause.pausedAt)}${pause.reason ? ': ' + pause.reason : ''}`}, 'paused') : null,
    alerts.map(a => h('span', {class: 'badge alert', 'data-alert': a.kind, title: a.detail, role: 'note', 'aria-label': 'Alert: ' + a.detail},
      a.kind === 'NO_NODE_SERVES' ? 'no node serves it' : a.kind === 'UNKNOWN_RATE_LIMIT' ? 'unknown rate limit' : a.kind.toLowerCase())),
    h('span', {class: 'spacer'}), actions),
  alerts.length ? h('ul', {class: 'alert-details'}, alerts.map(a => h('li', {}, a.detail))) : null,
  pause && pause.reason ? h('p', {class: 'muted pause-reason'}, 'Paused by ', pause.pausedBy || '?', ': ', pause.reason) : null,
  counts,
  h('dl', {class: 'facts'},
    h('div', {}, h('dt', {}, 'Total'), h('dd', {class: 'total'}, String(q.total || 0))),
    h('div', {}, h('dt', {}, 'Oldest runnable'), h('dd', {class: 'oldest' + (age > 60 ? ' warn' : '')}, age === null ? '—' : fmtSeconds(age))),
    h('div', {}, h('dt', {}, 'In flight'), h('dd', {class: 'in-flight'},
      !n ? h('span', {class: 'muted'}, 'no node data')
        : inFlight.length ? inFlight.map(x => h('span', {class: 'node-chip', 'data-node': x.node}, x.node, ': ', h('strong', {}, String(x.count))))
          : h('span', {class: 'muted'}, 'no live node serves it')))),
  n ? h('div', {class: 'charts'}, throughputChart(points, 'Throughput of ' + q.queue), failureChart(points, 'Failures of ' + q.queue))
    : null);
}

function pauseQueue(queue) {
  const reason = h('input', {maxlength: 500, placeholder: 'e.g. carrier down'});
  confirmAction('Pause queue ' + queue, [
    h('p', {}, 'No node claims from ', h('strong', {}, queue), ' any more (within one poll); running steps finish. The pause survives restarts.'),
    field('pause-reason', 'Reason (optional)', reason)], 'Pause queue', async () => {
    await api('queues/' + encodeURIComponent(queue) + '/pause', {method: 'PUT',
      body: JSON.stringify(reason.value.trim() ? {reason: reason.value.trim()} : {})});
    return 'Queue ' + queue + ' paused.';
  });
}

function resumeQueue(queue) {
  confirmAction('Resume queue ' + queue, h('p', {}, 'Every node claims from ', h('strong', {}, queue), ' again within one poll.'),
    'Resume queue', async () => {
      await api('queues/' + encodeURIComponent(queue) + '/pause', {method: 'DELETE'});
      return 'Queue ' + queue + ' resumed.';
    });
}

// ---- Search -------------------------------------------------------------------------------------

function searchView(main, arg, params) {
  const input = (name, attrs = {}) => h('input', Object.assign({name, value: params.get(name) || ''}, attrs));
  const chosen = new Set((params.get('status') || '').split(',').filter(Boolean));
  const statusBoxes = h('fieldset', {class: 'statuses'}, h('legend', {}, 'Status'),
    STATUSES.map(st => h('label', {class: 'check'},
      h('input', {type: 'checkbox', name: 'status', value: st, checked: chosen.has(st)}), st.replace('_', ' ').toLowerCase())));
  const order = h('select', {name: 'order'},
    h('option', {value: 'NEWEST_FIRST', selected: params.get('order') !== 'OLDEST_FIRST'}, 'newest first'),
    h('option', {value: 'OLDEST_FIRST', selected: params.get('order') === 'OLDEST_FIRST'}, 'oldest first'));
  const size = h('select', {name: 'pageSize'}, [20, 50, 100, 200].map(n =>
    h('option', {value: n, selected: String(n) === (params.get('pageSize') || '50')}, String(n))));
  const instant = '2026-12-01T00:00:00Z';
  const form = h('form', {id: 'search-form', class: 'card search-form', role: 'search', 'aria-label': 'Search instances',
    onsubmit: ev => {
      ev.preventDefault();
      const q = new URLSearchParams();
      const data = new FormData(form);
      for (const f of FILTERS) {
        if (f === 'status') continue;
        const v = String(data.get(f) || '').trim();
        if (v) q.set(f, v);
      }
      const st = data.getAll('status');
      if (st.length) q.set('status', st.join(','));
      if (data.get('order') !== 'NEWEST_FIRST') q.set('order', data.get('order'));
      if (data.get('pageSize') !== '50') q.set('pageSize', data.get('pageSize'));
      go('#/search?' + q);
    }},
  h('div', {class: 'grid'},
    field('f-fsm', 'FSM', input('fsm')),
    field('f-fsmVersion', 'FSM version', input('fsmVersion', {inputmode: 'numeric'})),
    field('f-queue', 'Queue', input('queue')),
    field('f-step', 'Step', input('step')),
    field('f-correlationKey', 'Correlation key', input('correlationKey')),
    field('f-correlationKeyPrefix', 'Correlation key prefix', input('correlationKeyPrefix')),
    field('f-concurrencyKey', 'Concurrency key', input('concurrencyKey')),
    field('f-parentId', 'Parent id', input('parentId', {inputmode: 'numeric'})),
    field('f-errorContains', 'Error contains', input('errorContains')),
    field('f-insertedFrom', 'Inserted from', input('insertedFrom', {placeholder: instant})),
    field('f-insertedTo', 'Inserted before', input('insertedTo', {placeholder: instant})),
    field('f-updatedFrom', 'Updated from', input('updatedFrom', {placeholder: instant})),
    field('f-updatedTo', 'Updated before', input('updatedTo', {placeholder: instant})),
    field('f-order', 'Order', order),
    field('f-pageSize', 'Page size', size)),
  statusBoxes,
  h('div', {class: 'form-buttons'},
    h('button', {type: 'submit', class: 'primary', id: 'search-submit'}, 'Search'),
    h('a', {href: '#/search', class: 'button ghost', id: 'search-clear'}, 'Clear'),
    h('span', {class: 'muted'}, 'The page\'s address holds the filters: share it.')));
  const results = h('div', {id: 'results'});
  append(main, h('div', {class: 'view-head'}, h('h1', {}, 'Search')), form, results);

  let sortKey = null, sortDir = 1, page = null;
  const cursorStack = (searchView.stack && searchView.stackFor === filterKey(params)) ? searchView.stack : [];
  searchView.stack = cursorStack;
  searchView.stackFor = filterKey(params);

  function render() {
    const items = page.items.slice();
    if (sortKey) {
      items.sort((a, b) => {
        const x = a[sortKey] ?? '', y = b[sortKey] ?? '';
        return (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y))) * sortDir;
      });
    }
    const newest = params.get('order') !== 'OLDEST_FIRST';
    const header = (key, label) => {
      if (key === 'id') {
        return h('th', {scope: 'col', 'aria-sort': sortKey ? 'none' : newest ? 'descending' : 'ascending'},
          h('button', {type: 'button', class: 'sort', 'aria-label': 'Sort by id, ' + (newest ? 'oldest' : 'newest') + ' first (all pages)',
            onclick: () => {
              const q = new URLSearchParams(params);
              q.delete('cursor');
              if (newest) q.set('order', 'OLDEST_FIRST'); else q.delete('order');
              go('#/search?' + q);
            }}, label, sortKey ? '' : newest ? ' ▾' : ' ▴'));
      }
      return h('th', {scope: 'col', 'aria-sort': sortKey === key ? (sortDir > 0 ? 'ascending' : 'descending') : 'none'},
        h('button', {type: 'button', class: 'sort', 'aria-label': 'Sort this page by ' + label,
          onclick: () => { sortDir = sortKey === key ? -sortDir : 1; sortKey = key; render(); }},
        label, sortKey === key ? (sortDir > 0 ? ' ▴' : ' ▾') : ''));
    };
    const table = h('table', {class: 'instances', id: 'results-table'},
      h('caption', {class: 'sr-only'}, 'Instances found'),
      h('thead', {}, h('tr', {}, header('id', 'Id'), header('fsm', 'FSM'), header('status', 'Status'),
        header('step', 'Step'), header('attempt', 'Attempt'), header('queue', 'Queue'),
        header('correlationKey', 'Correlation key'), header('updatedAt', 'Updated'))),
      h('tbody', {}, items.map(i => h('tr', {'data-id': i.id},
        h('td', {}, h('a', {href: '#/instance/' + i.id, class: 'instance-link'}, String(i.id))),
        h('td', {}, i.fsm, h('span', {class: 'muted'}, ' v' + i.fsmVersion)),
        h('td', {}, statusBadge(i.status)),
        h('td', {}, i.step), h('td', {class: 'num'}, String(i.attempt)), h('td', {}, i.queue),
        h('td', {class: 'key'}, i.correlationKey || ''),
        h('td', {title: fmtInstant(i.updatedAt)}, ago(i.updatedAt))))));
    const prev = h('button', {type: 'button', id: 'page-prev', disabled: !params.get('cursor'), onclick: () => {
      const q = new URLSearchParams(params);
      const back = cursorStack.pop();
      if (back) q.set('cursor', back); else q.delete('cursor');
      go('#/search?' + q);
    }}, '← Previous');
    const next = h('button', {type: 'button', id: 'page-next', disabled: !page.nextCursor, onclick: () => {
      const q = new URLSearchParams(params);
      cursorStack.push(params.get('cursor') || '');
      q.set('cursor', page.nextCursor);
      go('#/search?' + q);
    }}, 'Next →');
    replace(results, h('div', {class: 'card'},
      h('p', {class: 'muted', id: 'result-count'}, items.length ? `${items.length} on this page` + (page.nextCursor ? ', more on the next' : '') : 'No instance matches.'),
      items.length ? h('div', {class: 'table-wrap'}, table) : null,
      h('nav', {class: 'pager', 'aria-label': 'Pages'}, prev, next)));
  }

  return {
    async update() {
      const q = new URLSearchParams();
      for (const [k, v] of params) q.append(k, v);
      page = await api('instances' + (q.toString() ? '?' + q : ''));
      clearError();
      render();
    },
    busy() { return document.activeElement && form.contains(document.activeElement); }
  };
}

function filterKey(params) {
  const q = new URLSearchParams(params);
  q.delete('cursor');
  return q.toString();
}

// ---- Instance -----------------------------------------------------------------------------------

function instanceView(main, arg) {
  const id = arg;
  const root = h('div', {id: 'instance'});
  append(main, root);
  let shown = null;  // the answer on screen: an unchanged one is not redrawn (no flicker, focus kept)
  return {
    async update() {
      let d;
      try {
        d = await api('instances/' + encodeURIComponent(id));
      } catch (e) {
        replace(root, h('div', {class: 'view-head'}, h('h1', {}, 'Instance ' + id)), h('p', {class: 'error', role: 'alert', id: 'view-error'}, e.message));
        return;
      }
      const key = JSON.stringify(d);
      if (key !== shown) {
        shown = key;
        renderInstance(root, d);
      }
    }
  };
}

function renderInstance(root, d) {
  const i = d.instance;
  const fact = (label, value, cls) => h('div', {class: cls || null}, h('dt', {}, label), h('dd', {}, value === null || value === undefined || value === '' ? '—' : value));
  const actions = me.admin ? h('div', {class: 'actions', id: 'instance-actions', role: 'group', 'aria-label': 'Actions'},
    h('button', {type: 'button', id: 'action-retry', onclick: () => retryDialog(d)}, 'Retry…'),
    h('button', {type: 'button', id: 'action-run-now', onclick: () => runNowDialog(i)}, 'Run now…'),
    h('button', {type: 'button', id: 'action-signal', onclick: () => signalDialog(i)}, 'Send signal…'),
    h('button', {type: 'button', id: 'action-cancel', class: 'danger', onclick: () => cancelDialog(i)}, 'Cancel…')) : null;
  const childLinks = STATUSES.filter(st => (d.children || {})[st]).map(st =>
    h('a', {href: '#/search?' + new URLSearchParams({parentId: i.id, status: st}), class: 'child-count', 'data-status': st},
      statusBadge(st), ' ', String(d.children[st])));
  const sections = [
    h('div', {class: 'view-head'},
      h('h1', {}, 'Instance ', h('span', {id: 'instance-id'}, String(i.id))),
      h('span', {id: 'instance-status'}, statusBadge(i.status)),
      h('span', {class: 'spacer'}), actions),
    h('section', {class: 'card', 'aria-labelledby': 'h-overview'},
      h('h2', {id: 'h-overview'}, 'Overview'),
      h('dl', {class: 'facts wide'},
        fact('FSM', [i.fsm, h('span', {class: 'muted'}, ' version ' + i.fsmVersion)]),
        fact('Step', h('span', {id: 'instance-step'}, i.step)),
        fact('Attempt', h('span', {id: 'instance-attempt'}, String(i.attempt))),
        fact('Queue', h('a', {href: '#/search?' + new URLSearchParams({queue: i.queue})}, i.queue)),
        fact('Priority', String(i.priority)),
        fact('Correlation key', i.correlationKey ? h('a', {href: '#/search?' + new URLSearchParams({correlationKey: i.correlationKey})}, i.correlationKey) : null),
        fact('Concurrency key', i.concurrencyKey),
        fact('Eligible at', i.eligibleAt ? [fmtInstant(i.eligibleAt), h('span', {class: 'muted'}, ' (' + ago(i.eligibleAt) + ')')] : null),
        i.awaits && i.awaits.length ? fact('Awaits', [i.awaits.join(', '), i.awaitDeadline ? h('span', {class: 'muted'}, ' until ' + fmtInstant(i.awaitDeadline)) : '']) : null,
        d.claim ? fact('Claimed by', [d.claim.worker, h('span', {class: 'muted'}, ' lease until ' + fmtInstant(d.claim.leaseExpiresAt))]) : null,
        fact('Inserted', fmtInstant(i.insertedAt)),
        fact('Updated', [fmtInstant(i.updatedAt), h('span', {class: 'muted'}, ' (' + ago(i.updatedAt) + ')')]))),
    i.lastError ? h('section', {class: 'card error-card', 'aria-labelledby': 'h-error'},
      h('h2', {id: 'h-error'}, i.status === 'FAILED' ? 'Error' : i.status === 'CANCELLED' ? 'Reason' : 'Last error'),
      h('pre', {id: 'instance-error', class: 'stack', tabindex: 0}, i.lastError)) : null,
    h('div', {class: 'two'},
      h('section', {class: 'card', 'aria-labelledby': 'h-state'}, h('h2', {id: 'h-state'}, 'State'),
        h('pre', {id: 'instance-state', class: 'json', tabindex: 0}, json(i.state))),
      h('section', {class: 'card', 'aria-labelledby': 'h-result'}, h('h2', {id: 'h-result'}, 'Result'),
        h('pre', {id: 'instance-result', class: 'json', tabindex: 0}, json(i.result)))),
    h('div', {class: 'two'},
      h('section', {class: 'card', 'aria-labelledby': 'h-family'}, h('h2', {id: 'h-family'}, 'Parent and children'),
        h('dl', {class: 'facts'},
          fact('Parent', d.parent ? [h('a', {href: '#/instance/' + d.parent.id, id: 'parent-link'}, d.parent.fsm + ' ' + d.parent.id), ' ', statusBadge(d.parent.status)]
            : i.parentId ? h('a', {href: '#/instance/' + i.parentId}, String(i.parentId)) : null),
          fact('Children', d.childrenTotal ? [h('a', {href: '#/search?' + new URLSearchParams({parentId: i.id}), id: 'children-link'}, d.childrenTotal + ' in all'),
            i.childrenPending ? h('span', {class: 'muted'}, ', ' + i.childrenPending + ' pending') : ''] : '0'),
          childLinks.length ? h('div', {class: 'child-counts'}, childLinks) : null)),
      h('section', {class: 'card', 'aria-labelledby': 'h-waits'}, h('h2', {id: 'h-waits'}, 'Gate and rate limit'),
        !d.gate && !d.rateLimit ? h('p', {class: 'muted'}, 'Waits on no gate and no rate limit.') : null,
        d.gate ? h('dl', {class: 'facts', id: 'gate'},
          fact('Gate', d.gate.name + ' (' + d.gate.concurrencyKey + ')'),
          fact('In use', d.gate.configured ? `${d.gate.executing} of ${d.gate.limit} (${d.gate.available} free)` : h('span', {class: 'bad'}, 'not configured on this node'))) : null,
        d.rateLimit ? h('dl', {class: 'facts', id: 'rate-limit'},
          fact('Rate limit', d.rateLimit.name + ' (' + d.rateLimit.key + ')'),
          fact('Tokens', d.rateLimit.configured ? `${Number(d.rateLimit.available).toFixed(1)} of ${d.rateLimit.burst} (${d.rateLimit.perSecond}/s), weight ${d.rateLimit.weight}` : h('span', {class: 'bad'}, 'not configured on this node'))) : null)),
    h('section', {class: 'card', 'aria-labelledby': 'h-inbox'},
      h('h2', {id: 'h-inbox'}, 'Pending inbox ', h('span', {class: 'muted', id: 'inbox-count'}, '(' + d.pendingSignalCount + ')')),
      d.pendingSignals.length ? h('div', {class: 'table-wrap'}, h('table', {id: 'inbox'},
        h('thead', {}, h('tr', {}, h('th', {scope: 'col'}, 'Signal'), h('th', {scope: 'col'}, 'Payload'), h('th', {scope: 'col'}, 'Dedup key'), h('th', {scope: 'col'}, 'Delivered'))),
        h('tbody', {}, d.pendingSignals.map(p => h('tr', {},
          h('td', {}, p.name), h('td', {}, h('code', {}, JSON.stringify(p.payload))), h('td', {}, p.dedupKey || '—'), h('td', {}, fmtInstant(p.insertedAt)))))))
        : h('p', {class: 'muted'}, 'No pending signal.')),
    h('section', {class: 'card', 'aria-labelledby': 'h-history'}, h('h2', {id: 'h-history'}, 'Step history'), timeline(d.history || []))
  ];
  replace(root, sections);
}

function timeline(history) {
  if (!history.length) {
    return h('p', {class: 'muted'}, 'No step recorded (the step history is off for this FSM: gendurable.history.enabled or @DurableFsm(history = true)).');
  }
  const t0 = Math.min(...history.map(r => new Date(r.startedAt).getTime()));
  const t1 = Math.max(...history.map(r => new Date(r.finishedAt || r.startedAt).getTime()));
  const span = Math.max(t1 - t0, 1);
  return h('ol', {class: 'timeline', id: 'history'}, history.map(r => {
    const start = new Date(r.startedAt).getTime(), end = new Date(r.finishedAt || r.startedAt).getTime();
    const bar = h('span', {class: 'tl-bar' + (r.error ? ' failed' : '')});
    bar.style.marginLeft = (100 * (start - t0) / span).toFixed(2) + '%';
    bar.style.width = Math.max(100 * (end - start) / span, 0.8).toFixed(2) + '%';
    return h('li', {class: r.error ? 'failed' : ''},
      h('div', {class: 'tl-head'},
        h('strong', {}, r.step), h('span', {class: 'muted'}, ' attempt ' + r.attempt), ' → ',
        h('span', {class: 'outcome'}, r.outcome),
        h('span', {class: 'muted tl-meta'}, fmtInstant(r.startedAt) + ' · ' + fmtSeconds((end - start) / 1000) + (r.node ? ' · ' + r.node : ''))),
      h('div', {class: 'tl-track', 'aria-hidden': 'true'}, bar),
      r.error ? h('pre', {class: 'stack small'}, r.error) : null);
  }));
}

function instanceDone(verb) {
  return i => `${verb}: instance ${i.id} is ${i.status} at step ${i.step}.`;
}

function cancelDialog(i) {
  const reason = h('input', {maxlength: 1000, placeholder: 'cancelled by an operator'});
  const desc = h('input', {type: 'checkbox'});
  confirmAction('Cancel instance ' + i.id, [
    h('p', {}, 'It ends CANCELLED with the reason as its last error; a step running for it commits nothing.'),
    field('cancel-reason', 'Reason', reason),
    h('label', {class: 'check'}, desc, ' Also cancel its live descendants')], 'Cancel instance', async () => {
    const body = {};
    if (reason.value.trim()) body.reason = reason.value.trim();
    if (desc.checked) body.withDescendants = true;
    const r = await api('instances/' + i.id + '/cancel', {method: 'POST', body: JSON.stringify(body)});
    return instanceDone('Cancelled')(r.instance) + (r.childrenCancelled ? ` ${r.childrenCancelled} descendants cancelled.` : '');
  });
  desc.id = 'cancel-descendants';
}

function retryDialog(d) {
  const i = d.instance;
  const steps = [...new Set((d.history || []).map(r => r.step).concat([i.step]))];
  const from = h('input', {list: 'retry-steps', placeholder: i.step, autocomplete: 'off'});
  confirmAction('Retry instance ' + i.id, [
    h('p', {}, 'Runnable again, due now, attempts from 1, with its state.'),
    field('retry-from', 'From step', from, 'Empty: the step it ended in (' + i.step + ').'),
    h('datalist', {id: 'retry-steps'}, steps.map(st => h('option', {value: st})))], 'Retry', async () => {
    const body = from.value.trim() ? {fromStep: from.value.trim()} : {};
    return instanceDone('Retried')(await api('instances/' + i.id + '/retry', {method: 'POST', body: JSON.stringify(body)}));
  });
}

function runNowDialog(i) {
  confirmAction('Run instance ' + i.id + ' now', h('p', {}, 'A runnable instance becomes due now (its backoff or schedule is skipped).'),
    'Run now', async () => instanceDone('Due now')(await api('instances/' + i.id + '/run-now', {method: 'POST'})));
}

function signalDialog(i) {
  const name = h('input', {required: true, placeholder: (i.awaits && i.awaits[0]) || 'payment_settled', maxlength: 200});
  if (i.awaits && i.awaits.length) name.value = i.awaits[0];
  const payload = h('textarea', {rows: 5, spellcheck: 'false', placeholder: '{"ref": "psp-981"}'});
  const dedup = h('input', {maxlength: 200});
  confirmAction('Send a signal to instance ' + i.id, [
    field('signal-name', 'Signal name', name),
    field('signal-payload', 'Payload (JSON, optional)', payload, 'Sent as typed; the API checks it.'),
    field('signal-dedup', 'Dedup key (optional)', dedup)], 'Send signal', async () => {
    // the payload goes into the body as typed, so that the API (not the page) judges it
    let body = '{"id":' + i.id + ',"name":' + JSON.stringify(name.value.trim());
    if (payload.value.trim()) body += ',"payload":' + payload.value.trim();
    if (dedup.value.trim()) body += ',"dedupKey":' + JSON.stringify(dedup.value.trim());
    body += '}';
    const r = await api('signals', {method: 'POST', body});
    if (r.result === 'NO_TARGET') throw new ApiError(200, {detail: 'NO_TARGET: the instance is no longer live; nothing was delivered.'});
    return 'Signal ' + name.value.trim() + ': ' + r.result + '.';
  });
}

// ---- FSMs ---------------------------------------------------------------------------------------

function fsmsView(main) {
  const root = h('div', {id: 'fsms'});
  append(main, h('div', {class: 'view-head'}, h('h1', {}, 'FSMs and nodes')), root);
  return {
    async update() {
      const n = await nodes();
      clearError();
      if (!n) {
        replace(root, h('p', {class: 'muted', id: 'no-node-data'}, 'No node data: this server\'s admin API has no nodes endpoint, so the registered FSMs and step timings are not known here.'));
        return;
      }
      const fsms = new Map();
      for (const node of n.nodes) {
        for (const f of node.fsms || []) {
          const key = f.name + '\u0000' + f.version;
          const e = fsms.get(key) || Object.assign({nodes: []}, f);
          e.nodes.push(node);
          fsms.set(key, e);
        }
      }
      const rows = [...fsms.values()].sort((a, b) => a.name.localeCompare(b.name) || a.version - b.version);
      replace(root,
        h('section', {class: 'card', 'aria-labelledby': 'h-nodes'}, h('h2', {id: 'h-nodes'}, 'Nodes'),
          h('div', {class: 'table-wrap'}, h('table', {id: 'nodes-table'},
            h('thead', {}, h('tr', {}, ['Node', 'State', 'Queues', 'Rate limits', 'Gates', 'Started', 'Seen'].map(c => h('th', {scope: 'col'}, c)))),
            h('tbody', {}, n.nodes.map(node => h('tr', {'data-node': node.node},
              h('td', {}, node.node), h('td', {}, h('span', {class: 'badge ' + (node.live ? 'live' : 'gone')}, node.live ? 'live' : 'not seen')),
              h('td', {}, (node.queues || []).join(', ')), h('td', {}, (node.rateLimits || []).join(', ') || '—'),
              h('td', {}, (node.gates || []).join(', ') || '—'), h('td', {}, fmtInstant(node.startedAt)), h('td', {}, ago(node.seenAt)))))))),
        h('section', {class: 'card', 'aria-labelledby': 'h-registered'}, h('h2', {id: 'h-registered'}, 'Registered FSMs'),
          rows.length ? h('div', {class: 'table-wrap'}, h('table', {id: 'fsm-table'},
            h('thead', {}, h('tr', {}, ['FSM', 'Version', 'Kind', 'Queue', 'Nodes', ''].map(c => h('th', {scope: 'col'}, c)))),
            h('tbody', {}, rows.map(f => h('tr', {'data-fsm': f.name},
              h('td', {}, h('strong', {}, f.name)), h('td', {class: 'num'}, String(f.version)), h('td', {}, f.kind), h('td', {}, f.queue),
              h('td', {}, f.nodes.map(x => h('span', {class: 'node-chip'}, x.node))),
              h('td', {}, h('a', {href: '#/search?' + new URLSearchParams({fsm: f.name, fsmVersion: f.version})}, 'instances')))))))
            : h('p', {class: 'muted'}, 'No FSM registered on a reporting node.')),
        h('section', {class: 'card', 'aria-labelledby': 'h-schedules'}, h('h2', {id: 'h-schedules'}, 'Schedules'),
          schedulesTable(await schedules())),
        h('section', {class: 'card', 'aria-labelledby': 'h-timings'}, h('h2', {id: 'h-timings'}, 'Step durations'),
          h('p', {class: 'muted'}, 'Per node, recent window: the bar spans p50 to p90, the tick is p99, the line reaches the max.'),
          stepTimings(n.nodes)));
    }
  };
}

/** @return the recurring schedules, or null when the server's admin API has no schedules endpoint */
async function schedules() {
  try {
    return await api('schedules');
  } catch (e) {
    if (e.status === 404 || e.status === 405) return null;
    throw e;
  }
}

function schedulesTable(list) {
  if (list === null) return h('p', {class: 'muted'}, 'This server\'s admin API has no schedules endpoint.');
  if (!list.length) return h('p', {class: 'muted', id: 'no-schedules'}, 'No recurring schedule (@DurableSchedule, defineSchedule).');
  return h('div', {class: 'table-wrap'}, h('table', {id: 'schedules-table'},
    h('thead', {}, h('tr', {}, ['Schedule', 'FSM', 'Cron', 'Misfires', 'Next fire', 'Last fire', 'State', me.admin ? 'Actions' : null]
      .filter(c => c !== null).map(c => h('th', {scope: 'col'}, c)))),
    h('tbody', {}, list.map(sc => h('tr', {'data-schedule': sc.name},
      h('td', {}, h('strong', {}, sc.name), h('div', {class: 'muted'}, sc.origin === 'api' ? 'defined at run time' : 'declared')),
      h('td', {}, sc.fsm), h('td', {}, h('code', {}, sc.cron), ' ', h('span', {class: 'muted'}, sc.zone)),
      h('td', {}, sc.misfire === 'CATCH_UP' ? 'catch up ' + sc.maxCatchUp : 'skip'),
      h('td', {}, fmtInstant(sc.nextFireAt)),
      h('td', {}, sc.lastFireAt ? fmtInstant(sc.lastFireAt) : '—',
        sc.lastInstanceId ? [' ', h('a', {href: '#/instance/' + sc.lastInstanceId}, '#' + sc.lastInstanceId)] : null),
      h('td', {}, sc.paused
        ? h('span', {class: 'badge paused', title: `paused by ${sc.pausedBy || '?'}${sc.reason ? ': ' + sc.reason : ''}`}, 'paused')
        : h('span', {class: 'badge live'}, 'active'),
        sc.cannotFire ? [' ', h('span', {class: 'badge alert cannot-fire', title: sc.cannotFire}, 'cannot fire'),
          h('div', {class: 'muted'}, sc.cannotFire)] : null),
      me.admin ? h('td', {}, h('div', {class: 'actions'},
        sc.paused
          ? h('button', {type: 'button', class: 'resume', 'aria-label': 'Resume schedule ' + sc.name, onclick: () => scheduleAction(sc, 'resume')}, 'Resume')
          : h('button', {type: 'button', class: 'pause', 'aria-label': 'Pause schedule ' + sc.name, onclick: () => scheduleAction(sc, 'pause')}, 'Pause'),
        h('button', {type: 'button', class: 'trigger', 'aria-label': 'Trigger schedule ' + sc.name + ' now', onclick: () => scheduleAction(sc, 'trigger')}, 'Trigger now')))
        : null)))));
}

function scheduleAction(sc, verb) {
  const path = 'schedules/' + encodeURIComponent(sc.name) + (verb === 'trigger' ? '/trigger' : '/pause');
  const text = {
    pause: ['Pause schedule ' + sc.name, 'No fire time inserts an instance until it is resumed, on every node; missed fire times follow its misfire policy.', 'Pause schedule'],
    resume: ['Resume schedule ' + sc.name, 'Its next fire times insert instances again.', 'Resume schedule'],
    trigger: ['Trigger schedule ' + sc.name, 'Inserts one instance of ' + sc.fsm + ' now; the next fire time does not move.', 'Trigger now']
  }[verb];
  confirmAction(text[0], h('p', {}, text[1]), text[2], async () => {
    const answer = await api(path, {method: verb === 'pause' ? 'PUT' : verb === 'resume' ? 'DELETE' : 'POST',
      body: verb === 'pause' ? '{}' : undefined});
    return verb === 'trigger' ? 'Instance ' + answer.id + ' inserted.' : 'Schedule ' + sc.name + (verb === 'pause' ? ' paused.' : ' resumed.');
  });
}

function stepTimings(nodeList) {
  const rows = [];
  for (const node of nodeList) {
    for (const t of node.stepTimings || []) rows.push(Object.assign({node: node.node}, t));
  }
  if (!rows.length) return h('p', {class: 'muted'}, 'No step has run recently.');
  rows.sort((a, b) => a.fsm.localeCompare(b.fsm) || a.step.localeCompare(b.step) || a.node.localeCompare(b.node));
  const max = Math.max(...rows.map(r => durationSeconds(r.max) || durationSeconds(r.p99) || 0), 0.001);
  const w = 320, rowH = 26, labelW = 0;
  const x = v => labelW + (w - labelW) * Math.sqrt(v / max);  // square-root scale: fast and slow steps both visible
  return h('div', {class: 'table-wrap'}, h('table', {id: 'timings'},
    h('thead', {}, h('tr', {}, ['FSM', 'Step', 'Node', 'Runs', 'p50', 'p90', 'p99', 'Max', 'Distribution'].map(c => h('th', {scope: 'col'}, c)))),
    h('tbody', {}, rows.map(r => {
      const p50 = durationSeconds(r.p50) || 0, p90 = durationSeconds(r.p90) || 0, p99 = durationSeconds(r.p99) || 0, mx = durationSeconds(r.max) || 0;
      const label = `${r.fsm} ${r.step}: p50 ${fmtSeconds(p50)}, p90 ${fmtSeconds(p90)}, p99 ${fmtSeconds(p99)}, max ${fmtSeconds(mx)}`;
      return h('tr', {'data-step': r.fsm + '/' + r.step},
        h('td', {}, r.fsm), h('td', {}, r.step), h('td', {}, r.node), h('td', {class: 'num'}, String(r.count)),
        h('td', {class: 'num'}, fmtSeconds(p50)), h('td', {class: 'num'}, fmtSeconds(p90)), h('td', {class: 'num'}, fmtSeconds(p99)), h('td', {class: 'num'}, fmtSeconds(mx)),
        h('td', {}, s('svg', {viewBox: `0 0 ${w} ${rowH}`, width: w, height: rowH, role: 'img', 'aria-label': label, class: 'dist'},
          s('title', {}, label),
          s('line', {x1: x(p50), x2: x(mx), y1: rowH / 2, y2: rowH / 2, class: 'whisker'}),
          s('rect', {x: x(p50), y: 6, width: Math.max(x(p90) - x(p50), 2), height: rowH - 12, rx: 2, class: 'iqr'}),
          s('line', {x1: x(p99), x2: x(p99), y1: 4, y2: rowH - 4, class: 'p99'}))));
    }))));
}

function notFoundView(main) {
  append(main, h('h1', {}, 'No such view'), h('p', {}, h('a', {href: '#/queues'}, 'Back to the queues')));
  return {};
}

boot();
