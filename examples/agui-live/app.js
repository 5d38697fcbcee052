// Renders a conversation's AG-UI events, streamed live by @agdx/agui's SSE endpoint.
// Open /?threadId=<conversation> (and optionally &endpoint=/agui). No build step.

const params = new URLSearchParams(location.search);
const threadId = params.get('threadId') ?? '';
const endpoint = params.get('endpoint') ?? '/agui';

const $ = (id) => document.getElementById(id);
const messages = $('messages');
const items = new Map();
let state;

$('thread').textContent = threadId;

function item(id, className, label) {
  let entry = items.get(id);
  if (entry === undefined) {
    const node = document.createElement('div');
    node.className = `item ${className} open`;
    node.dataset.id = id;
    const title = document.createElement('span');
    title.className = 'label';
    title.textContent = label;
    const body = document.createElement('span');
    body.className = 'body';
    node.append(title, body);
    messages.append(node);
    entry = { node, body };
    items.set(id, entry);
  }
  return entry;
}

function setRun(text, status) {
  const node = $('run-status');
  node.textContent = text;
  node.dataset.state = status;
}

// A small RFC 6902 applier for the page; the package itself folds state with @agdx/wire.
function pointer(path) {
  if (path === '') return [];
  return path.slice(1).split('/').map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
}
function parentOf(doc, tokens) {
  let node = doc;
  for (const token of tokens.slice(0, -1)) node = node[token];
  return [node, tokens[tokens.length - 1]];
}
function applyPatch(doc, patch) {
  let root = structuredClone(doc ?? {});
  for (const op of patch) {
    const tokens = pointer(op.path);
    if (tokens.length === 0) {
      if (op.op === 'add' || op.op === 'replace') root = structuredClone(op.value);
      continue;
    }
    const [parent, key] = parentOf(root, tokens);
    const value = op.op === 'copy' || op.op === 'move' ? (() => { const [p, k] = parentOf(root, pointer(op.from)); return structuredClone(p[k]); })() : op.value;
    if (op.op === 'move') { const [p, k] = parentOf(root, pointer(op.from)); Array.isArray(p) ? p.splice(Number(k), 1) : delete p[k]; }
    if (op.op === 'remove') Array.isArray(parent) ? parent.splice(Number(key), 1) : delete parent[key];
    else if (op.op === 'replace') parent[key] = value;
    else if (op.op === 'add' || op.op === 'copy' || op.op === 'move') {
      if (Array.isArray(parent)) parent.splice(key === '-' ? parent.length : Number(key), 0, value);
      else parent[key] = value;
    }
  }
  return root;
}
// A record shown whole at once (the agdx.* CUSTOM events carry complete records).
let unnamed = 0;
function record(value, className, label) {
  const entry = item(value.id ?? `record:${(unnamed += 1)}`, className, label);
  entry.body.textContent = value.text;
  entry.node.classList.remove('open');
  if (value.error === true) entry.node.classList.add('failed');
}
const route = (value) => `${value.from} → ${value.to ?? 'every agent'}`;
const TURN_STATUS = {
  working: ['working', 'started'],
  finished: ['finished', 'finished'],
  input_required: ['waiting for input', 'started'],
};

// The opt-in agdx.* CUSTOM events of @agdx/agui (the live page's handler turns them on).
const custom = {
  'agdx.user_input': (v) => record(v, 'user', `user · ${v.from}`),
  'agdx.command': (v) => record(v, 'command', `step · ${route(v)}${v.operation ? ` · ${v.operation}` : ''}${v.tool ? ` · tool ${v.tool}` : ''}`),
  'agdx.reply': (v) => record(v, 'reply', `${v.error ? 'error' : 'reply'} · ${route(v)}`),
  'agdx.input_request': (v) => record(v, 'approval', `input requested · ${route(v)}`),
  'agdx.input_response': (v) => record(v, 'approval', `human input · ${v.from}`),
  'agdx.turn': (v) => {
    if (v.status === 'error') setRun(`error: ${v.message ?? 'the turn failed'}`, 'error');
    else setRun(...(TURN_STATUS[v.status] ?? [v.status, 'started']));
  },
};

function showState() {
  $('state').textContent = JSON.stringify(state, null, 2);
}

const handlers = {
  RUN_STARTED: () => setRun('started', 'started'),
  RUN_FINISHED: () => setRun('finished', 'finished'),
  RUN_ERROR: (e) => setRun(`error: ${e.message}`, 'error'),
  TEXT_MESSAGE_START: (e) => item(e.messageId, 'text', e.role ?? 'assistant'),
  TEXT_MESSAGE_CONTENT: (e) => (item(e.messageId, 'text', 'assistant').body.textContent += e.delta),
  TEXT_MESSAGE_END: (e) => item(e.messageId, 'text', 'assistant').node.classList.remove('open'),
  REASONING_MESSAGE_START: (e) => item(e.messageId, 'reasoning', 'reasoning'),
  REASONING_MESSAGE_CONTENT: (e) => (item(e.messageId, 'reasoning', 'reasoning').body.textContent += e.delta),
  REASONING_MESSAGE_END: (e) => item(e.messageId, 'reasoning', 'reasoning').node.classList.remove('open'),
  TOOL_CALL_START: (e) => item(e.toolCallId, 'tool', `tool call: ${e.toolCallName}`),
  TOOL_CALL_ARGS: (e) => (item(e.toolCallId, 'tool', 'tool call').body.textContent += e.delta),
  TOOL_CALL_END: (e) => item(e.toolCallId, 'tool', 'tool call').node.classList.remove('open'),
  TOOL_CALL_RESULT: (e) => {
    const entry = item(`result:${e.messageId}`, 'result', 'tool result');
    entry.body.textContent = e.content;
    entry.node.classList.remove('open');
  },
  STATE_SNAPSHOT: (e) => { state = e.snapshot; showState(); },
  STATE_DELTA: (e) => { state = applyPatch(state, e.delta); showState(); },
  CUSTOM: (e) => custom[e.name]?.(e.value),
};

function showProblem(text) {
  const node = $('problem');
  node.textContent = text;
  node.classList.add('shown');
}

// When the server refused the stream (a 4xx is not an event stream, so EventSource gives up
// instead of reconnecting), ask once more for the reason it gave. The server decides what a
// thread id is; the page shows its answer.
async function explainRefusal(url) {
  try {
    const response = await fetch(url, { headers: { accept: 'application/json' } });
    const body = await response.json();
    return `The server refused this thread (HTTP ${response.status}): ${body?.error?.message ?? 'no reason given'}`;
  } catch {
    return 'The server refused this thread.';
  }
}

const url = `${endpoint}?threadId=${encodeURIComponent(threadId)}`;
const source = new EventSource(url);
source.onopen = () => ($('connection').textContent = 'live');
source.onerror = async () => {
  if (source.readyState !== EventSource.CLOSED) {
    $('connection').textContent = 'reconnecting';
    return;
  }
  $('connection').textContent = 'refused';
  setRun(threadId === '' ? 'no thread id' : 'bad thread id', 'error');
  showProblem(await explainRefusal(url));
};
source.onmessage = (message) => {
  const event = JSON.parse(message.data);
  handlers[event.type]?.(event);
};
