import { InvalidError } from '../errors.js';
import { isAgentKind } from '../dictionaries/agent-kind.js';
import { isTerminalTaskState, TaskState } from '../dictionaries/task-state.js';
import { utf8Length } from '../ids/utf8.js';
import type { AgentEnvelope } from './agent-envelope.js';
import { checkFieldShapes } from './field-shapes.js';
import { checkMetadataCaps } from './metadata-caps.js';
import {
  decodeSessionEnd,
  decodeSessionStart,
  decodeSessionTransition,
  sessionBodyLooksLikeStart,
  validateSessionStart,
} from './session-bodies.js';

/** Cap on `operation`, `tool` and `finish_reason`, in UTF-8 bytes. */
export const MAX_AGENT_STRING_BYTES = 256;
/** Ed25519 key id length. */
export const ED25519_KEY_ID_BYTES = 8;
/** Ed25519 signature length. */
export const ED25519_SIGNATURE_BYTES = 64;

/** Status operations (`session` is the seed addition). */
export const STATUS_OPERATIONS: readonly string[] = Object.freeze(['task', 'session', 'card', 'progress', 'quarantine', 'unquarantine']);
/** Chunk-stream purposes carried by the opening chunk. */
export const CHUNK_PURPOSES: readonly string[] = Object.freeze(['chat', 'reasoning', 'tool_args']);

const U64_MAX = (1n << 64n) - 1n;

function missing(kind: string, field: string): InvalidError {
  return new InvalidError(`${kind} requires \`${field}\``, { context: { kind, field } });
}

function forbidden(kind: string, field: string): InvalidError {
  return new InvalidError(`\`${field}\` is invalid on ${kind}`, { context: { kind, field } });
}

function invalid(field: string, reason: string): InvalidError {
  return new InvalidError(`\`${field}\`: ${reason}`, { context: { field } });
}

function tooLarge(field: string, size: number, cap: number, unit = 'B'): InvalidError {
  return new InvalidError(`\`${field}\` is ${size}${unit}, exceeds cap ${cap}${unit}`, { context: { field, size, cap } });
}

function checkU64(v: bigint | undefined, field: string): void {
  if (v !== undefined && (typeof v !== 'bigint' || v < 0n || v > U64_MAX)) {
    throw invalid(field, 'must be an unsigned 64-bit integer');
  }
}

function checkUint(v: number | undefined, max: number, field: string): void {
  if (v !== undefined && (!Number.isInteger(v) || v < 0 || v > max)) {
    throw invalid(field, `must be an unsigned integer at most ${max}`);
  }
}

/** Typed-field ranges the wire cannot carry otherwise (the decoder can never produce these). */
function checkRanges(e: AgentEnvelope): void {
  checkU64(e.deadlineMicros, 'deadline_micros');
  checkU64(e.sequence, 'sequence');
  checkU64(e.mustUnderstand, 'must_understand');
  checkUint(e.taskState, 0xff, 'task_state');
  if (e.usage !== undefined) {
    checkU64(e.usage.inputTokens, 'input_tokens');
    checkU64(e.usage.outputTokens, 'output_tokens');
    checkU64(e.usage.reasoningOutputTokens, 'reasoning_output_tokens');
    checkU64(e.usage.cacheReadInputTokens, 'cache_read_input_tokens');
    checkU64(e.usage.cacheCreationInputTokens, 'cache_creation_input_tokens');
    checkU64(e.usage.costMicros, 'cost_micros');
  }
  if (e.signature !== undefined) {
    checkUint(e.signature.scheme, 0xff, 'scheme');
    checkUint(e.signature.context?.contentType, 0xff, 'content_type');
    checkUint(e.signature.context?.agentVersion, 0xffffffff, 'agent_version');
  }
}

function checkSessionBody(e: AgentEnvelope, state: number): void {
  if (e.last !== isTerminalTaskState(state)) throw invalid('last', 'session last must match terminal task state');
  try {
    if (state === TaskState.Submitted || (state === TaskState.Working && sessionBodyLooksLikeStart(e.body))) {
      const start = decodeSessionStart(e.body);
      validateSessionStart(start);
      const sameParent =
        start.parent === undefined ? e.parent === undefined : e.parent !== undefined && start.parent.equals(e.parent);
      const sameRoot = start.root === undefined ? e.root === undefined : e.root !== undefined && start.root.equals(e.root);
      if (!sameParent || !sameRoot) throw new InvalidError('session ancestry must match envelope parent and root');
    } else if (isTerminalTaskState(state)) {
      decodeSessionEnd(e.body);
    } else {
      decodeSessionTransition(e.body);
    }
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new InvalidError(`\`body\`: ${reason}`, { cause: err, context: { field: 'body' } });
  }
}

/**
 * Checks an envelope against the R/O/X matrix, the extra rules (status `task` and `session`, chunk
 * opening and terminal rules, ancestry, idempotency and error-sequence rules), the caps, and finally
 * scheme-1 signature lengths — in that order; the first failure wins.
 * @throws InvalidError whose `context.field` names the offending field (and `context.kind` for
 * missing/forbidden fields).
 */
export function validateEnvelope(e: AgentEnvelope): void {
  if (!isAgentKind(e.kind)) {
    throw new InvalidError(`\`${String(e.kind)}\` is not a recognized agent envelope kind`, { context: { field: 'kind' } });
  }
  checkFieldShapes(e);
  checkRanges(e);
  validateDecodedEnvelope(e);
}

/**
 * {@link validateEnvelope} without the kind, runtime-type and wire-range checks, for an envelope
 * the strict decoder has just built: it only ever produces a known kind, fields of their declared
 * types and integers within their wire ranges, so those checks could only repeat its work.
 * @internal
 */
export function validateDecodedEnvelope(e: AgentEnvelope): void {
  const kind = e.kind;
  const isChunk = kind === 'chunk';
  const isStatus = kind === 'status';
  const isError = kind === 'error';

  // record
  if (e.record === undefined && !isChunk) throw missing(kind, 'record');

  // ancestry
  if (e.root !== undefined && e.parent === undefined) throw invalid('root', 'root requires parent');
  if ((e.parent !== undefined && e.parent.equals(e.conversation)) || (e.root !== undefined && e.root.equals(e.conversation))) {
    throw invalid('parent', 'parent and root must differ from conversation');
  }

  // correlation
  if (e.correlation === undefined) {
    if (kind === 'command' || kind === 'response' || isChunk || isError) throw missing(kind, 'correlation');
    if (isStatus && e.operation === 'task') throw missing(kind, 'correlation');
  }

  // channel / sequence
  if (e.channel !== undefined) {
    if (!isChunk && !isError) throw forbidden(kind, 'channel');
  } else if (isChunk) {
    throw missing(kind, 'channel');
  }
  if (e.sequence !== undefined) {
    if (!isChunk && !isError) throw forbidden(kind, 'sequence');
    if (isError && e.channel === undefined) throw invalid('sequence', 'sequence requires channel');
  } else if (isChunk) {
    throw missing(kind, 'sequence');
  }

  // last
  if (e.last && !isChunk && !isStatus) throw forbidden(kind, 'last');

  // finish_reason
  if (e.finishReason !== undefined) {
    if (isChunk) {
      if (!e.last) throw invalid('finish_reason', 'finish_reason rides only the terminal chunk');
    } else if (kind !== 'response') {
      throw forbidden(kind, 'finish_reason');
    }
  }

  // idempotency_key
  if (e.idempotencyKey !== undefined && (isChunk || isStatus || isError)) throw forbidden(kind, 'idempotency_key');

  // deadline_micros
  if (e.deadlineMicros !== undefined) {
    if (kind !== 'command' && !isChunk) throw forbidden(kind, 'deadline_micros');
    if (isChunk && e.sequence !== 0n) throw invalid('deadline_micros', 'the stream bound rides the opening chunk (sequence 0)');
  }

  // task_state
  if (e.taskState !== undefined) {
    if (kind === 'command' || kind === 'event' || isChunk) throw forbidden(kind, 'task_state');
  } else if (isStatus && (e.operation === 'task' || e.operation === 'session')) {
    throw missing(kind, 'task_state');
  }

  // operation
  if (isStatus) {
    if (e.operation === undefined) throw missing(kind, 'operation');
    if (!STATUS_OPERATIONS.includes(e.operation)) {
      throw invalid(
        'operation',
        `status operation must be \`task\`, \`session\`, \`card\`, \`progress\`, \`quarantine\`, or \`unquarantine\`, got \`${e.operation}\``,
      );
    }
  } else if (isChunk) {
    if (e.sequence === 0n) {
      if (e.operation === undefined) throw missing(kind, 'operation');
      if (!CHUNK_PURPOSES.includes(e.operation)) {
        throw invalid('operation', `chunk-stream purpose must be \`chat\`, \`reasoning\`, or \`tool_args\`, got \`${e.operation}\``);
      }
    } else if (e.operation !== undefined) {
      throw invalid('operation', 'the stream purpose rides the opening chunk (sequence 0)');
    }
  }

  // tool
  if (e.tool !== undefined && isStatus) throw forbidden(kind, 'tool');

  // usage
  if (e.usage !== undefined) {
    if (kind === 'command') throw forbidden(kind, 'usage');
    if (isChunk && !e.last) throw invalid('usage', 'whole-stream accounting rides the terminal chunk');
  }

  // body
  const emptyBody = e.body.length === 0;
  if (emptyBody) {
    if (kind === 'command' || kind === 'response' || kind === 'event' || isError) throw missing(kind, 'body');
    if (isChunk && !e.last) throw missing(kind, 'body');
    if (isStatus && e.operation === 'session') throw missing(kind, 'body');
  }
  if (isStatus && e.operation === 'session') checkSessionBody(e, e.taskState as number);

  // string caps
  if (e.operation !== undefined) {
    const n = utf8Length(e.operation);
    if (n > MAX_AGENT_STRING_BYTES) throw tooLarge('operation', n, MAX_AGENT_STRING_BYTES);
  }
  if (e.tool !== undefined) {
    const n = utf8Length(e.tool);
    if (n > MAX_AGENT_STRING_BYTES) throw tooLarge('tool', n, MAX_AGENT_STRING_BYTES);
  }
  if (e.finishReason !== undefined) {
    const n = utf8Length(e.finishReason);
    if (n > MAX_AGENT_STRING_BYTES) throw tooLarge('finish_reason', n, MAX_AGENT_STRING_BYTES);
  }

  // metadata caps
  if (e.metadata !== undefined) checkMetadataCaps(e.metadata);

  // signature (scheme 1 only; other schemes are an open dictionary)
  const sig = e.signature;
  if (sig !== undefined && sig.scheme === 1) {
    if (sig.keyId.length !== ED25519_KEY_ID_BYTES) {
      throw invalid('key_id', `Ed25519 key id must be ${ED25519_KEY_ID_BYTES} bytes, got ${sig.keyId.length}`);
    }
    if (sig.bytes.length !== ED25519_SIGNATURE_BYTES) {
      throw invalid('bytes', `Ed25519 signature must be ${ED25519_SIGNATURE_BYTES} bytes, got ${sig.bytes.length}`);
    }
  }
}
