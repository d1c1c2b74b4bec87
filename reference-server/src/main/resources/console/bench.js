// The benchmark behind bench.html: receipts/s for verify.js end to end. The figure is written to
// #result (and to the title) so a headless browser can print it: see benchmarks/README.md.
(function () {
  'use strict';
  var V = globalThis.AgentAuthVerify;
  var out = document.getElementById('result');

  function b64(bytes) {
    return V.base64UrlEncode(new Uint8Array(bytes));
  }

  // A scope receipt shaped like the server's (about 600 bytes of JSON).
  function receipt(i, keyId) {
    var id = String(i).padStart(10, '0');
    return {
      version: '1.0',
      receipt_id: '01JZBENCH' + id + 'AAAAAAA',
      workspace_id: 'ws_bench',
      issued_at: new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString(),
      decision: i % 7 === 0 ? 'deny' : 'allow',
      reason: i % 7 === 0 ? 'scope_not_authorized' : 'authorization_granted_scope_active',
      user_id: 'usr_' + (i % 97),
      agent_id: 'agent_travel_desk',
      scope: 'email.send',
      resource: 'mailbox:team-' + (i % 13),
      context: {
        client_context: { initiated_by: 'user', locale: 'en-GB', ticket: 'OPS-' + i },
        session_id: 'sess_' + (i % 31),
        budget: { cost_micros: 1500 + i % 100, spent_micros: i * 3, limit_micros: 100000000 }
      },
      authorization_id: 'auth_01M8149Y194G5EBXWKHFR57VZZ',
      policy_version: '2026-11-22.1',
      signature: { alg: 'Ed25519', key_id: keyId, value: '' }
    };
  }

  async function prepare(n) {
    var pair = await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify']);
    var raw = await crypto.subtle.exportKey('raw', pair.publicKey);
    var keyId = 'ws_bench/bench-key-1';
    var keys = JSON.stringify({
      workspace_id: 'ws_bench',
      keys: [{ key_id: keyId, alg: 'Ed25519', public_key: b64(raw), active_from: '2026-01-01T00:00:00.000Z', active_until: null }]
    });
    var texts = new Array(n);
    var enc = new TextEncoder();
    for (var start = 0; start < n; start += 512) {
      var batch = [];
      for (var i = start; i < Math.min(n, start + 512); i++) {
        batch.push((function (r) {
          var payload = enc.encode(V.signingPayload(V.fromPlain(r)));
          return crypto.subtle.sign({ name: 'Ed25519' }, pair.privateKey, payload).then(function (sig) {
            r.signature.value = b64(sig);
            return JSON.stringify(r);
          });
        })(receipt(i, keyId)));
      }
      var done = await Promise.all(batch);
      for (var j = 0; j < done.length; j++) texts[start + j] = done[j];
    }
    return { keys: keys, texts: texts };
  }

  /** Verifies every text, `window` at a time in flight; returns [valid count, ms]. */
  async function run(verifier, texts, window) {
    var valid = 0;
    var t0 = performance.now();
    for (var start = 0; start < texts.length; start += window) {
      var batch = [];
      for (var i = start; i < Math.min(texts.length, start + window); i++) batch.push(verifier.verify(texts[i]));
      var results = await Promise.all(batch);
      for (var k = 0; k < results.length; k++) if (results[k].valid) valid++;
    }
    return [valid, performance.now() - t0];
  }

  async function main() {
    var n = Number(new URLSearchParams(location.search).get('n')) || 20000;
    out.textContent = 'signing ' + n + ' receipts…';
    var data = await prepare(n);
    var verifier = await V.createVerifier(data.keys);
    await run(verifier, data.texts.slice(0, Math.min(1000, n)), 64); // warm-up
    var lines = ['receipts: ' + n, 'user agent: ' + navigator.userAgent, 'cores: ' + (navigator.hardwareConcurrency || '?')];
    var best = 0;
    for (var w of [1, 64, 256]) {
      var r = await run(verifier, data.texts, w);
      if (r[0] !== n) throw new Error('only ' + r[0] + ' of ' + n + ' verified at window ' + w);
      var rate = Math.round(n / (r[1] / 1000));
      best = Math.max(best, rate);
      lines.push('in flight ' + String(w).padStart(3) + ': ' + rate + ' receipts/s (' + r[1].toFixed(0) + ' ms)');
    }
    lines.push('best: ' + best + ' receipts/s');
    out.textContent = lines.join('\n');
    out.dataset.receiptsPerSecond = String(best);
    document.title = 'done: ' + best + ' receipts/s';
  }

  function start() {
    main().catch(function (e) {
      out.textContent = 'failed: ' + (e && e.message ? e.message : e);
      document.title = 'failed';
    });
  }
  document.getElementById('run').addEventListener('click', start);
  start();
})();
