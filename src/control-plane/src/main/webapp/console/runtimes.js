// Runtimes: the list with live status and filters, the provision form, and one runtime's page.
import { api, stream } from './api.js';
import { h, status, table, field, when, showError, showInfo, confirmAction } from './dom.js';

const STATUSES = ['STARTING_RUNTIME', 'BUILDING_RUNTIME', 'RUNTIME_STARTED', 'READY', 'PAUSED', 'HIBERNATED',
  'ERROR_RUNTIME_DISCONNECTED', 'STOPPED', 'ERROR'];

/** Keeps a stream open for the view's life, reopening it after a drop (bounded: once per 3 s). */
function follow(ctx, path, handlers) {
  const loop = async () => {
    while (!ctx.signal.aborted) {
      try {
        await stream(path, { ...handlers, signal: ctx.signal });
        if (handlers.endsByItself) return;
      } catch (err) {
        if (ctx.signal.aborted) return;
        if (err.status === 401) return ctx.onUnauthorized();
        // a refusal stays one; a server that is starting or overloaded (5xx) is asked again
        if (err.status) handlers.onError?.(err);
        if (err.status && err.status < 500) return;
      }
      await new Promise((r) => setTimeout(r, 3000));
    }
  };
  loop();
}

export async function runtimesView(ctx) {
  const admin = ctx.me.role === 'admin';
  const rows = new Map();
  let runtimes = [];
  const body = h('tbody', {});
  const live = h('p', { id: 'live', class: 'message', role: 'status' }, 'Connecting to the live stream…');
  const userFilter = h('select', { id: 'filter-user' }, h('option', { value: '' }, 'All users'));
  const statusFilter = h('select', { id: 'filter-status' }, h('option', { value: '' }, 'Any status'),
    STATUSES.map((s) => h('option', { value: s }, s)));
  const nodeFilter = h('select', { id: 'filter-node' }, h('option', { value: '' }, 'Any node'));

  const options = (select, values) => {
    const chosen = select.value;
    select.replaceChildren(select.firstChild, ...[...values].sort().map((v) => h('option', { value: v }, v)));
    select.value = chosen;
  };

  const render = () => {
    options(userFilter, new Set(runtimes.map((r) => r.userId)));
    options(nodeFilter, new Set(runtimes.map((r) => r.node).filter(Boolean)));
    const shown = runtimes.filter((r) => (!userFilter.value || r.userId === userFilter.value)
      && (!statusFilter.value || r.status === statusFilter.value) && (!nodeFilter.value || r.node === nodeFilter.value));
    rows.clear();
    body.replaceChildren(...shown.map((r) => {
      const cell = h('td', { class: 'status-cell' }, status(r.status));
      const row = h('tr', { 'data-runtime-id': r.id },
        h('td', { class: 'mono' }, h('a', { href: `#/runtimes/${encodeURIComponent(r.id)}` }, r.id)),
        h('td', {}, r.conversationId), h('td', {}, r.userId), cell, h('td', {}, r.node || '—'),
        h('td', {}, r.image), h('td', {}, when(r.createdAt)));
      rows.set(r.id, row);
      return row;
    }));
    if (!shown.length) body.append(h('tr', {}, h('td', { colspan: 7 }, 'No runtimes match.')));
  };

  const load = async () => {
    runtimes = (await api('/runtimes', { signal: ctx.signal })).runtimes;
    render();
  };

  for (const select of [userFilter, statusFilter, nodeFilter]) select.addEventListener('change', render);

  // the stream is opened before the list is read, so no transition falls between the two
  follow(ctx, '/runtimes/events', {
    onOpen: () => {
      showInfo(live, 'Live: statuses update as they change.');
      load().catch((err) => showError(live, err));
    },
    onEvent: ({ event, data }) => {
      if (event !== 'status') return;
      const known = runtimes.find((r) => r.id === data.runtimeId);
      if (!known) {
        load().catch((err) => showError(live, err));
        return;
      }
      known.status = data.status;
      if (data.node) known.node = data.node;
      render();
    },
    onError: (err) => showError(live, err),
  });

  const conversation = h('input', { id: 'provision-conversation', required: true, maxlength: 200 });
  const image = h('input', { id: 'provision-image', placeholder: 'default image' });
  const cpus = h('input', { id: 'provision-cpus', type: 'number', step: '0.1', min: '0.1', placeholder: 'default' });
  const memory = h('input', { id: 'provision-memory', type: 'number', step: '64', min: '64', placeholder: 'default' });
  const message = h('p', { id: 'provision-message', class: 'message' });
  const form = h('form', { id: 'provision', class: 'row' },
    field('Conversation id', conversation), field('Image', image), field('CPUs', cpus), field('Memory (MB)', memory),
    h('button', { id: 'provision-button', type: 'submit' }, 'Provision'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const sandbox = {};
    if (image.value.trim()) sandbox.image = image.value.trim();
    if (cpus.value) sandbox.cpus = Number(cpus.value);
    if (memory.value) sandbox.memoryMb = Number(memory.value);
    const request = { conversationId: conversation.value.trim() };
    if (Object.keys(sandbox).length) request.sandbox = sandbox;
    try {
      const runtime = await api('/runtimes', { method: 'POST', body: request });
      showInfo(message, `Runtime ${runtime.id} is ${runtime.status}.`);
      conversation.value = '';
      await load();
    } catch (err) {
      showError(message, err);
    }
  });

  return h('div', {},
    h('h1', {}, admin ? 'Runtimes' : 'My runtimes'),
    h('section', { class: 'panel' }, h('h2', {}, 'Provision a runtime'), form, message),
    h('section', { class: 'panel' },
      h('div', { class: 'row' }, admin ? field('User', userFilter) : null, field('Status', statusFilter), field('Node', nodeFilter)),
      live,
      table('runtimes', ['Runtime', 'Conversation', 'User', 'Status', 'Node', 'Image', 'Created'], body)));
}

function quote(path) {
  return `'${path.replaceAll("'", "'\\''")}'`;
}

export async function runtimeView(ctx, id) {
  let runtime = await api(`/runtimes/${encodeURIComponent(id)}`, { signal: ctx.signal });
  const admin = ctx.me.role === 'admin';
  const badge = h('span', { id: 'runtime-status' }, status(runtime.status));
  const facts = h('dl', { class: 'facts' });
  const actionsMessage = h('p', { id: 'runtime-message', class: 'message' });
  const history = h('ol', { id: 'history', class: 'history' });

  const showFacts = () => {
    badge.replaceChildren(status(runtime.status));
    const items = [['Conversation', runtime.conversationId], ['User', runtime.userId], ['Node', runtime.node || '—'],
      ['Image', runtime.runtimeImage || runtime.image], ['CPUs', runtime.resources.cpus], ['Memory', `${runtime.resources.memoryMb} MB`],
      ['Created', when(runtime.createdAt)], ['Ready', when(runtime.readyAt)], ['Agent', runtime.agent || '—'],
      ['Message', runtime.statusMessage || '—']];
    facts.replaceChildren(...items.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, String(v))]));
    for (const [button, allowed] of [[pause, ['READY']], [resume, ['PAUSED', 'HIBERNATED']], [migrate, ['READY']]]) {
      button.disabled = !allowed.includes(runtime.status);
    }
    remove.disabled = ['STOPPED', 'ERROR'].includes(runtime.status);
  };
  const refresh = async () => {
    try {
      runtime = await api(`/runtimes/${encodeURIComponent(id)}`, { signal: ctx.signal });
    } catch (err) {
      if (err.status === 404) {
        runtime = { ...runtime, status: 'STOPPED' };
      } else throw err;
    }
    showFacts();
  };

  const act = async (label, question, call) => {
    if (question && !(await confirmAction(question))) return;
    showInfo(actionsMessage, `${label}…`);
    try {
      await call();
      showInfo(actionsMessage, `${label}: done.`);
    } catch (err) {
      showError(actionsMessage, err);
    }
    await refresh().catch(() => {});
  };
  const path = `/runtimes/${encodeURIComponent(id)}`;
  const pause = h('button', { id: 'pause', type: 'button', class: 'secondary',
    onclick: () => act('Pause', `Pause runtime ${id}? Its processes are frozen until resumed.`, () => api(`${path}/pause`, { method: 'POST' })) }, 'Pause');
  const resume = h('button', { id: 'resume', type: 'button', class: 'secondary',
    onclick: () => act('Resume', `Resume runtime ${id}? It answers again once READY.`, () => api(`${path}/resume`, { method: 'POST' })) }, 'Resume');
  const node = h('input', { id: 'migrate-node', placeholder: 'any other node', size: 12 });
  const migrate = h('button', { id: 'migrate', type: 'button', class: 'secondary',
    onclick: () => act('Migrate', `Move runtime ${id} to ${node.value.trim() || 'another node'}? It restarts there with its workspace.`,
      () => api(`${path}/migrate`, { method: 'POST', body: node.value.trim() ? { node: node.value.trim() } : {} })) }, 'Migrate');
  const remove = h('button', { id: 'delete', type: 'button', class: 'danger',
    onclick: () => act('Delete', `Delete runtime ${id}? Its sandbox and workspace are removed.`, () => api(path, { method: 'DELETE' })) }, 'Delete');
  showFacts();

  follow(ctx, `${path}/events`, {
    endsByItself: true,
    onEvent: ({ event, data }) => {
      if (event === 'status') {
        history.append(h('li', {}, h('time', {}, when(data.at)), ' ', status(data.status), data.message ? ` ${data.message}` : ''));
        if (data.status !== runtime.status) {
          runtime.status = data.status;
          refresh().catch(() => showFacts());
        }
      } else if (event === 'progress') {
        history.append(h('li', { class: 'mono' }, `build ${data.step}/${data.steps}: ${data.line}`));
      }
      history.scrollTop = history.scrollHeight;
    },
    onError: (err) => showError(actionsMessage, err),
  });

  // terminal: each line is a "run" action; its observation is printed as the executor gave it
  const output = h('pre', { id: 'terminal-output', class: 'terminal', 'aria-live': 'polite', tabindex: 0 });
  const command = h('input', { id: 'command', autocomplete: 'off', spellcheck: false, size: 60 });
  const terminal = h('form', { id: 'terminal', class: 'row' }, field('Command', command), h('button', { id: 'run', type: 'submit' }, 'Run'));
  terminal.addEventListener('submit', async (e) => {
    e.preventDefault();
    const line = command.value;
    if (!line.trim()) return;
    command.value = '';
    output.append(`$ ${line}\n`);
    try {
      const observation = await api(`${path}/actions`, { method: 'POST', body: { action: 'run', args: { command: line } } });
      const exit = observation.extras?.metadata?.exit_code;
      output.append(`${observation.content ?? ''}\n`);
      if (exit !== undefined && exit !== 0) output.append(`[exit ${exit}]\n`);
    } catch (err) {
      output.append(`[refused] ${err.message}${err.status ? ` (HTTP ${err.status})` : ''}\n`);
    }
    output.scrollTop = output.scrollHeight;
    loadAudit();
  });

  // files: listed with ls through a run action (what the API offers), moved with /files
  const dir = h('input', { id: 'files-dir', value: '/workspace', size: 28 });
  const list = h('ul', { id: 'file-list', class: 'files' });
  const filesMessage = h('p', { id: 'files-message', class: 'message' });
  const downloadPath = h('input', { id: 'download-path', size: 28, placeholder: '/workspace/file.txt' });
  const listFiles = async () => {
    try {
      const observation = await api(`${path}/actions`, { method: 'POST', body: { action: 'run', args: { command: `ls -1Ap ${quote(dir.value)}` } } });
      if (observation.extras?.metadata?.exit_code) throw new Error(observation.content);
      const names = (observation.content || '').split('\n').map((n) => n.trim()).filter(Boolean);
      const base = dir.value.replace(/\/+$/, '');
      list.replaceChildren(h('li', {}, h('button', { type: 'button', onclick: () => { dir.value = base.replace(/\/[^/]*$/, '') || '/'; listFiles(); } }, '../')),
        ...names.map((name) => h('li', {}, h('button', { type: 'button', class: 'file', onclick: () => {
          if (name.endsWith('/')) { dir.value = `${base}/${name.slice(0, -1)}`; listFiles(); } else downloadPath.value = `${base}/${name}`;
        } }, name))));
    } catch (err) {
      showError(filesMessage, err);
    }
  };
  const upload = h('input', { id: 'upload-file', type: 'file' });
  const uploadForm = h('form', { id: 'upload', class: 'row' }, field('File to upload', upload),
    h('button', { id: 'upload-button', type: 'submit' }, 'Upload to folder'));
  uploadForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!upload.files.length) return showError(filesMessage, { message: 'Choose a file first' });
    const form = new FormData();
    form.append('file', upload.files[0]);
    try {
      await api(`${path}/files?destination=${encodeURIComponent(dir.value)}`, { method: 'POST', body: form });
      showInfo(filesMessage, `Uploaded ${upload.files[0].name} to ${dir.value}.`);
      upload.value = '';
      await listFiles();
    } catch (err) {
      showError(filesMessage, err);
    }
  });
  const downloadForm = h('form', { id: 'download', class: 'row' }, field('Path to download (as zip)', downloadPath),
    h('button', { id: 'download-button', type: 'submit' }, 'Download'));
  downloadForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const res = await api(`${path}/files?path=${encodeURIComponent(downloadPath.value)}`, { raw: true, headers: { Accept: 'application/zip, application/problem+json' } });
      const blob = await res.blob();
      const name = (res.headers.get('Content-Disposition') || '').match(/filename="?([^";]+)"?/)?.[1] || 'download.zip';
      const link = h('a', { href: URL.createObjectURL(blob), download: name });
      document.body.append(link);
      link.click();
      link.remove();
      showInfo(filesMessage, `Downloaded ${name} (${blob.size} bytes).`);
    } catch (err) {
      showError(filesMessage, err);
    }
  });

  const audit = h('tbody', {});
  const loadAudit = async () => {
    try {
      const { entries } = await api(`${path}/audit?limit=50`, { signal: ctx.signal });
      audit.replaceChildren(...entries.map((a) => h('tr', {}, h('td', {}, when(a.at)), h('td', {}, a.action), h('td', {}, a.risk),
        h('td', {}, a.decision), h('td', {}, a.status), h('td', {}, `${a.durationMs} ms`))));
    } catch (err) {
      if (!ctx.signal.aborted) audit.replaceChildren(h('tr', {}, h('td', { colspan: 6, class: 'error' }, err.message)));
    }
  };
  loadAudit();
  // actions are audited as they end; the trail is read again every 5 s while the page is open
  const auditTimer = setInterval(loadAudit, 5000);
  ctx.signal.addEventListener('abort', () => clearInterval(auditTimer));

  return h('div', {},
    h('p', {}, h('a', { href: '#/runtimes' }, '← Runtimes')),
    h('h1', {}, 'Runtime ', h('span', { class: 'mono' }, id), ' ', badge),
    h('div', { class: 'grid' },
      h('section', { class: 'panel' }, h('h2', {}, 'Details and resources'), facts,
        h('div', { class: 'row' }, pause, resume, admin ? field('Node', node) : null, migrate, remove), actionsMessage),
      h('section', { class: 'panel' }, h('h2', {}, 'History and events'), history)),
    h('section', { class: 'panel' }, h('h2', {}, 'Terminal'), terminal, output),
    h('section', { class: 'panel' }, h('h2', {}, 'Files'),
      h('div', { class: 'row' }, field('Folder', dir), h('button', { id: 'list-files', type: 'button', class: 'secondary', onclick: listFiles }, 'List')),
      list, uploadForm, downloadForm, filesMessage),
    h('section', { class: 'panel' }, h('h2', {}, 'Audit'),
      table('audit', ['When', 'Action', 'Risk', 'Decision', 'Status', 'Took'], audit)));
}
