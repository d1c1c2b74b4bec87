// Page 6: webhooks (full and app keys): list, add (the secret is shown once), remove, and each
// webhook's delivery log. A server without webhooks answers 404, and the page says so.
import { h, clear, code, time, table, badge, toast, confirmDialog } from './dom.js';
import { get, post, del, enc, ApiError } from './api.js';

export const EVENTS = ['escalation.created', 'escalation.resolved', 'escalation.expired', 'confirmation.requested', 'authorization.revoked'];

export async function webhooksPage(el) {
  el.append(h('h1', {}, 'Webhooks'));
  let list;
  try {
    list = await get('/v1/webhooks', { limit: 100 });
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      el.append(h('p', { class: 'card', id: 'webhooks-unavailable' }, 'This server has no webhooks endpoint (GET /v1/webhooks answered 404).'));
      return;
    }
    throw err;
  }
  const hooks = list.webhooks || [];
  const detail = h('div', { id: 'webhook-detail' });
  el.append(addForm(),
    h('h2', {}, 'Endpoints'),
    table(['Webhook', 'URL', 'Events', 'Created', ''], hooks.map((w) => [
      code(w.id),
      h('code', {}, w.url),
      (w.events || []).join(', '),
      time(w.created_at),
      h('span', { class: 'row' },
        h('button', { type: 'button', class: 'secondary', 'aria-label': 'Deliveries of webhook ' + w.url, onclick: () => deliveries(detail, w).catch((e) => toast(e.message, true)) }, 'Deliveries'),
        h('button', {
          type: 'button', class: 'danger', 'aria-label': 'Remove webhook ' + w.url,
          onclick: async () => {
            if (!(await confirmDialog('Remove this webhook?', w.url + ' gets no more events.', 'Remove'))) return;
            try {
              await del('/v1/webhooks/' + enc(w.id));
              toast('Webhook removed.');
              window.dispatchEvent(new HashChangeEvent('hashchange'));
            } catch (e) {
              toast(e.message, true);
            }
          }
        }, 'Remove'))
    ]), { caption: 'Webhooks', empty: 'No webhook yet.' }),
    detail);
}

function addForm() {
  const url = h('input', { id: 'wh-url', type: 'url', required: true, placeholder: 'https://example.com/agentauth', autocomplete: 'off' });
  const boxes = EVENTS.map((e) => h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'events', value: e, checked: e.startsWith('escalation.created') }), ' ', e));
  const out = h('div', { id: 'wh-created', 'aria-live': 'polite' });
  return h('form', {
    class: 'card', 'aria-labelledby': 'wh-add-title',
    onsubmit: async (e) => {
      e.preventDefault();
      const events = boxes.map((b) => b.querySelector('input')).filter((i) => i.checked).map((i) => i.value);
      try {
        const w = await post('/v1/webhooks', { url: url.value.trim(), events });
        clear(out).append(h('div', { class: 'secret', role: 'alert' },
          h('p', {}, h('strong', {}, 'Signing secret (shown once): '), h('code', { id: 'wh-secret' }, w.secret)),
          h('p', {}, 'Store it with the receiver now; it verifies the AgentAuth-Signature header. ',
            h('button', { type: 'button', class: 'secondary', id: 'wh-done', onclick: () => window.dispatchEvent(new HashChangeEvent('hashchange')) }, 'Done'))));
      } catch (err) {
        clear(out).append(h('p', { class: 'problems', role: 'alert' }, err.message));
      }
    }
  },
  h('h2', { id: 'wh-add-title' }, 'Add a webhook'),
  h('label', { for: 'wh-url' }, 'Receiver URL (https, public address)', url),
  h('fieldset', {}, h('legend', {}, 'Events'), h('div', { class: 'row' }, boxes)),
  h('p', {}, h('button', { type: 'submit', id: 'wh-add' }, 'Add webhook')), out);
}

async function deliveries(detail, w) {
  const res = await get('/v1/webhooks/' + enc(w.id) + '/deliveries', { limit: 100 });
  clear(detail).append(h('h2', {}, 'Deliveries to ', h('code', {}, w.url)),
    table(['Event', 'Type', 'Status', 'Attempts', 'Last attempt', 'Last answer'], (res.deliveries || []).map((d) => [
      code(d.event_id), d.event_type, badge(d.status, d.status === 'delivered' ? 'valid' : d.status === 'failed' ? 'invalid' : 'pending'),
      String(d.attempts), time(d.last_attempt_at),
      d.last_status_code ? String(d.last_status_code) : (d.last_error || '—')
    ]), { caption: 'Deliveries', empty: 'No delivery attempt yet.' }));
  detail.scrollIntoView();
}
