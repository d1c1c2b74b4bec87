// Page 3: receipts. The list endpoint's filters and cursor paging, a verdict for every receipt
// shown (computed here), and a detail page with the receipt's JSON.
import { h, clear, badge, kv, code, time, table, toast } from './dom.js';
import { get, enc } from './api.js';
import { session } from './app.js';
import { fillVerdict, fetchAndVerify, verdict, pretty } from './trust.js';
import { pager } from './authorizations.js';

const FILTERS = [
  ['authorization_id', 'Authorization id'],
  ['user_id', 'User id'],
  ['resource', 'Resource'],
  ['session_id', 'Session id'],
  ['scope', 'Scope']
];
const EVENTS = ['', 'authorization.create', 'authorization.revoke', 'escalation.resolve'];
const DECISIONS = ['', 'allow', 'deny', 'confirm', 'escalate', 'authorization_granted', 'authorization_revoked', 'escalation_approved', 'escalation_rejected'];

function select(id, name, values) {
  return h('select', { id, name }, values.map((v) => h('option', { value: v }, v || 'any')));
}

export async function receiptsPage(el) {
  const inputs = {};
  const fields = FILTERS.map(([name, label]) => {
    inputs[name] = h('input', { id: 'r-' + name, name, autocomplete: 'off' });
    return h('label', { for: 'r-' + name, class: 'grow' }, label, inputs[name]);
  });
  inputs.event = select('r-event', 'event', EVENTS);
  inputs.decision = select('r-decision', 'decision', DECISIONS);
  inputs.from = h('input', { id: 'r-from', name: 'from', type: 'datetime-local', step: '1' });
  inputs.to = h('input', { id: 'r-to', name: 'to', type: 'datetime-local', step: '1' });
  const results = h('div', { id: 'receipts' });
  const cursors = [null];
  function query() {
    const q = {};
    for (const [name, input] of Object.entries(inputs)) {
      const v = input.value.trim();
      if (!v) continue;
      q[name] = name === 'from' || name === 'to' ? new Date(v).toISOString() : v;
    }
    return q;
  }
  async function show(page) {
    const res = await get('/v1/receipts', Object.assign(query(), { limit: 50, cursor: cursors[page] }));
    if (res.next_cursor) cursors[page + 1] = res.next_cursor;
    const rows = res.receipts.map((r) => {
      const cell = h('span', { id: 'verdict-' + r.receipt_id });
      if (r.signed) fillVerdict(cell, session.me.workspace_id, r.receipt_id);
      else cell.append(verdict({ status: 'pending' }));
      return [
        h('a', { href: '#/receipts/' + enc(r.receipt_id) }, code(r.receipt_id)),
        badge(r.decision),
        r.event ? code(r.event) : code(r.scope),
        r.authorization_id ? h('a', { href: '#/authorizations/' + enc(r.authorization_id) }, code(r.authorization_id)) : '—',
        time(r.created_at),
        cell
      ];
    });
    clear(results).append(table(['Receipt', 'Decision', 'Scope / event', 'Authorization', 'Issued', 'Verdict'], rows, { caption: 'Receipts', empty: 'No receipt matches.' }),
      pager(page, res.has_more, show));
  }
  el.append(h('h1', {}, 'Receipts'),
    h('form', { class: 'card', role: 'search', 'aria-label': 'Filter receipts', onsubmit: (e) => { e.preventDefault(); cursors.length = 1; show(0).catch((err) => toast(err.message, true)); } },
      h('div', { class: 'row' }, fields,
        h('label', { for: 'r-event' }, 'Event', inputs.event),
        h('label', { for: 'r-decision' }, 'Decision', inputs.decision),
        h('label', { for: 'r-from' }, 'From (inclusive)', inputs.from),
        h('label', { for: 'r-to' }, 'To (exclusive)', inputs.to),
        h('button', { type: 'submit' }, 'Filter'))),
    results);
  await show(0);
}

export async function receiptPage(el, id) {
  el.append(h('p', {}, h('a', { href: '#/receipts' }, '← Receipts')), h('h1', {}, 'Receipt ', code(id)));
  const v = await fetchAndVerify(session.me.workspace_id, id);
  if (v.status !== 'signed') {
    el.append(h('p', { class: 'card' }, verdict(v), ' Not signed yet; reload in a moment.'));
    return;
  }
  const r = v.tree;
  const auth = r.get('authorization_id');
  el.append(
    h('div', { class: 'card' },
      h('p', { id: 'receipt-verdict' }, verdict(v), ' ', h('span', { class: 'muted' }, v.result.message)),
      kv([
        ['Decision', badge(r.get('decision'))],
        ['Reason', code(r.get('reason'))],
        [r.has('event') ? 'Event' : 'Scope', code(r.get('event') || r.get('scope'))],
        ['User', r.get('user_id') ? code(r.get('user_id')) : null],
        ['Agent', r.get('agent_id') ? code(r.get('agent_id')) : null],
        ['Resource', r.get('resource') ? code(r.get('resource')) : null],
        ['Authorization', auth ? h('a', { href: '#/authorizations/' + enc(auth) }, code(auth)) : null],
        ['Issued', time(r.get('issued_at'))],
        ['Signed with', code(r.get('signature').get('key_id'))]
      ])),
    h('h2', {}, 'JSON'),
    h('pre', { class: 'json', id: 'receipt-json', tabindex: '0', 'aria-label': 'Receipt JSON' }, pretty(r)));
}
