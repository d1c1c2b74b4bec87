// DOM helpers. Text always goes in as text nodes (never innerHTML), so nothing the server or a
// receipt says can become markup.

/** h('button', {class: 'x', onclick: fn}, 'text', child...) */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      el.addEventListener(name.slice(2), value);
    } else if (name === 'dataset') {
      Object.assign(el.dataset, value);
    } else if (value === true) {
      el.setAttribute(name, '');
    } else {
      el.setAttribute(name, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

export function badge(text, kind) {
  return h('span', { class: 'badge ' + (kind || text) }, text);
}

/** A definition list from [label, value] pairs; null values show as an em dash. */
export function kv(pairs) {
  return h('dl', { class: 'kv' }, pairs.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v === null || v === undefined || v === '' ? '—' : v)]));
}

export function code(text) {
  return h('code', {}, text);
}

/** A time as the user's local time, with the exact instant in the title. */
export function time(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return h('time', { datetime: iso, title: iso }, d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' }));
}

/** "in 3 h" / "5 min ago" relative to now. */
export function relative(iso) {
  const ms = new Date(iso).getTime() - Date.now();
  const abs = Math.abs(ms);
  const unit = abs < 3600e3 ? [60e3, 'min'] : abs < 86400e3 ? [3600e3, 'h'] : [86400e3, 'd'];
  const n = Math.max(1, Math.round(abs / unit[0]));
  return ms >= 0 ? 'in ' + n + ' ' + unit[1] : n + ' ' + unit[1] + ' ago';
}

export function table(columns, rows, opts) {
  return h('div', { class: 'table-wrap' },
    h('table', { class: 'stack' },
      opts && opts.caption ? h('caption', { class: 'sr-only' }, opts.caption) : null,
      h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, rows.length === 0
        ? h('tr', {}, h('td', { colspan: columns.length, class: 'muted' }, (opts && opts.empty) || 'Nothing here.'))
        : rows.map((cells) => h('tr', {}, cells.map((cell, i) => h('td', { 'data-label': columns[i] }, cell)))))));
}

let toastTimer = null;
export function toast(message, isError) {
  const el = document.getElementById('toast');
  el.textContent = message;
  el.className = 'toast' + (isError ? ' error' : '');
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.hidden = true; }, isError ? 8000 : 4000);
}

/** A modal confirmation; resolves true when the user confirms. */
export function confirmDialog(title, text, okLabel) {
  const dialog = document.getElementById('confirm-dialog');
  document.getElementById('confirm-title').textContent = title;
  document.getElementById('confirm-text').textContent = text;
  document.getElementById('confirm-ok').textContent = okLabel || 'Confirm';
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
    dialog.returnValue = 'cancel';
    dialog.showModal();
    document.getElementById('confirm-cancel').focus();
  });
}
