// Small DOM helpers: elements are built, never parsed from strings, so nothing the API returns can
// become markup or script.

/** h('button', {id: 'x', onclick: f}, 'text', child...) */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
    else if (name === 'class') el.className = value;
    else if (name in el && typeof value !== 'string') el[name] = value;
    else el.setAttribute(name, value === true ? '' : value);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

export function status(value) {
  return h('span', { class: `status status-${value}` }, value);
}

/** A table with column headers around a tbody the caller keeps filling. */
export function table(id, headers, body) {
  return h('table', { id }, h('thead', {}, h('tr', {}, headers.map((t) => h('th', { scope: 'col' }, t)))), body);
}

export function field(label, input) {
  return h('label', {}, label, input);
}

export function when(iso) {
  return iso ? new Date(iso).toLocaleString() : '—';
}

/** Shows a problem (or any error) in a message element, for screen readers too (role=alert). */
export function showError(el, error) {
  el.className = 'message error';
  el.setAttribute('role', 'alert');
  el.textContent = error.status ? `${error.message} (HTTP ${error.status})` : String(error.message || error);
}

export function showInfo(el, text) {
  el.className = 'message';
  el.setAttribute('role', 'status');
  el.textContent = text;
}

/** Asks in the page's modal dialog; resolves true when confirmed. */
export function confirmAction(text) {
  const dialog = document.getElementById('confirm');
  document.getElementById('confirm-text').textContent = text;
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'yes'), { once: true });
    dialog.returnValue = '';
    dialog.showModal();
    document.getElementById('confirm-no').focus();
  });
}
