// Admin pages: image builds, users (quotas, usage, keys), nodes and their health, warm pools.
import { api } from './api.js';
import { h, status, table, field, when, showError, showInfo, confirmAction } from './dom.js';

/** Repeats fn every ms until the view is left (bounded by the view's life). */
function every(ctx, ms, fn) {
  const timer = setInterval(() => fn().catch(() => {}), ms);
  ctx.signal.addEventListener('abort', () => clearInterval(timer));
}

export async function imagesView(ctx) {
  const images = h('tbody', {});
  const loadImages = async () => {
    const { images: list } = await api('/images', { signal: ctx.signal });
    images.replaceChildren(...list.map((i) => h('tr', {}, h('td', { class: 'mono' }, i.tags.join(', ') || i.id.slice(0, 19)),
      h('td', {}, i.baseImage || '—'), h('td', {}, `${Math.round(i.sizeBytes / 1048576)} MB`))));
  };
  await loadImages();
  const base = h('input', { id: 'build-base', required: true, placeholder: 'e.g. python:3.12-slim', size: 30 });
  const apt = h('input', { id: 'build-apt', placeholder: 'apt packages, space separated', size: 30 });
  const force = h('input', { id: 'build-force', type: 'checkbox' });
  const message = h('p', { id: 'build-message', class: 'message' });
  const builds = h('tbody', {});
  const watch = (build) => {
    const progress = h('progress', { max: Math.max(build.steps, 1), value: build.step });
    const state = h('td', {}, status(build.status));
    const detail = h('td', {}, `${build.step}/${build.steps}`);
    builds.prepend(h('tr', { 'data-build-id': build.id }, h('td', { class: 'mono' }, build.id), h('td', {}, build.baseImage),
      h('td', {}, build.node), state, h('td', {}, progress), detail));
    const poll = async () => {
      const b = await api(`/images/builds/${encodeURIComponent(build.id)}`, { signal: ctx.signal });
      state.replaceChildren(status(b.status));
      progress.max = Math.max(b.steps, 1);
      progress.value = b.step;
      detail.textContent = `${b.step}/${b.steps}${b.path ? ` · ${b.path}` : ''}${b.error ? ` · ${b.error}` : ''}`;
      if (['SUCCEEDED', 'FAILED'].includes(b.status)) {
        loadImages().catch(() => {});
        return;
      }
      if (!ctx.signal.aborted) setTimeout(() => poll().catch((err) => showError(message, err)), 1000);
    };
    poll().catch((err) => showError(message, err));
  };
  const form = h('form', { id: 'build', class: 'row' }, field('Base image', base), field('Extra apt packages', apt),
    h('label', { class: 'inline' }, 'Rebuild', force), h('button', { type: 'submit' }, 'Build'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const request = { baseImage: base.value.trim(), force: force.checked };
    const packages = apt.value.split(/\s+/).filter(Boolean);
    if (packages.length) request.extraDeps = { apt: packages };
    try {
      const build = await api('/images/builds', { method: 'POST', body: request });
      showInfo(message, `Build ${build.id} ${build.status}.`);
      watch(build);
    } catch (err) {
      showError(message, err);
    }
  });
  return h('div', {}, h('h1', {}, 'Image builds'),
    h('section', { class: 'panel' }, h('h2', {}, 'Build a runtime image'), form, message,
      table('builds', ['Build', 'Base image', 'Node', 'Status', 'Progress', 'Step'], builds)),
    h('section', { class: 'panel' }, h('h2', {}, 'Runtime images (default node)'),
      table('images', ['Tags', 'Base image', 'Size'], images)));
}

function quota(q, key) {
  return q[key] === null || q[key] === undefined ? 'default' : q[key];
}

export async function usersView(ctx) {
  const body = h('tbody', {});
  const message = h('p', { id: 'users-message', class: 'message' });
  const newKey = h('div', { id: 'new-key' });
  const showKey = (userId, key) => newKey.replaceChildren(h('p', {}, `API key of ${userId}, shown this once:`),
    h('output', { class: 'key', id: 'new-key-value' }, key));
  const load = async () => {
    const { users } = await api('/users', { signal: ctx.signal });
    body.replaceChildren(...users.map((u) => h('tr', { 'data-user-id': u.userId },
      h('td', {}, u.userId), h('td', {}, u.role),
      h('td', {}, `${u.usage.runtimes} / ${quota(u.quota, 'maxRuntimes')}`),
      h('td', {}, `${u.usage.cpus} / ${quota(u.quota, 'maxCpus')}`),
      h('td', {}, `${u.usage.memoryMb} / ${quota(u.quota, 'maxMemoryMb')}`),
      h('td', {}, h('div', { class: 'row' },
        h('button', { type: 'button', class: 'secondary rotate', 'aria-label': `Rotate the key of ${u.userId}`, onclick: async () => {
          if (!(await confirmAction(`Rotate the key of ${u.userId}? Their current key stops working now.`))) return;
          try {
            const answer = await api(`/users/${encodeURIComponent(u.userId)}/keys`, { method: 'POST' });
            showKey(u.userId, answer.apiKey);
            showInfo(message, `Key of ${u.userId} rotated.`);
          } catch (err) {
            showError(message, err);
          }
        } }, 'Rotate key'),
        h('button', { type: 'button', class: 'danger delete-user', 'aria-label': `Delete ${u.userId}`, disabled: u.userId === ctx.me.userId, onclick: async () => {
          if (!(await confirmAction(`Delete user ${u.userId}? Their ${u.usage.runtimes} live runtime(s) are deleted first.`))) return;
          try {
            await api(`/users/${encodeURIComponent(u.userId)}`, { method: 'DELETE' });
            // the list first: the message then speaks of what the page shows
            await load();
            showInfo(message, `User ${u.userId} deleted.`);
          } catch (err) {
            showError(message, err);
          }
        } }, 'Delete'))))));
  };
  await load();
  const userId = h('input', { id: 'user-id', required: true, maxlength: 200 });
  const role = h('select', { id: 'user-role' }, h('option', { value: 'user' }, 'user'), h('option', { value: 'admin' }, 'admin'));
  const form = h('form', { id: 'create-user', class: 'row' }, field('User id', userId), field('Role', role),
    h('button', { type: 'submit' }, 'Create user'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const answer = await api('/users', { method: 'POST', body: { userId: userId.value.trim(), role: role.value } });
      showKey(answer.userId, answer.apiKey);
      showInfo(message, `User ${answer.userId} created.`);
      userId.value = '';
      await load();
    } catch (err) {
      showError(message, err);
    }
  });
  return h('div', {}, h('h1', {}, 'Users'),
    h('section', { class: 'panel' }, h('h2', {}, 'Create a user'), form, message, newKey),
    h('section', { class: 'panel' }, h('h2', {}, 'Users, quotas and usage (live runtimes)'),
      table('users', ['User', 'Role', 'Runtimes', 'CPUs', 'Memory (MB)', ''], body)));
}

export async function nodesView(ctx) {
  const body = h('tbody', {});
  const load = async () => {
    const { nodes } = await api('/nodes', { signal: ctx.signal });
    body.replaceChildren(...nodes.map((n) => h('tr', { 'data-node': n.name }, h('td', {}, n.name), h('td', {}, n.type),
      h('td', {}, h('span', { class: `status ${n.healthy ? 'healthy' : 'unhealthy'}` }, n.healthy ? 'healthy' : 'unhealthy'),
        n.error ? ` ${n.error}` : ''),
      h('td', {}, when(n.lastCheckedAt)), h('td', {}, `${n.runtimes} / ${n.capacity.maxRuntimes ?? '∞'}`),
      h('td', {}, `${n.memoryMb} / ${n.capacity.maxMemoryMb ?? '∞'}`))));
  };
  await load();
  every(ctx, 5000, load);
  return h('div', {}, h('h1', {}, 'Nodes'), h('section', { class: 'panel' },
    h('p', { class: 'message' }, 'Health as the control plane last checked it; refreshed every 5 s.'),
    table('nodes', ['Node', 'Type', 'Health', 'Checked', 'Runtimes', 'Memory (MB)'], body)));
}

export async function poolsView(ctx) {
  const body = h('tbody', {});
  const load = async () => {
    const { pools } = await api('/pools', { signal: ctx.signal });
    body.replaceChildren(...pools.map((p) => h('tr', {}, h('td', {}, p.name), h('td', { class: 'mono' }, p.image), h('td', {}, p.node),
      h('td', {}, p.size), h('td', {}, p.ready), h('td', {}, p.booting), h('td', {}, p.claimed), h('td', {}, `${p.hits} / ${p.misses}`))));
    if (!pools.length) body.append(h('tr', {}, h('td', { colspan: 8 }, 'No warm pools defined.')));
  };
  await load();
  every(ctx, 5000, load);
  return h('div', {}, h('h1', {}, 'Warm pools'), h('section', { class: 'panel' },
    table('pools', ['Pool', 'Image', 'Node', 'Size', 'Ready', 'Booting', 'Claimed', 'Hits / misses'], body)));
}
