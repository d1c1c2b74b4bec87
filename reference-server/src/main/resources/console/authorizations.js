// Page 2: authorizations. A filtered, paged list; the detail shows the rule set, the budget, and the
// receipt chain as a timeline with a verdict per receipt and for the chain, computed in this page.
import { h, clear, badge, kv, code, time, table, toast, confirmDialog } from './dom.js';
import { get, request, enc, ApiError } from './api.js';
import { session } from './app.js';
import { fetchAndVerify, verdict } from './trust.js';

const V = globalThis.AgentAuthVerify;

export async function authorizationsPage(el) {
  const params = new URLSearchParams(location.hash.split('?')[1] || '');
  const user = h('input', { id: 'f-user', name: 'user_id', value: params.get('user_id') || '', autocomplete: 'off' });
  const agent = h('input', { id: 'f-agent', name: 'agent_id', value: params.get('agent_id') || '', autocomplete: 'off' });
  const status = h('select', { id: 'f-status', name: 'status' },
    ['', 'active', 'revoked', 'expired'].map((s) => h('option', { value: s, selected: s === (params.get('status') || '') }, s || 'any')));
  const results = h('div', { id: 'authorizations' });
  const cursors = [null];
  async function show(page) {
    const query = { user_id: user.value.trim(), agent_id: agent.value.trim(), status: status.value, limit: 25, cursor: cursors[page] };
    const res = await get('/v1/authorizations', query);
    if (res.next_cursor) cursors[page + 1] = res.next_cursor;
    clear(results).append(
      table(['Authorization', 'User', 'Agent', 'Scopes', 'Status', 'Expires'],
        res.authorizations.map((a) => [
          h('a', { href: '#/authorizations/' + enc(a.authorization_id) }, code(a.authorization_id)),
          code(a.user_id), code(a.agent_id),
          (a.scopes || []).map((s) => s.name).join(', '),
          badge(a.status), time(a.expires_at)
        ]), { caption: 'Authorizations', empty: 'No authorization matches.' }),
      pager(page, res.has_more, show));
  }
  el.append(h('h1', {}, 'Authorizations'),
    h('form', { class: 'card row', role: 'search', 'aria-label': 'Filter authorizations', onsubmit: (e) => { e.preventDefault(); cursors.length = 1; show(0).catch((err) => toast(err.message, true)); } },
      h('label', { for: 'f-user', class: 'grow' }, 'User id', user),
      h('label', { for: 'f-agent', class: 'grow' }, 'Agent id', agent),
      h('label', { for: 'f-status' }, 'Status', status),
      h('button', { type: 'submit' }, 'Filter')),
    results);
  await show(0);
}

/** Previous/next buttons over cursor pages. */
export function pager(page, hasMore, show) {
  return h('div', { class: 'pager' },
    h('button', { type: 'button', class: 'secondary', disabled: page === 0, onclick: () => show(page - 1).catch((e) => toast(e.message, true)) }, '← Previous'),
    h('span', { class: 'muted' }, 'Page ' + (page + 1)),
    h('button', { type: 'button', class: 'secondary', id: 'next-page', disabled: !hasMore, onclick: () => show(page + 1).catch((e) => toast(e.message, true)) }, 'Next →'));
}

function micros(v) {
  return v === null || v === undefined ? null : (v / 1e6).toLocaleString(undefined, { maximumFractionDigits: 6 });
}

export async function authorizationPage(el, id) {
  const a = await get('/v1/authorizations/' + enc(id));
  const budget = a.budget_limit_micros === null || a.budget_limit_micros === undefined
    ? 'no budget'
    : micros(a.budget_spent_micros) + ' spent of ' + micros(a.budget_limit_micros);
  el.append(
    h('p', {}, h('a', { href: '#/authorizations' }, '← Authorizations')),
    h('h1', {}, 'Authorization ', code(a.authorization_id), ' ', badge(a.status)),
    h('div', { class: 'card' }, kv([
      ['User', code(a.user_id)],
      ['Agent', code(a.agent_id)],
      ['Bundle', a.bundle_id ? code(a.bundle_id) : null],
      ['Created', time(a.created_at)],
      ['Expires', time(a.expires_at)],
      ['Revoked', a.revoked_at ? time(a.revoked_at) : null],
      ['Budget', h('span', { id: 'budget' }, budget)],
      ['Needs confirmation', (a.requires_confirm_for || []).join(', ')],
      ['Needs escalation', (a.requires_escalation_for || []).join(', ')],
      ['Escalation targets', Object.entries(a.escalation_targets || {}).map(([s, t]) => s + ' → ' + t).join(', ')],
      ['Metadata', a.metadata && Object.keys(a.metadata).length ? h('code', {}, JSON.stringify(a.metadata)) : null]
    ])),
    h('h2', {}, 'Scopes'),
    table(['Scope', 'Constraints'], (a.scopes || []).map((s) => [code(s.name), s.constraints ? h('code', {}, JSON.stringify(s.constraints)) : '—']), { caption: 'Scopes' }));
  if (session.can.revoke && a.status === 'active') el.append(revokeForm(a));
  const chainVerdict = h('p', { id: 'chain-verdict', 'aria-live': 'polite' }, 'Verifying the chain…');
  const timeline = h('ol', { class: 'timeline', id: 'timeline' });
  el.append(h('h2', {}, 'Receipt chain'), chainVerdict, timeline);
  await chain(a, timeline, chainVerdict);
}

function revokeForm(a) {
  const by = h('input', { id: 'revoked-by', autocomplete: 'off', maxlength: 200, value: session.me.approver_id || '' });
  const notes = h('input', { id: 'revoke-notes', autocomplete: 'off', maxlength: 1000 });
  const out = h('p', { class: 'problems', role: 'status' });
  return h('section', { class: 'card', 'aria-labelledby': 'revoke-title' },
    h('h2', { id: 'revoke-title' }, 'Revoke'),
    h('p', { class: 'muted' }, 'Every later check on this authorization is denied. This cannot be undone.'),
    h('div', { class: 'row' },
      h('label', { for: 'revoked-by', class: 'grow' }, 'Revoked by (optional)', by),
      h('label', { for: 'revoke-notes', class: 'grow' }, 'Notes (optional)', notes),
      h('button', {
        type: 'button', class: 'danger', id: 'revoke',
        onclick: async () => {
          const ok = await confirmDialog('Revoke this authorization?', 'Agent ' + a.agent_id + ' loses every scope of ' + a.authorization_id + ' for user ' + a.user_id + '.', 'Revoke');
          if (!ok) return;
          const body = {};
          if (by.value.trim()) body.revoked_by = by.value.trim();
          if (notes.value.trim()) body.notes = notes.value.trim();
          try {
            await request('DELETE', '/v1/authorizations/' + enc(a.authorization_id), { body });
            toast('Authorization revoked.');
            window.dispatchEvent(new HashChangeEvent('hashchange'));
          } catch (err) {
            out.textContent = err instanceof ApiError ? err.status + ' ' + (err.code || '') + ': ' + err.message : String(err);
          }
        }
      }, 'Revoke…')),
    out);
}

/** Every receipt id of the authorization, in issuance order. */
async function chainIds(authorizationId) {
  const ids = [];
  let cursor = null;
  do {
    const page = await get('/v1/receipts', { authorization_id: authorizationId, limit: 100, cursor });
    page.receipts.forEach((r) => ids.push(r));
    cursor = page.has_more ? page.next_cursor : null;
  } while (cursor && ids.length < 5000);
  return ids;
}

async function chain(a, timeline, chainVerdict) {
  const summaries = await chainIds(a.authorization_id);
  const items = summaries.map((s) => {
    const v = h('span', {}, verdict(null));
    const li = h('li', { id: 'chain-' + s.receipt_id },
      h('div', {}, badge(s.event || s.decision, s.decision), ' ', s.scope ? code(s.scope) : s.event, ' ', v),
      h('div', { class: 'muted' }, time(s.created_at), ' · ', h('a', { href: '#/receipts/' + enc(s.receipt_id) }, code(s.receipt_id))));
    timeline.append(li);
    return { li, v, s };
  });
  const results = await mapLimited(items, 8, async (item) => {
    let r;
    try {
      r = await fetchAndVerify(session.me.workspace_id, item.s.receipt_id);
    } catch (e) {
      r = { status: 'signed', result: { valid: false, step: 'FETCH', message: e.message } };
    }
    item.v.replaceChildren(verdict(r));
    if (r.status === 'signed' && !r.result.valid) item.li.classList.add('bad');
    return r;
  });
  const pending = results.filter((r) => r.status === 'pending').length;
  const report = V.checkChain(results.filter((r) => r.status === 'signed').map((r) => r.result));
  clear(chainVerdict);
  if (report.problems.length === 0) {
    chainVerdict.append(h('span', { class: 'verdict valid', dataset: { verdict: 'valid' } }, '✓ chain valid'), ' ',
      h('span', { class: 'muted' }, results.length - pending + ' signed receipts verified in this browser' + (pending ? '; ' + pending + ' not signed yet' : '')));
  } else {
    chainVerdict.append(h('span', { class: 'verdict invalid', dataset: { verdict: 'invalid' } }, '✗ chain invalid'),
      h('ul', { class: 'problems' }, report.problems.map((p) => h('li', {}, p.kind + (p.index >= 0 ? ' at #' + (p.index + 1) : '') + ': ' + p.message))));
  }
}

/** Runs fn over items with at most `limit` at once; results in input order. */
export async function mapLimited(items, limit, fn) {
  const out = new Array(items.length);
  let next = 0;
  async function worker() {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
