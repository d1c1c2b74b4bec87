// The console's JavaScript verifier (src/main/resources/console/verify.js) against the project's
// receipt vectors (docs/receipt-vectors.json) and the receipt format's public vectors
// (../shared/vectors, when present): every valid receipt accepted, every invalid one rejected at
// the step the Java verifier names. Run with `node --test src/test/js/` from reference-server/
// (ConsoleScriptsTest runs it during `mvn verify`).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const V = require('../../main/resources/console/verify.js');

const repo = path.resolve(__dirname, '../../../..');
const ownFile = path.join(repo, 'docs', 'receipt-vectors.json');
const PUBLIC_VECTORS = 'receipt-format-v1-draft6.json';
// The repository's copy (beside the Java verifier's tests) and the shared original, when present.
const publicFiles = [
  path.join(repo, 'sdk-verifier', 'src', 'test', 'resources', 'vectors', PUBLIC_VECTORS),
  path.join(repo, '..', 'shared', 'vectors', PUBLIC_VECTORS)
];

// Parsed with the verifier's own strict parser, so numbers such as 1.0 keep their text.
function load(file) {
  return V.parseJson(fs.readFileSync(file, 'utf8'));
}

function receiptOf(vector) {
  return vector.has('receipt_text') ? { text: vector.get('receipt_text') } : { tree: vector.get('receipt') };
}

async function check(verifier, r) {
  return r.text !== undefined ? verifier.verify(r.text) : verifier.verifyTree(r.tree);
}

test('own vectors (docs/receipt-vectors.json)', async (t) => {
  assert.ok(fs.existsSync(ownFile), ownFile + ' is missing');
  const vectors = load(ownFile);
  const verifier = await V.createVerifier(vectors.get('public_keys'), {
    nowNanos: V.parseInstant(vectors.get('verify_at'))
  });
  const byName = new Map();
  for (const group of ['valid', 'chain_only', 'invalid']) {
    for (const v of vectors.get(group)) byName.set(v.get('name'), receiptOf(v));
  }

  for (const group of ['valid', 'chain_only']) {
    for (const v of vectors.get(group)) {
      await t.test(group + ': ' + v.get('name') + ' verifies', async () => {
        const result = await verifier.verifyTree(v.get('receipt'));
        assert.equal(result.valid, true, result.step + ': ' + result.message);
        assert.equal(result.receiptId, v.get('receipt').get('receipt_id'));
        if (v.has('canonical')) {
          assert.equal(V.signingPayload(v.get('receipt')), v.get('canonical'));
        }
        // Text in, same answer: the receipt written out by JSON.stringify verifies too.
        const text = JSON.stringify(V.toPlain(v.get('receipt')));
        assert.equal((await verifier.verify(text)).valid, true);
      });
    }
  }

  for (const v of vectors.get('invalid')) {
    await t.test('invalid: ' + v.get('name') + ' fails at ' + v.get('expected_step'), async () => {
      const result = await check(verifier, receiptOf(v));
      assert.equal(result.valid, false, 'accepted: ' + v.get('description'));
      assert.equal(result.step, v.get('expected_step'), result.message);
    });
  }

  for (const c of vectors.get('chains')) {
    await t.test('chain: ' + c.get('name'), async () => {
      const results = [];
      for (const name of c.get('receipts')) {
        assert.ok(byName.has(name), 'unknown receipt ' + name);
        results.push(await check(verifier, byName.get(name)));
      }
      const report = V.checkChain(results);
      const actual = report.problems.map((p) => p.kind + '@' + p.index).sort();
      const expected = c.get('expected_problems').map((p) => p.get('kind') + '@' + Number(p.get('index').text)).sort();
      assert.deepEqual(actual, expected, JSON.stringify(report.problems));
    });
  }
});

// The receipt format's public vectors name a reason phrase; the Java verifier's test maps each
// phrase to the step that must reject it (ReceiptFormatVectorsTest.STEP_FOR_REASON), as here.
const STEP_FOR_REASON = {
  'signature verification failed': 'SIGNATURE',
  'no public key found': 'KEY_NOT_FOUND',
  'unsupported version': 'VERSION',
  'unknown top-level fields': 'SCHEMA',
  'missing top-level fields': 'SCHEMA',
  'action receipt must have decision in': 'PAIRING',
  "both 'scope' and 'event'": 'SCHEMA',
  "neither 'scope' nor 'event'": 'SCHEMA',
  'event must be one of': 'SCHEMA',
  'must have decision': 'PAIRING',
  'must have non-null authorization_id': 'SCHEMA',
  'must have null resource': 'SCHEMA',
  'policy_eval must be absent on event receipts': 'SCHEMA',
  'policy_eval has unknown fields': 'SCHEMA',
  'policy_eval missing fields': 'SCHEMA',
  'policy_eval.matched_condition missing fields': 'SCHEMA',
  'policy_eval.matched_condition has unknown fields': 'SCHEMA',
  'policy_eval.field_value must be': 'SCHEMA',
  'safe range': 'SCHEMA',
  'RFC 3339 timestamp with timezone': 'SCHEMA',
  base64url: 'SCHEMA',
  'requires an event receipt': 'PAIRING'
};

for (const file of publicFiles) {
  test('receipt format public vectors (' + path.relative(repo, file) + ')', async (t) => {
    if (!fs.existsSync(file)) {
      t.skip(file + ' is absent (no ../shared beside the repository): these vectors were not run');
      return;
    }
    const vectors = load(file);
    const verifier = await V.createVerifier(vectors.get('public_keys'));
    for (const v of vectors.get('should_verify')) {
      await t.test('should_verify: ' + v.get('name'), async () => {
        const result = await verifier.verifyTree(v.get('receipt'));
        assert.equal(result.valid, true, result.step + ': ' + result.message);
      });
    }
    for (const v of vectors.get('should_reject')) {
      const reason = v.get('expected_reason');
      await t.test('should_reject: ' + v.get('name') + ' (' + reason + ')', async () => {
        assert.ok(STEP_FOR_REASON[reason], 'no step known for ' + reason);
        const result = await verifier.verifyTree(v.get('receipt'));
        assert.equal(result.valid, false);
        assert.equal(result.step, STEP_FOR_REASON[reason], result.message);
        assert.ok(result.message.includes(reason), result.message);
      });
    }
  });
}

test('canonical form', async (t) => {
  await t.test('sorts keys by UTF-16 code units and escapes only what it must', () => {
    const tree = V.parseJson('{"b":1,"a":"x\\n\\u0001\\"\\\\é😀","\uE000":true,"\uD83D\uDE00":null}');
    // U+1F600 is the surrogate pair D83D DE00, so it sorts before U+E000 (code point order would not).
    assert.equal(V.canonicalize(tree), '{"a":"x\\u000a\\u0001\\"\\\\é😀","b":1,"😀":null,"\uE000":true}');
  });
  await t.test('refuses fractions, exponents and unsafe integers, keeps -0 as 0', () => {
    assert.throws(() => V.canonicalize(V.parseJson('[1.0]')), V.CanonicalError);
    assert.throws(() => V.canonicalize(V.parseJson('[1e2]')), V.CanonicalError);
    assert.throws(() => V.canonicalize(V.parseJson('[9007199254740992]')), V.CanonicalError);
    assert.equal(V.canonicalize(V.parseJson('[-9007199254740991,-0]')), '[-9007199254740991,0]');
  });
  await t.test('refuses a lone surrogate', () => {
    assert.throws(() => V.canonicalize(V.parseJson('["\\ud800"]')), V.CanonicalError);
  });
  await t.test('a problem is reported with the path to it', () => {
    const cases = [
      ['{"a":{"b c":[0,1.5]}}', '$.a["b c"][1]', 'not an integer'],
      ['{"z":1,"a":[9007199254740992]}', '$.a[0]', 'safe range'],
      ['{"ok":"x","s":["y","\\udc00"]}', '$.s[1]', 'lone surrogate']
    ];
    for (const [text, path, words] of cases) {
      assert.throws(() => V.canonicalize(V.parseJson(text)), (e) => {
        assert.ok(e instanceof V.CanonicalError, String(e));
        assert.equal(e.path, path, text);
        assert.ok(e.message.includes(words), e.message);
        return true;
      });
    }
  });
  await t.test('integers: as written up to 15 digits, through BigInt beyond, -0 as 0', () => {
    assert.equal(
      V.canonicalize(V.parseJson('[0,-0,7,-42,123456789012345,-123456789012345,1234567890123456,-9007199254740991]')),
      '[0,0,7,-42,123456789012345,-123456789012345,1234567890123456,-9007199254740991]'
    );
    // Numbers made by fromPlain (JavaScript numbers) are held to the same rules.
    assert.equal(V.canonicalize(V.fromPlain({ n: 12, m: -3 })), '{"m":-3,"n":12}');
    assert.throws(() => V.canonicalize(V.fromPlain({ n: 0.5 })), V.CanonicalError);
    assert.throws(() => V.canonicalize(V.fromPlain({ n: 1e21 })), V.CanonicalError);
  });
  await t.test('nesting: 1000 levels are written, 1001 refused', () => {
    const deep = (n) => '['.repeat(n) + ']'.repeat(n);
    assert.equal(V.canonicalize(V.parseJson(deep(1000))), deep(1000));
    const tree = V.parseJson(deep(1000));
    assert.throws(() => V.canonicalize([tree]), V.CanonicalError);
  });
  await t.test('the parser refuses duplicates, trailing content and bad numbers', () => {
    for (const bad of ['{"a":1,"a":2}', '{} x', '[01]', '[1.]', "{'a':1}", '[1,]', '["\t"]']) {
      assert.throws(() => V.parseJson(bad), V.ParseError, bad);
    }
  });
});

test('verifyAll gives, in order, what verifying one at a time gives', async () => {
  const vectors = load(ownFile);
  const verifier = await V.createVerifier(vectors.get('public_keys'), {
    nowNanos: V.parseInstant(vectors.get('verify_at'))
  });
  const entries = [];
  for (const group of ['valid', 'invalid', 'valid']) {
    for (const v of vectors.get(group)) {
      const r = receiptOf(v);
      entries.push(r.text !== undefined ? { text: r.text } : { tree: r.tree });
      if (r.tree !== undefined) entries.push({ text: JSON.stringify(V.toPlain(r.tree)) });
    }
  }
  const oneByOne = [];
  for (const e of entries) oneByOne.push(await check(verifier, e));
  for (const inFlight of [1, 3, 64, undefined]) {
    const all = await verifier.verifyAll(entries, inFlight);
    assert.equal(all.length, entries.length);
    assert.deepEqual(all.map((r) => [r.valid, r.step, r.receiptId]), oneByOne.map((r) => [r.valid, r.step, r.receiptId]), 'in flight ' + inFlight);
  }
  assert.ok(oneByOne.some((r) => r.valid) && oneByOne.some((r) => !r.valid));
  assert.deepEqual(await verifier.verifyAll([]), []);
});

test('fingerprints match the Java KeyFingerprint format', async () => {
  const vectors = load(ownFile);
  const verifier = await V.createVerifier(vectors.get('public_keys'));
  for (const key of verifier.keys) {
    assert.match(key.fingerprint, /^SHA256:[A-Za-z0-9_-]{43}$/);
    assert.equal(V.validFingerprint(key.fingerprint), null);
  }
  // A pin that matches no key of the document is refused, as the Java builder refuses it.
  await assert.rejects(
    V.createVerifier(vectors.get('public_keys'), { pins: ['SHA256:' + 'A'.repeat(43)] }),
    V.KeysDocumentError
  );
  // Pinning one key: a receipt signed by the other fails at KEY_NOT_FOUND.
  const pinned = await V.createVerifier(vectors.get('public_keys'), {
    pins: [verifier.keys[0].fingerprint],
    nowNanos: V.parseInstant(vectors.get('verify_at'))
  });
  const signedByOther = vectors.get('valid').find(
    (v) => v.get('receipt').get('signature').get('key_id') !== verifier.keys[0].keyId
  );
  const result = await pinned.verifyTree(signedByOther.get('receipt'));
  assert.equal(result.step, 'KEY_NOT_FOUND');
});
