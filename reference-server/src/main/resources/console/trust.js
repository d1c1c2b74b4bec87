// Verdicts computed in this page: receipts fetched as text, parsed strictly, verified by verify.js
// against the workspace's public keys (GET /v1/workspaces/{id}/keys), pinned by fingerprint when
// the user entered pins. Nothing the server says about validity is trusted.
import { h } from './dom.js';
import { request, enc } from './api.js';

const V = globalThis.AgentAuthVerify;
const PINS = 'agentauth.pins';

let cached = null; // {workspaceId, pinsKey, promise}

export function pins() {
  return (sessionStorage.getItem(PINS) || '').split(/[\s,]+/).filter(Boolean);
}

export function setPins(list) {
  sessionStorage.setItem(PINS, list.join('\n'));
  cached = null;
}

/** The workspace's keys document as text (public endpoint; no API key sent). */
export async function keysText(workspaceId) {
  return (await request('GET', '/v1/workspaces/' + enc(workspaceId) + '/keys', { anonymous: true })).text;
}

/** A verifier for the workspace's keys, built once per page load and pin set. */
export function verifierFor(workspaceId) {
  const key = workspaceId + '|' + pins().join(',');
  if (!cached || cached.key !== key) {
    cached = {
      key,
      promise: keysText(workspaceId).then((text) => V.createVerifier(text, { pins: pins() }))
    };
    cached.promise.catch(() => { cached = null; });
  }
  return cached.promise;
}

/**
 * Fetches one receipt and verifies it here. Returns {status: 'pending'} or {status: 'signed',
 * result, tree, text} where tree is the strictly parsed receipt.
 */
export async function fetchAndVerify(workspaceId, receiptId) {
  const res = await request('GET', '/v1/receipts/' + enc(receiptId));
  const body = V.parseJson(res.text);
  if (body.get('status') !== 'signed') return { status: 'pending' };
  const tree = body.get('receipt');
  let result;
  try {
    const verifier = await verifierFor(workspaceId);
    result = await verifier.verifyTree(tree);
  } catch (e) {
    result = { valid: false, step: 'KEYS', message: e.message || String(e) };
  }
  return { status: 'signed', result, tree };
}

/** A verdict element: "valid" or "invalid at STEP", with the message as its title. */
export function verdict(result) {
  if (!result) return h('span', { class: 'verdict muted' }, 'checking…');
  if (result.status === 'pending') return h('span', { class: 'verdict muted', dataset: { verdict: 'pending' } }, 'pending signature');
  const r = result.result || result;
  if (r.valid) {
    return h('span', { class: 'verdict valid', title: r.message, dataset: { verdict: 'valid' } }, '✓ valid');
  }
  return h('span', { class: 'verdict invalid', title: r.message, dataset: { verdict: 'invalid', step: r.step } },
    '✗ invalid', h('span', { class: 'step' }, 'at ' + r.step));
}

/** Puts the verdict of receiptId into el once computed. */
export function fillVerdict(el, workspaceId, receiptId, onDone) {
  el.replaceChildren(verdict(null));
  fetchAndVerify(workspaceId, receiptId).then((v) => {
    el.replaceChildren(verdict(v));
    if (onDone) onDone(v);
  }, (e) => {
    el.replaceChildren(h('span', { class: 'verdict invalid' }, 'could not fetch: ' + e.message));
    if (onDone) onDone(null);
  });
}

/** Pretty JSON of a strict tree, numbers exactly as written. */
export function pretty(tree, indent) {
  indent = indent || '';
  const next = indent + '  ';
  if (tree instanceof Map) {
    if (tree.size === 0) return '{}';
    const parts = [];
    tree.forEach((v, k) => parts.push(next + JSON.stringify(k) + ': ' + pretty(v, next)));
    return '{\n' + parts.join(',\n') + '\n' + indent + '}';
  }
  if (Array.isArray(tree)) {
    if (tree.length === 0) return '[]';
    return '[\n' + tree.map((v) => next + pretty(v, next)).join(',\n') + '\n' + indent + ']';
  }
  if (tree instanceof V.JsonNumber) return tree.text;
  return JSON.stringify(tree);
}
