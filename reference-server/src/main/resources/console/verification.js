// Page 4: verification in the browser. Pins, a pasted receipt checked against this workspace's
// published keys, and the offline verifier (files in, no server call).
import { h, clear } from './dom.js';
import { session } from './app.js';
import { pins, setPins, verifierFor, verdict } from './trust.js';

const V = globalThis.AgentAuthVerify;

export async function verifyPage(el) {
  el.append(h('h1', {}, 'Verify receipts'),
    h('p', { class: 'muted' }, 'Every verdict in this console is computed in your browser: the receipt\'s canonical form in JavaScript, Ed25519 through WebCrypto, keys from the workspace\'s public keys endpoint. The server\'s word is not taken for anything.'),
    pinsCard(), pasteCard(),
    h('section', { class: 'card', 'aria-labelledby': 'offline-title' },
      h('h2', { id: 'offline-title' }, 'Offline: files from an export'),
      h('p', { class: 'muted' }, 'No server call: the keys document and the receipts come from files you choose. The same verifier works without the console: ', h('a', { href: 'offline.html' }, 'offline.html'), '.'),
      mountOffline()));
}

function mountOffline() {
  const box = h('div', { id: 'offline' });
  globalThis.AgentAuthOffline.mount(box);
  return box;
}

function pinsCard() {
  const area = h('textarea', { id: 'pins', rows: 3, spellcheck: 'false', placeholder: 'SHA256:… one per line' });
  area.value = pins().join('\n');
  const out = h('p', { role: 'status', id: 'pins-status' });
  return h('section', { class: 'card', 'aria-labelledby': 'pins-title' },
    h('h2', { id: 'pins-title' }, 'Pinned keys'),
    h('p', { class: 'muted' }, 'Whoever serves the keys document decides what verifies. Enter the fingerprints you obtained out of band (agentauth-verify keys fingerprint prints them) and only those keys count; a receipt signed by another key fails at KEY_NOT_FOUND.'),
    h('label', { for: 'pins' }, 'Key fingerprints', area),
    h('div', { class: 'row' }, h('button', {
      type: 'button', id: 'save-pins',
      onclick: () => {
        const list = area.value.split(/[\s,]+/).filter(Boolean);
        const bad = list.map((p) => [p, V.validFingerprint(p)]).find(([, problem]) => problem);
        if (bad) {
          out.className = 'problems';
          out.textContent = bad[0] + ': ' + bad[1];
          return;
        }
        setPins(list);
        out.className = 'muted';
        out.textContent = list.length ? list.length + ' key(s) pinned for this tab.' : 'No pins: every key of the keys document is trusted.';
      }
    }, 'Use these pins')), out);
}

function pasteCard() {
  const area = h('textarea', { id: 'paste-receipt', rows: 8, spellcheck: 'false', placeholder: '{"version":"1.0", …}' });
  const out = h('div', { id: 'paste-result', 'aria-live': 'polite' });
  return h('section', { class: 'card', 'aria-labelledby': 'paste-title' },
    h('h2', { id: 'paste-title' }, 'Paste a receipt'),
    h('label', { for: 'paste-receipt' }, 'Receipt JSON (the signed receipt, or a GET /v1/receipts/{id} response)', area),
    h('div', { class: 'row' }, h('button', {
      type: 'button', id: 'verify-paste',
      onclick: async () => {
        clear(out).append(verdict(null));
        let result;
        try {
          const verifier = await verifierFor(session.me.workspace_id);
          const entries = V.splitReceipts(area.value);
          const first = entries[0] || { text: area.value };
          result = first.tree !== undefined ? await verifier.verifyTree(first.tree) : await verifier.verify(first.text);
        } catch (e) {
          result = { valid: false, step: 'KEYS', message: e.message || String(e) };
        }
        clear(out).append(h('p', {}, verdict(result)), h('p', { class: result.valid ? 'muted' : 'problems', id: 'paste-message' }, result.message));
      }
    }, 'Verify')), out);
}
