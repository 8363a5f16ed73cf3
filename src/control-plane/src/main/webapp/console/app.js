// The console's shell: login, navigation by the URL's #fragment, one view at a time.
import { api, session } from './api.js';
import { h, showError } from './dom.js';
import { runtimesView, runtimeView } from './runtimes.js';
import { imagesView, usersView, nodesView, poolsView } from './admin.js';

const view = document.getElementById('view');
const nav = document.getElementById('nav');
const whoami = document.getElementById('whoami');
const logout = document.getElementById('logout');
let me = null;
/** Aborted when the view changes: ends the view's streams and timers. */
let leaving = new AbortController();

const routes = [
  [/^#\/runtimes\/([^/]+)$/, (m, ctx) => runtimeView(ctx, decodeURIComponent(m[1]))],
  [/^#\/images$/, (m, ctx) => imagesView(ctx), true],
  [/^#\/users$/, (m, ctx) => usersView(ctx), true],
  [/^#\/nodes$/, (m, ctx) => nodesView(ctx), true],
  [/^#\/pools$/, (m, ctx) => poolsView(ctx), true],
  [/^#\/runtimes$/, (m, ctx) => runtimesView(ctx)],
];

function loginView(reason) {
  nav.hidden = true;
  logout.hidden = true;
  whoami.textContent = '';
  const input = h('input', { id: 'api-key', type: 'password', name: 'apiKey', autocomplete: 'off', required: true });
  const error = h('p', { id: 'login-error', class: 'message' });
  const form = h('form', { id: 'login' },
    h('h1', {}, 'Log in'),
    h('label', { for: 'api-key' }, 'API key'), input,
    h('p', { class: 'muted' }, 'Kept in this browser tab only, and sent as X-API-Key to this control plane.'),
    h('button', { id: 'login-button', type: 'submit' }, 'Log in'), error);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    session.keep(input.value.trim());
    try {
      await start();
    } catch (err) {
      session.forget();
      showError(error, err.status === 401 ? { message: 'That API key was refused: check it and try again', status: 401 } : err);
      input.focus();
    }
  });
  view.replaceChildren(h('section', { class: 'panel login' }, form));
  if (reason) showError(error, reason);
  input.focus();
}

async function start() {
  me = await api('/users/me');
  whoami.textContent = `${me.userId} (${me.role})`;
  nav.hidden = false;
  logout.hidden = false;
  for (const link of nav.querySelectorAll('[data-admin]')) link.hidden = me.role !== 'admin';
  if (!location.hash || location.hash === '#/login') location.hash = '#/runtimes';
  else route();
}

async function route() {
  if (!me) return;
  leaving.abort();
  leaving = new AbortController();
  const hash = location.hash || '#/runtimes';
  const found = routes.find(([re]) => re.test(hash)) || routes[routes.length - 1];
  const [re, render, adminOnly] = found;
  for (const link of nav.querySelectorAll('a')) {
    link.toggleAttribute('aria-current', hash.startsWith(link.getAttribute('href')));
    if (link.hasAttribute('aria-current')) link.setAttribute('aria-current', 'page');
  }
  if (adminOnly && me.role !== 'admin') {
    view.replaceChildren(h('p', { class: 'message error', role: 'alert' }, 'Only admins see this page.'));
    return;
  }
  const ctx = { me, signal: leaving.signal, onUnauthorized: () => signOut('Your key was refused; log in again') };
  try {
    view.replaceChildren(await render(hash.match(re), ctx));
    view.focus();
  } catch (err) {
    if (err.status === 401) ctx.onUnauthorized();
    else view.replaceChildren(h('p', { class: 'message error', role: 'alert' }, `${err.message}${err.status ? ` (HTTP ${err.status})` : ''}`));
  }
}

function signOut(reason) {
  session.forget();
  me = null;
  leaving.abort();
  history.replaceState(null, '', '#/login');
  loginView(reason ? { message: reason } : null);
}

logout.addEventListener('click', () => signOut());
window.addEventListener('hashchange', route);

if (session.key()) {
  start().catch(() => signOut('Your key was refused; log in again'));
} else {
  loginView();
}
