// The console's shell: sign-in, what the key's role may do, navigation and the hash router.
import { h, clear, toast } from './dom.js';
import { apiKey, setApiKey, get, ApiError } from './api.js';
import { escalationsPage } from './escalations.js';
import { authorizationsPage, authorizationPage } from './authorizations.js';
import { receiptsPage, receiptPage } from './receipts.js';
import { verifyPage } from './verification.js';
import { keysPage } from './keys.js';
import { webhooksPage } from './webhooks.js';

/**
 * What each role may do, as decisions.md §15 and §20 grant it; the console offers nothing else.
 * The server enforces the same table: a control hidden here would answer 403 anyway.
 */
export const ROLE_CAN = {
  full: { escalations: true, resolve: true, revoke: true, webhooks: true },
  app: { escalations: true, resolve: false, revoke: true, webhooks: true },
  approver: { escalations: true, resolve: true, revoke: false, webhooks: false },
  auditor: { escalations: true, resolve: false, revoke: false, webhooks: false },
  agent: { escalations: false, resolve: false, revoke: false, webhooks: false },
  tool_server: { escalations: false, resolve: false, revoke: false, webhooks: false }
};

const PAGES = [
  { path: 'escalations', label: 'Escalations', when: (can) => can.escalations },
  { path: 'authorizations', label: 'Authorizations' },
  { path: 'receipts', label: 'Receipts' },
  { path: 'verify', label: 'Verify' },
  { path: 'keys', label: 'Keys' },
  { path: 'webhooks', label: 'Webhooks', when: (can) => can.webhooks }
];

/** The signed-in key: {key_id, workspace_id, role, name, approver_id, ...} and its permissions. */
export const session = { me: null, can: null };

let cleanup = [];

/** Registers a function to run when the page is left (timers, listeners). */
export function onLeave(fn) {
  cleanup.push(fn);
}

function main() {
  return document.getElementById('main');
}

async function signIn(key) {
  const me = await get('/v1/api-keys/current', undefined, key);
  return me;
}

function renderSignIn(message) {
  document.getElementById('nav').hidden = true;
  clear(document.getElementById('who'));
  const input = h('input', { id: 'api-key', type: 'password', autocomplete: 'off', spellcheck: 'false', required: true, placeholder: 'sk_…', class: 'grow' });
  const error = h('p', { id: 'signin-error', class: 'problems', role: 'alert' }, message || '');
  const form = h('form', {
    class: 'card', id: 'signin', 'aria-labelledby': 'signin-title',
    onsubmit: async (e) => {
      e.preventDefault();
      error.textContent = '';
      const key = input.value.trim();
      try {
        setApiKey(key);
        await start();
      } catch (err) {
        setApiKey(null);
        error.textContent = err instanceof ApiError && err.status === 401
          ? 'This API key is unknown, revoked or expired.'
          : 'Sign-in failed: ' + err.message;
        input.focus();
      }
    }
  },
  h('h1', { id: 'signin-title' }, 'Sign in'),
  h('p', { class: 'muted' }, 'Paste an API key. It is kept in this tab only (sessionStorage) and sent only to this server\'s /v1 API.'),
  h('div', { class: 'row' }, h('label', { for: 'api-key', class: 'grow' }, 'API key', input), h('button', { type: 'submit', id: 'signin-button' }, 'Sign in')),
  error,
  h('p', { class: 'muted' }, 'Auditors can also verify exported receipts without signing in: ', h('a', { href: 'offline.html' }, 'offline verifier'), '.'));
  clear(main()).append(form);
  input.focus();
}

function renderChrome() {
  const me = session.me;
  const nav = clear(document.getElementById('nav'));
  for (const page of PAGES) {
    if (page.when && !page.when(session.can)) continue;
    nav.append(h('a', { href: '#/' + page.path, id: 'nav-' + page.path }, page.label));
  }
  nav.hidden = false;
  clear(document.getElementById('who')).append(...[
    h('span', { id: 'who-workspace' }, me.workspace_id),
    h('span', { class: 'badge', id: 'who-role' }, me.role),
    me.approver_id ? h('span', { id: 'who-approver', title: 'approver id' }, 'as ' + me.approver_id) : null,
    me.name ? h('span', { class: 'muted' }, me.name) : null,
    h('button', { class: 'secondary', id: 'signout', onclick: signOut }, 'Sign out')
  ].filter(Boolean));
}

function signOut() {
  setApiKey(null);
  session.me = null;
  session.can = null;
  location.hash = '';
  renderSignIn();
}

function defaultPage() {
  return session.can.escalations ? 'escalations' : 'authorizations';
}

async function route() {
  cleanup.forEach((fn) => fn());
  cleanup = [];
  if (!session.me) return;
  const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  const page = parts[0] || defaultPage();
  const id = parts[1];
  for (const a of document.querySelectorAll('#nav a')) {
    if (a.getAttribute('href') === '#/' + page) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const el = clear(main());
  const allowed = PAGES.find((p) => p.path === page);
  try {
    if (!allowed || (allowed.when && !allowed.when(session.can))) {
      el.append(h('div', { class: 'card' }, h('h1', {}, 'Not available'), h('p', {}, 'A ' + session.me.role + ' key cannot open this page.')));
    } else if (page === 'escalations') await escalationsPage(el, id);
    else if (page === 'authorizations') await (id ? authorizationPage(el, id) : authorizationsPage(el));
    else if (page === 'receipts') await (id ? receiptPage(el, id) : receiptsPage(el));
    else if (page === 'verify') await verifyPage(el);
    else if (page === 'keys') await keysPage(el);
    else if (page === 'webhooks') await webhooksPage(el);
  } catch (err) {
    showError(el, err);
  }
  document.body.dataset.page = page;
}

export function showError(el, err) {
  if (err instanceof ApiError && err.status === 401) {
    signOut();
    toast('Your API key is no longer accepted; sign in again.', true);
    return;
  }
  el.append(h('div', { class: 'card problems', role: 'alert' }, err instanceof ApiError ? err.status + ' ' + (err.code || '') + ': ' + err.message : String(err)));
}

async function start() {
  const me = await signIn();
  session.me = me;
  session.can = ROLE_CAN[me.role] || ROLE_CAN.agent;
  renderChrome();
  await route();
}

window.addEventListener('hashchange', route);
if (apiKey()) {
  start().catch((err) => {
    setApiKey(null);
    renderSignIn(err instanceof ApiError && err.status === 401 ? 'Your API key is no longer accepted; sign in again.' : String(err.message || err));
  });
} else {
  renderSignIn();
}
