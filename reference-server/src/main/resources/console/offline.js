/*
 * The offline verifier: choose or drop a keys document and a file of receipts (NDJSON, a JSON
 * array, or one receipt) and every receipt is verified in this page, with no server call at all.
 * A classic script (like verify.js) so offline.html also works opened from disk; the console's
 * Verify page mounts the same widget. Defines globalThis.AgentAuthOffline.mount(container).
 */
(function (root) {
  'use strict';
  var V = root.AgentAuthVerify;

  function el(tag, attrs) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      var value = attrs[name];
      if (value === null || value === undefined || value === false) return;
      if (name.indexOf('on') === 0) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? '' : String(value));
    });
    for (var i = 2; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined) continue;
      if (Array.isArray(child)) child.forEach(function (c) { if (c) node.append(c); });
      else node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function readFile(file) {
    return new Promise(function (resolve, reject) {
      var reader = new FileReader();
      reader.onload = function () {
        try {
          resolve(new TextDecoder('utf-8', { fatal: true }).decode(reader.result));
        } catch (e) {
          reject(new Error(file.name + ' is not UTF-8 text'));
        }
      };
      reader.onerror = function () { reject(reader.error); };
      reader.readAsArrayBuffer(file);
    });
  }

  /** A file input plus a drop zone; calls onText(name, text). */
  function fileField(id, label, hint, onText) {
    var status = el('span', { class: 'muted', id: id + '-status' }, 'none chosen');
    var input = el('input', {
      type: 'file', id: id, accept: '.json,.ndjson,.jsonl,.txt,application/json',
      onchange: function () { if (input.files[0]) load(input.files[0]); }
    });
    function load(file) {
      readFile(file).then(function (text) {
        status.textContent = file.name + ' (' + text.length.toLocaleString() + ' characters)';
        onText(file.name, text);
      }, function (e) { status.textContent = e.message; });
    }
    var zone = el('div', { class: 'drop', id: id + '-drop' },
      el('label', { for: id }, label, input), el('p', { class: 'muted' }, hint), status);
    zone.addEventListener('dragover', function (e) { e.preventDefault(); zone.classList.add('over'); });
    zone.addEventListener('dragleave', function () { zone.classList.remove('over'); });
    zone.addEventListener('drop', function (e) {
      e.preventDefault();
      zone.classList.remove('over');
      if (e.dataTransfer.files[0]) load(e.dataTransfer.files[0]);
    });
    return zone;
  }

  function verdictNode(r) {
    if (r.valid) return el('span', { class: 'verdict valid', 'data-verdict': 'valid', title: r.message }, '✓ valid');
    return el('span', { class: 'verdict invalid', 'data-verdict': 'invalid', 'data-step': r.step, title: r.message },
      '✗ invalid', el('span', { class: 'step' }, 'at ' + r.step));
  }

  function mount(container) {
    var keysText = null;
    var receiptsText = null;
    var pins = el('textarea', { id: 'offline-pins', rows: 2, spellcheck: 'false', placeholder: 'SHA256:… (one per line; optional)' });
    var out = el('div', { id: 'offline-results', 'aria-live': 'polite' });
    var run = el('button', { type: 'button', id: 'offline-verify', disabled: true, onclick: verifyAll }, 'Verify');
    function ready() {
      run.disabled = !(keysText && receiptsText);
    }
    container.append(
      el('div', { class: 'row' },
        el('div', { class: 'grow' }, fileField('offline-keys', 'Keys document', 'The GET /v1/workspaces/{id}/keys response, saved as JSON.', function (n, t) { keysText = t; ready(); })),
        el('div', { class: 'grow' }, fileField('offline-receipts', 'Receipts', 'NDJSON (one receipt per line), a JSON array, or one receipt.', function (n, t) { receiptsText = t; ready(); }))),
      el('label', { for: 'offline-pins' }, 'Pinned key fingerprints', pins),
      el('p', {}, run),
      out);

    async function verifyAll() {
      out.replaceChildren(el('p', { class: 'muted' }, 'Verifying…'));
      var verifier;
      try {
        var pinList = pins.value.split(/[\s,]+/).filter(Boolean);
        verifier = await V.createVerifier(keysText, { pins: pinList });
      } catch (e) {
        out.replaceChildren(el('p', { class: 'problems', role: 'alert', id: 'offline-keys-error' }, 'Keys document refused: ' + (e.message || e)));
        return;
      }
      var entries = V.splitReceipts(receiptsText);
      var started = performance.now();
      // Many at once: WebCrypto checks signatures on its own threads.
      var results = await verifier.verifyAll(entries, 64);
      var ms = performance.now() - started;
      var valid = results.filter(function (r) { return r.valid; }).length;
      // Chains: receipts grouped by authorization_id, in file order.
      var groups = new Map();
      results.forEach(function (r) {
        var id = r.facts && r.facts.authorizationId;
        if (!id) return;
        if (!groups.has(id)) groups.set(id, []);
        groups.get(id).push(r);
      });
      var chainRows = [];
      groups.forEach(function (list, id) {
        var report = V.checkChain(list);
        chainRows.push(el('li', { 'data-chain': id },
          el('code', {}, id), ': ',
          report.problems.length === 0
            ? el('span', { class: 'verdict valid' }, '✓ chain valid (' + list.length + ' receipts)')
            : el('span', { class: 'verdict invalid' }, '✗ ' + report.problems.map(function (p) { return p.kind; }).join(', '))));
      });
      var rows = entries.map(function (entry, i) {
        var r = results[i];
        return el('tr', {},
          el('td', { 'data-label': 'Item' }, entry.label),
          el('td', { 'data-label': 'Receipt' }, el('code', {}, r.receiptId || '—')),
          el('td', { 'data-label': 'Verdict' }, verdictNode(r)),
          el('td', { 'data-label': 'Detail' }, r.message));
      });
      out.replaceChildren(
        el('p', { id: 'offline-summary' }, el('strong', {}, valid + ' of ' + entries.length + ' valid'),
          ' · workspace ', el('code', {}, verifier.workspaceId), ' · ', ms.toFixed(0) + ' ms, no server call'),
        chainRows.length ? el('div', {}, el('h3', {}, 'Chains'), el('ul', { id: 'offline-chains' }, chainRows)) : null,
        el('div', { class: 'table-wrap' }, el('table', { class: 'stack' },
          el('thead', {}, el('tr', {}, ['Item', 'Receipt', 'Verdict', 'Detail'].map(function (c) { return el('th', { scope: 'col' }, c); }))),
          el('tbody', { id: 'offline-rows' }, rows))));
    }
  }

  root.AgentAuthOffline = { mount: mount };
})(globalThis);
