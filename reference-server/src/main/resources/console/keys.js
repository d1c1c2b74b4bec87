// Page 5: the workspace's signing keys with their fingerprints, computed here from the public keys
// endpoint in the same format as `agentauth-verify keys fingerprint` (SHA256: + base64url).
import { h, code, time, table, badge } from './dom.js';
import { session } from './app.js';
import { keysText, pins } from './trust.js';

const V = globalThis.AgentAuthVerify;

export async function keysPage(el) {
  const text = await keysText(session.me.workspace_id);
  const verifier = await V.createVerifier(text);
  const pinned = new Set(pins());
  const now = new Date().toISOString();
  el.append(h('h1', {}, 'Signing keys'),
    h('p', { class: 'muted' }, 'Workspace ', code(verifier.workspaceId), '. Fingerprints are computed in this page from ', code('GET /v1/workspaces/' + verifier.workspaceId + '/keys'), '; compare them with the ones you trust, then pin them on the Verify page.'),
    table(['Key', 'Fingerprint', 'Active from', 'Active until', 'State'], verifier.keys.map((k) => {
      const active = k.activeFrom <= now && (!k.activeUntil || now < k.activeUntil);
      return [code(k.keyId), h('code', { class: 'fingerprint' }, k.fingerprint), time(k.activeFrom), k.activeUntil ? time(k.activeUntil) : 'no end',
        h('span', {}, badge(active ? 'active' : 'retired', active ? 'active' : ''), pinned.has(k.fingerprint) ? [' ', badge('pinned', 'valid')] : null)];
    }), { caption: 'Signing keys' }),
    h('p', {}, h('a', { href: '/v1/workspaces/' + encodeURIComponent(verifier.workspaceId) + '/keys', download: verifier.workspaceId + '-keys.json' }, 'Download the keys document'), ' (for offline verification).'));
}
