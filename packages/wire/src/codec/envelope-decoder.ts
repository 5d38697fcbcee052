import { isAgentKind, type AgentKind } from '../dictionaries/agent-kind.js';
import { AgdxError, CodecError } from '../errors.js';
import { adoptCheckedAgentId, AgentId } from '../ids/agent-id.js';
import { IdempotencyKey } from '../ids/idempotency-key.js';
import { LogPosition } from '../ids/log-position.js';
import { adoptIdBytes, ChannelId, ConversationId, CorrelationId, RecordId, type MachineId, type MachineIdClass } from '../ids/machine-id.js';
import { AgentEnvelope } from '../envelope/agent-envelope.js';
import type { MetadataValue } from '../envelope/metadata.js';
import type { Signature, SignatureContext } from '../envelope/signature.js';
import type { TokenUsage } from '../usage/token-usage.js';
import {
  expectBool,
  expectBytes,
  expectId,
  expectMap,
  expectSmallUint,
  expectText,
  expectU64,
  mark,
  more,
  rememberUnknown,
  shape,
  SURFACE,
} from './field-readers.js';
import { KeyTable } from './key-table.js';
import { readMetadata } from './metadata-codec.js';
import { CborFormatError, CborReader, formatFailure, MAJOR_BYTES, MAJOR_MAP, MAJOR_TEXT } from './reader.js';
import { LastAgentIdCache, LastIdCache } from './value-cache.js';

const ENVELOPE_KEY_TABLE = new KeyTable([
  'kind', 'record', 'conversation', 'parent', 'root', 'source', 'target', 'cause', 'cause_at', 'correlation',
  'channel', 'idempotency_key', 'deadline_micros', 'sequence', 'last', 'finish_reason', 'task_state', 'operation',
  'tool', 'usage', 'metadata', 'must_understand', 'body', 'signature',
]);
const USAGE_KEY_TABLE = new KeyTable([
  'input_tokens', 'output_tokens', 'reasoning_output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens', 'cost_micros',
]);
const KIND_TABLE = new KeyTable(['command', 'response', 'event', 'chunk', 'status', 'error']);

const conversationCache = new LastIdCache<ConversationId>();
const correlationCache = new LastIdCache<CorrelationId>();
const channelCache = new LastIdCache<ChannelId>();
const sourceCache = new LastAgentIdCache();
const targetCache = new LastAgentIdCache();

/** An id field, reusing the previous immutable id object when the bytes repeat (stream hot path). */
function expectCachedId<T extends MachineId>(r: CborReader, cls: MachineIdClass<T>, field: string, cache: LastIdCache<T>): T {
  r.head();
  if (r.major !== MAJOR_BYTES) throw shape(`field \`${field}\` in ${SURFACE} must be bytes`, SURFACE, field);
  const n = r.arg;
  r.need(n);
  const hit = cache.get(r.buf, r.pos, n);
  if (hit !== undefined) {
    r.pos += n;
    return hit;
  }
  const id = adoptIdBytes(cls, r.bytesPayload());
  cache.set(id);
  return id;
}

/** An agent id field (wire rule), reusing the previous AgentId object when the bytes repeat. */
function expectAgentId(r: CborReader, field: string, cache: LastAgentIdCache): AgentId {
  r.head();
  if (r.major !== MAJOR_TEXT) throw shape(`field \`${field}\` in ${SURFACE} must be a string`, SURFACE, field);
  const n = r.arg;
  r.need(n);
  const hit = cache.get(r.buf, r.pos, n);
  if (hit !== undefined) {
    r.pos += n;
    return hit;
  }
  const ascii = r.printableAsciiPayload();
  const id = ascii !== undefined ? adoptCheckedAgentId(ascii) : AgentId.parse(r.textPayload());
  cache.set(id);
  return id;
}

function expectKind(r: CborReader): AgentKind {
  r.head();
  if (r.major !== MAJOR_TEXT) throw shape(`field \`kind\` in ${SURFACE} must be a string`, SURFACE, 'kind');
  const n = r.arg;
  r.need(n);
  const hit = KIND_TABLE.match(r.buf, r.pos, n);
  if (hit !== undefined) {
    r.pos += n;
    return hit as AgentKind;
  }
  const text = r.textPayload();
  if (isAgentKind(text)) return text;
  throw new CodecError(`\`${text}\` is not a recognized agent envelope kind`, {
    context: { surface: SURFACE, operation: 'kind', field: 'kind' },
  });
}

function readUsage(r: CborReader, depth: number): TokenUsage {
  const count = expectMap(r, `${SURFACE}.usage`, depth);
  let input: bigint | undefined;
  let output: bigint | undefined;
  let reasoning: bigint | undefined;
  let cacheRead: bigint | undefined;
  let cacheCreation: bigint | undefined;
  let cost: bigint | undefined;
  let bits = 0;
  let unknown: Set<string> | undefined;
  for (let i = 0; more(r, count, i); i++) {
    const key = r.mapKey(depth, USAGE_KEY_TABLE);
    switch (key) {
      case 'input_tokens':
        bits = mark(bits, 1, key);
        input = expectU64(r, key);
        break;
      case 'output_tokens':
        bits = mark(bits, 2, key);
        output = expectU64(r, key);
        break;
      case 'reasoning_output_tokens':
        bits = mark(bits, 4, key);
        reasoning = expectU64(r, key);
        break;
      case 'cache_read_input_tokens':
        bits = mark(bits, 8, key);
        cacheRead = expectU64(r, key);
        break;
      case 'cache_creation_input_tokens':
        bits = mark(bits, 16, key);
        cacheCreation = expectU64(r, key);
        break;
      case 'cost_micros':
        bits = mark(bits, 32, key);
        cost = expectU64(r, key);
        break;
      default:
        unknown = rememberUnknown(unknown, r, key);
        r.skip(depth + 1);
    }
  }
  if (input === undefined) throw shape(`missing required field \`input_tokens\` in ${SURFACE}`, SURFACE, 'input_tokens');
  if (output === undefined) throw shape(`missing required field \`output_tokens\` in ${SURFACE}`, SURFACE, 'output_tokens');
  const usage: { -readonly [K in keyof TokenUsage]: TokenUsage[K] } = { inputTokens: input, outputTokens: output };
  if (reasoning !== undefined) usage.reasoningOutputTokens = reasoning;
  if (cacheRead !== undefined) usage.cacheReadInputTokens = cacheRead;
  if (cacheCreation !== undefined) usage.cacheCreationInputTokens = cacheCreation;
  if (cost !== undefined) usage.costMicros = cost;
  return usage;
}

function readSignatureContext(r: CborReader, depth: number): SignatureContext {
  const surface = `${SURFACE}.context`;
  const count = expectMap(r, surface, depth);
  let contentType: number | undefined;
  let agentVersion: number | undefined;
  let bits = 0;
  let unknown: Set<string> | undefined;
  for (let i = 0; more(r, count, i); i++) {
    const key = r.mapKey(depth);
    if (key === 'content_type') {
      bits = mark(bits, 1, key);
      contentType = expectSmallUint(r, key, 0xff, surface);
    } else if (key === 'agent_version') {
      bits = mark(bits, 2, key);
      agentVersion = expectSmallUint(r, key, 0xffffffff, surface);
    } else {
      unknown = rememberUnknown(unknown, r, key);
      r.skip(depth + 1);
    }
  }
  const ctx: { contentType?: number; agentVersion?: number } = {};
  if (contentType !== undefined) ctx.contentType = contentType;
  if (agentVersion !== undefined) ctx.agentVersion = agentVersion;
  return ctx;
}

function readSignature(r: CborReader, depth: number): Signature {
  const count = expectMap(r, `${SURFACE}.signature`, depth);
  let scheme: number | undefined;
  let keyId: Uint8Array | undefined;
  let bytes: Uint8Array | undefined;
  let context: SignatureContext | undefined;
  let bits = 0;
  let unknown: Set<string> | undefined;
  for (let i = 0; more(r, count, i); i++) {
    const key = r.mapKey(depth);
    switch (key) {
      case 'scheme':
        bits = mark(bits, 1, key);
        scheme = expectSmallUint(r, key, 0xff);
        break;
      case 'key_id':
        bits = mark(bits, 2, key);
        keyId = expectBytes(r, key);
        break;
      case 'bytes':
        bits = mark(bits, 4, key);
        bytes = expectBytes(r, key);
        break;
      case 'context':
        bits = mark(bits, 8, key);
        context = readSignatureContext(r, depth + 1);
        break;
      default:
        unknown = rememberUnknown(unknown, r, key);
        r.skip(depth + 1);
    }
  }
  if (scheme === undefined) throw shape(`missing required field \`scheme\` in ${SURFACE}`, SURFACE, 'scheme');
  if (keyId === undefined) throw shape(`missing required field \`key_id\` in ${SURFACE}`, SURFACE, 'key_id');
  if (bytes === undefined) throw shape(`missing required field \`bytes\` in ${SURFACE}`, SURFACE, 'bytes');
  return context === undefined ? { scheme, keyId, bytes } : { scheme, keyId, bytes, context };
}

function readEnvelopeMap(r: CborReader): AgentEnvelope {
  const start = r.pos;
  r.head();
  if (r.major !== MAJOR_MAP) {
    // The whole item must still be well-formed CBOR before the shape is judged.
    r.pos = start;
    r.skip(0);
    if (!r.atEnd()) throw new CborFormatError('too many terminals');
    throw new CodecError(`expected a CBOR map for ${SURFACE}`, { context: { surface: SURFACE, operation: 'expect-map' } });
  }
  const count = r.arg;
  if (count > 0) r.fits(count * 2);
  let kind: AgentKind | undefined;
  let record: RecordId | undefined;
  let conversation: ConversationId | undefined;
  let parent: ConversationId | undefined;
  let root: ConversationId | undefined;
  let source: AgentId | undefined;
  let target: AgentId | undefined;
  let cause: RecordId | undefined;
  let causeAt: LogPosition | undefined;
  let correlation: CorrelationId | undefined;
  let channel: ChannelId | undefined;
  let idempotencyKey: IdempotencyKey | undefined;
  let deadlineMicros: bigint | undefined;
  let sequence: bigint | undefined;
  let last = false;
  let finishReason: string | undefined;
  let taskState: number | undefined;
  let operation: string | undefined;
  let tool: string | undefined;
  let usage: TokenUsage | undefined;
  let metadata: Map<string, MetadataValue> | undefined;
  let mustUnderstand = 0n;
  let body: Uint8Array | undefined;
  let signature: Signature | undefined;
  let bits = 0;
  let unknown: Set<string> | undefined;
  for (let i = 0; more(r, count, i); i++) {
    const key = r.mapKey(0, ENVELOPE_KEY_TABLE);
    switch (key) {
      case 'kind':
        bits = mark(bits, 1 << 0, key);
        kind = expectKind(r);
        break;
      case 'record':
        bits = mark(bits, 1 << 1, key);
        record = expectId(r, RecordId, key);
        break;
      case 'conversation':
        bits = mark(bits, 1 << 2, key);
        conversation = expectCachedId(r, ConversationId, key, conversationCache);
        break;
      case 'parent':
        bits = mark(bits, 1 << 3, key);
        parent = expectId(r, ConversationId, key);
        break;
      case 'root':
        bits = mark(bits, 1 << 4, key);
        root = expectId(r, ConversationId, key);
        break;
      case 'source':
        bits = mark(bits, 1 << 5, key);
        source = expectAgentId(r, key, sourceCache);
        break;
      case 'target':
        bits = mark(bits, 1 << 6, key);
        target = expectAgentId(r, key, targetCache);
        break;
      case 'cause':
        bits = mark(bits, 1 << 7, key);
        cause = expectId(r, RecordId, key);
        break;
      case 'cause_at':
        bits = mark(bits, 1 << 8, key);
        causeAt = LogPosition.fromBytes(expectBytes(r, key));
        break;
      case 'correlation':
        bits = mark(bits, 1 << 9, key);
        correlation = expectCachedId(r, CorrelationId, key, correlationCache);
        break;
      case 'channel':
        bits = mark(bits, 1 << 10, key);
        channel = expectCachedId(r, ChannelId, key, channelCache);
        break;
      case 'idempotency_key':
        bits = mark(bits, 1 << 11, key);
        idempotencyKey = IdempotencyKey.new(expectText(r, key));
        break;
      case 'deadline_micros':
        bits = mark(bits, 1 << 12, key);
        deadlineMicros = expectU64(r, key);
        break;
      case 'sequence':
        bits = mark(bits, 1 << 13, key);
        sequence = expectU64(r, key);
        break;
      case 'last':
        bits = mark(bits, 1 << 14, key);
        last = expectBool(r, key);
        break;
      case 'finish_reason':
        bits = mark(bits, 1 << 15, key);
        finishReason = expectText(r, key);
        break;
      case 'task_state':
        bits = mark(bits, 1 << 16, key);
        taskState = expectSmallUint(r, key, 0xff);
        break;
      case 'operation':
        bits = mark(bits, 1 << 17, key);
        operation = expectText(r, key);
        break;
      case 'tool':
        bits = mark(bits, 1 << 18, key);
        tool = expectText(r, key);
        break;
      case 'usage':
        bits = mark(bits, 1 << 19, key);
        usage = readUsage(r, 1);
        break;
      case 'metadata':
        bits = mark(bits, 1 << 20, key);
        metadata = readMetadata(r, SURFACE, 1, true);
        break;
      case 'must_understand':
        bits = mark(bits, 1 << 21, key);
        mustUnderstand = expectU64(r, key);
        break;
      case 'body':
        bits = mark(bits, 1 << 22, key);
        r.head();
        if (r.major !== MAJOR_BYTES) throw shape(`field \`body\` in ${SURFACE} must be bytes`, SURFACE, 'body');
        // Zero-copy: the body is a view into the input (see decodeEnvelope).
        body = r.bytesView();
        break;
      case 'signature':
        bits = mark(bits, 1 << 23, key);
        signature = readSignature(r, 1);
        break;
      default:
        unknown = rememberUnknown(unknown, r, key);
        r.skip(1);
    }
  }
  if (kind === undefined) throw shape(`missing required field \`kind\` in ${SURFACE}`, SURFACE, 'kind');
  if (conversation === undefined) throw shape(`missing required field \`conversation\` in ${SURFACE}`, SURFACE, 'conversation');
  if (source === undefined) throw shape(`missing required field \`source\` in ${SURFACE}`, SURFACE, 'source');
  // One object literal with every field, so envelope construction always sees the same shape.
  return AgentEnvelope.fromFields({
    kind,
    record,
    conversation,
    parent,
    root,
    source,
    target,
    cause,
    causeAt,
    correlation,
    channel,
    idempotencyKey,
    deadlineMicros,
    sequence,
    last,
    finishReason,
    taskState,
    operation,
    tool,
    usage,
    metadata,
    mustUnderstand,
    body,
    signature,
  });
}

/**
 * Strictly decodes one envelope without validating its shape rules: exactly one CBOR item, no
 * trailing bytes, no duplicate keys at any depth, minimal heads, no indefinite-length strings, no
 * tags, valid UTF-8, integer fields only from CBOR integers. Indefinite-length maps and arrays are
 * accepted; unknown top-level keys are ignored.
 *
 * The decoded `body` is a zero-copy view into `bytes` (like cborg's byte strings): copy it (or the
 * input) before reusing the input buffer. Ids, keys and signature bytes are copies.
 * @throws CodecError (malformed CBOR or a wrong type for a known field, naming the field) or
 * InvalidError (bad id length, agent id or idempotency key) — never anything else.
 */
export function decodeEnvelope(bytes: Uint8Array): AgentEnvelope {
  if (!(bytes instanceof Uint8Array)) {
    throw new CodecError(`failed to decode ${SURFACE}`, { context: { surface: SURFACE, operation: 'decode' } });
  }
  const r = new CborReader(bytes);
  try {
    if (bytes.length === 0) throw new CborFormatError('did not find any content to decode');
    const env = readEnvelopeMap(r);
    if (!r.atEnd()) throw new CborFormatError('too many terminals');
    return env;
  } catch (e) {
    if (e instanceof CborFormatError) throw formatFailure(SURFACE, e);
    if (AgdxError.is(e)) throw e;
    throw formatFailure(SURFACE, e);
  }
}

/** Keys the decoder recognises at the top level, in canonical order. */
export const ENVELOPE_KEYS: readonly string[] = Object.freeze([
  'kind', 'record', 'conversation', 'parent', 'root', 'source', 'target', 'cause', 'cause_at', 'correlation',
  'channel', 'idempotency_key', 'deadline_micros', 'sequence', 'last', 'finish_reason', 'task_state', 'operation',
  'tool', 'usage', 'metadata', 'must_understand', 'body', 'signature',
]);
