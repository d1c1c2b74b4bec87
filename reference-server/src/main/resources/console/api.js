// The console's only server access: the public /v1 API with the API key kept in sessionStorage
// (gone when the tab closes; never a cookie, never localStorage).

const KEY = 'agentauth.apiKey';

export class ApiError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || 'HTTP ' + status);
    this.status = status;
    this.problem = problem || {};
    this.code = this.problem.code || null;
  }
}

export function apiKey() {
  return sessionStorage.getItem(KEY);
}

export function setApiKey(key) {
  if (key) sessionStorage.setItem(KEY, key);
  else sessionStorage.removeItem(KEY);
}

function url(path, query) {
  const u = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query || {})) {
    if (v !== undefined && v !== null && v !== '') u.searchParams.set(k, v);
  }
  return u.pathname + u.search;
}

/** Sends a request; returns {status, text, json} or throws ApiError for a non-2xx answer. */
export async function request(method, path, opts) {
  opts = opts || {};
  const headers = { Accept: 'application/json' };
  const key = opts.key || apiKey();
  if (key && !opts.anonymous) headers.Authorization = 'Bearer ' + key;
  let body;
  if (opts.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  const res = await fetch(url(path, opts.query), { method, headers, body, credentials: 'omit', cache: 'no-store' });
  const text = await res.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch (e) {
    json = null;
  }
  if (!res.ok) throw new ApiError(res.status, json);
  return { status: res.status, text, json };
}

export async function get(path, query) {
  return (await request('GET', path, { query })).json;
}

export async function post(path, body, query) {
  return (await request('POST', path, { body, query })).json;
}

export async function del(path) {
  return (await request('DELETE', path)).json;
}

export function enc(id) {
  return encodeURIComponent(id);
}
