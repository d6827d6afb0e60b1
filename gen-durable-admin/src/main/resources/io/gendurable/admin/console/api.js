// The admin REST API beside the console (../summary, ../instances, …): every call sends
// X-Requested-With and the session's cookie, and names the chosen engine.

const API = location.pathname.replace(/\/console(\/.*)?$/, '/');
const ENGINE_KEY = 'gendurable.console.engine';

// the console keeps no credential: its sign-in is a session of the server, whose cookie scripts
// cannot read (HttpOnly); drop what a console of an older version kept in this tab
sessionStorage.removeItem('gendurable.console.auth');
let user = null;          // the answer of GET me while signed in
let nodesMissing = false; // the server's admin API has no nodes endpoint
let engine = sessionStorage.getItem(ENGINE_KEY); // the engine every call names; null: the default one

/** @return who is signed in (GET me's answer: user, admin), or null */
export function me() {
  return user;
}

export function setMe(answer) {
  user = answer;
}

/** @return the engine every call names; null: the default one */
export function currentEngine() {
  return engine;
}

export function chooseEngine(name) {
  engine = name && name !== 'default' ? name : null;
  if (engine) sessionStorage.setItem(ENGINE_KEY, engine); else sessionStorage.removeItem(ENGINE_KEY);
}

export class ApiError extends Error {
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

export async function api(path, {method = 'GET', body} = {}) {
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
export async function nodes() {
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
