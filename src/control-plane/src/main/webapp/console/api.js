// The console's only way out: /api/v1 on this control plane, with the API key from sessionStorage
// (gone when the tab closes; never localStorage, a cookie or a URL).

const KEY = 'dockyard.apiKey';
const BASE = new URL('../api/v1', document.baseURI).pathname;

export const session = {
  key: () => sessionStorage.getItem(KEY),
  keep: (key) => sessionStorage.setItem(KEY, key),
  forget: () => sessionStorage.removeItem(KEY),
};

/** A refused call: the HTTP status and the problem+json body (title, detail, ...). */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

async function refusal(res) {
  let problem = {};
  try {
    problem = await res.json();
  } catch {
    // not problem+json (e.g. a proxy's page): the status says enough
  }
  return new ApiError(res.status, problem);
}

/** Calls the API; a JSON body for plain objects, FormData as multipart. Answers parsed JSON or the Response (raw). */
export async function api(path, { method = 'GET', body, headers = {}, raw = false, signal } = {}) {
  const sent = { 'X-API-Key': session.key() || '', Accept: 'application/json, application/problem+json', ...headers };
  let payload = body;
  if (body !== undefined && !(body instanceof FormData)) {
    sent['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await fetch(BASE + path, { method, headers: sent, body: payload, signal, cache: 'no-store', credentials: 'omit' });
  if (!res.ok) {
    throw await refusal(res);
  }
  if (raw) {
    return res;
  }
  const text = await res.text();
  return text ? JSON.parse(text) : null;
}

/**
 * Reads a text/event-stream with fetch (EventSource cannot send X-API-Key): calls onOpen once the
 * answer's headers are in, onEvent({event, id, data}) per event (data parsed as JSON), and returns
 * when the server ends the stream. Abort it with the signal.
 */
export async function stream(path, { onOpen = () => {}, onEvent, signal }) {
  const res = await fetch(BASE + path, {
    headers: { 'X-API-Key': session.key() || '', Accept: 'text/event-stream' }, signal, cache: 'no-store', credentials: 'omit',
  });
  if (!res.ok) {
    throw await refusal(res);
  }
  onOpen();
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) {
      return;
    }
    buffer += value;
    let end;
    while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
      const event = { event: 'message', id: null, data: [] };
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith(':')) {
          continue;
        }
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const val = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event.event = val;
        else if (field === 'id') event.id = val;
        else if (field === 'data') event.data.push(val);
      }
      if (event.data.length) {
        const text = event.data.join('\n');
        try {
          event.data = JSON.parse(text);
        } catch {
          event.data = text;
        }
        onEvent(event);
      }
    }
  }
}
