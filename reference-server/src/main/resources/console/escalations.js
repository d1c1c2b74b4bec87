// Page 1: the escalations inbox. Pending first (soonest expiry first), then recent decisions;
// approve or reject with a note; refreshes every 5 s while open; #/escalations/{id} opens one.
import { h, clear, badge, kv, code, time, relative, toast } from './dom.js';
import { get, post, enc, ApiError } from './api.js';
import { session, onLeave, showError } from './app.js';

const REFRESH_MS = 5000;
const authorizations = new Map(); // authorization_id -> Promise<authorization>

function authorization(id) {
  if (!authorizations.has(id)) {
    const p = get('/v1/authorizations/' + enc(id)).catch(() => null);
    authorizations.set(id, p);
  }
  return authorizations.get(id);
}

async function load(focusId) {
  const [pending, recent] = await Promise.all([
    get('/v1/escalations', { status: 'pending', limit: 100 }),
    get('/v1/escalations', { limit: 100 })
  ]);
  const byId = new Map();
  for (const e of pending.escalations.concat(recent.escalations)) byId.set(e.escalation_id, e);
  if (focusId && !byId.has(focusId)) {
    byId.set(focusId, await get('/v1/escalations/' + enc(focusId)));
  }
  const all = Array.from(byId.values());
  const open = all.filter((e) => e.status === 'pending').sort((a, b) => a.expires_at.localeCompare(b.expires_at));
  const done = all.filter((e) => e.status !== 'pending').sort((a, b) => (b.resolved_at || b.created_at).localeCompare(a.resolved_at || a.created_at));
  return { open, done };
}

function signature(state) {
  return state.open.concat(state.done).map((e) => e.escalation_id + ':' + e.status).join(',');
}

export async function escalationsPage(el, focusId) {
  const list = h('div', { class: 'esc-list', id: 'escalations' });
  const status = h('p', { class: 'muted', id: 'esc-refreshed', 'aria-live': 'off' });
  el.append(h('h1', {}, 'Escalations'),
    h('p', { class: 'muted' }, session.can.resolve
      ? 'Decide on actions that need a person. ' + (session.me.approver_id ? 'You resolve as ' + session.me.approver_id + '.' : 'A full key names who resolves.')
      : 'Read only: a ' + session.me.role + ' key cannot resolve escalations.'),
    status, list);
  let last = null;
  const notes = new Map();
  async function refresh(first) {
    let state;
    try {
      state = await load(first ? focusId : null);
    } catch (err) {
      if (first) throw err;
      status.textContent = 'Refresh failed: ' + err.message;
      return;
    }
    status.textContent = 'Updated ' + new Date().toLocaleTimeString() + ' · refreshes every 5 s';
    const sig = signature(state);
    if (sig === last) return;
    last = sig;
    for (const t of list.querySelectorAll('textarea[data-esc]')) notes.set(t.dataset.esc, t.value);
    clear(list);
    list.append(h('h2', {}, 'Pending (' + state.open.length + ')'));
    if (state.open.length === 0) list.append(h('p', { class: 'muted card' }, 'No escalation is waiting.'));
    state.open.forEach((e) => list.append(card(e, focusId, notes, () => { last = null; refresh(false); })));
    list.append(h('h2', {}, 'Decided or expired'));
    if (state.done.length === 0) list.append(h('p', { class: 'muted' }, 'None yet.'));
    state.done.forEach((e) => list.append(card(e, focusId, notes)));
    if (first && focusId) {
      const target = document.getElementById('esc-' + focusId);
      if (target) {
        target.scrollIntoView({ block: 'center' });
        target.focus();
      }
    }
  }
  await refresh(true);
  const timer = setInterval(() => refresh(false), REFRESH_MS);
  onLeave(() => clearInterval(timer));
}

function card(e, focusId, notes, onResolved) {
  const pending = e.status === 'pending';
  const who = h('span', {}, '…');
  const agent = h('span', {}, '…');
  authorization(e.authorization_id).then((a) => {
    who.replaceChildren(a ? code(a.user_id) : '—');
    agent.replaceChildren(a ? code(a.agent_id) : '—');
  });
  const section = h('section', {
    class: 'card esc' + (pending ? ' is-pending' : '') + (e.escalation_id === focusId ? ' is-focused' : ''),
    id: 'esc-' + e.escalation_id, tabindex: '-1', 'aria-labelledby': 'esc-title-' + e.escalation_id,
    dataset: { status: e.status }
  },
  h('header', {},
    h('h3', { id: 'esc-title-' + e.escalation_id }, code(e.scope), ' on ', e.resource ? code(e.resource) : h('span', { class: 'muted' }, 'no resource')),
    badge(e.status)),
  kv([
    ['User', who],
    ['Agent', agent],
    ['Scope', code(e.scope)],
    ['Resource', e.resource ? code(e.resource) : null],
    ['Escalated to', e.escalation_to],
    ['Requested', time(e.created_at)],
    [pending ? 'Expires' : 'Expired/expires', h('span', {}, time(e.expires_at), pending ? ' (' + relative(e.expires_at) + ')' : '')],
    ['Authorization', h('a', { href: '#/authorizations/' + enc(e.authorization_id) }, code(e.authorization_id))],
    ['Escalation', h('a', { href: '#/escalations/' + enc(e.escalation_id) }, code(e.escalation_id))],
    e.resolved_by ? ['Resolved by', code(e.resolved_by)] : null,
    e.resolved_at ? ['Resolved', time(e.resolved_at)] : null,
    e.note ? ['Note', e.note] : null
  ].filter(Boolean)));
  if (pending && session.can.resolve) section.append(resolveForm(e, notes, onResolved));
  return section;
}

function resolveForm(e, notes, onResolved) {
  const id = e.escalation_id;
  const note = h('textarea', { id: 'note-' + id, maxlength: 1000, dataset: { esc: id } });
  note.value = notes.get(id) || '';
  const needsName = !session.me.approver_id;
  const by = needsName ? h('input', { id: 'by-' + id, required: true, autocomplete: 'off', placeholder: 'approver id' }) : null;
  const out = h('p', { role: 'status', class: 'problems' });
  async function resolve(resolution) {
    if (by && !by.value.trim()) {
      out.textContent = 'Name who resolves: a full key must send resolved_by.';
      by.focus();
      return;
    }
    buttons.forEach((b) => { b.disabled = true; });
    try {
      const body = { resolution };
      if (note.value.trim()) body.note = note.value.trim();
      if (by) body.resolved_by = by.value.trim();
      const r = await post('/v1/escalations/' + enc(id) + '/resolve', body);
      toast('Escalation ' + r.status + '.');
      notes.delete(id);
      if (onResolved) onResolved();
    } catch (err) {
      out.textContent = err instanceof ApiError ? err.status + ' ' + (err.code || '') + ': ' + err.message : String(err);
      buttons.forEach((b) => { b.disabled = false; });
    }
  }
  const buttons = [
    h('button', { type: 'button', class: 'ok', id: 'approve-' + id, onclick: () => resolve('approved') }, 'Approve'),
    h('button', { type: 'button', class: 'danger', id: 'reject-' + id, onclick: () => resolve('rejected') }, 'Reject')
  ];
  return h('div', { class: 'resolve' },
    h('label', { for: 'note-' + id }, 'Note (optional, goes into the signed receipt)', note),
    h('div', { class: 'row' }, by ? h('label', { for: 'by-' + id }, 'Resolved by', by) : null, ...buttons),
    out);
}

export { showError };
