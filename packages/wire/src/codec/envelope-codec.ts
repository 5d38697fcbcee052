import { isAgentKind, type AgentKind } from '../dictionaries/agent-kind.js';
import { AgdxError, CodecError, InvalidError } from '../errors.js';
import { AgentId } from '../ids/agent-id.js';
import { IdempotencyKey } from '../ids/idempotency-key.js';
import { LogPosition } from '../ids/log-position.js';
import {
  adoptIdBytes,
  ChannelId,
  ConversationId,
  CorrelationId,
  idBytesView,
  RecordId,
  type MachineId,
  type MachineIdClass,
} from '../ids/machine-id.js';
import { AgentEnvelope, type EnvelopeFields } from '../envelope/agent-envelope.js';
import type { Metadata, MetadataValue } from '../envelope/metadata.js';
import type { Signature, SignatureContext } from '../envelope/signature.js';
import type { TokenUsage } from '../usage/token-usage.js';
import {
  CborFormatError,
  CborReader,
  formatFailure,
  MAJOR_ARRAY,
  MAJOR_BYTES,
  MAJOR_MAP,
  MAJOR_NINT,
  MAJOR_SIMPLE,
  MAJOR_TAG,
  MAJOR_TEXT,
  MAJOR_UINT,
  MAX_DEPTH,
} from './reader.js';
import { KeyTable } from './key-table.js';
import { LastValueCache } from './value-cache.js';
import { ByteWriter, encodeWith } from './writer.js';

const SURFACE = 'agent envelope';
const U64_MAX = (1n << 64n) - 1n;
const I65_MIN = -(1n << 64n);

// ---------------------------------------------------------------------------------------------
// Encoding
// ---------------------------------------------------------------------------------------------

const ascii = (s: string): Uint8Array => {
  // Every key is ASCII and shorter than 256 bytes: a one- or two-byte head.
  const head = s.length < 24 ? [0x60 | s.length] : [0x78, s.length];
  const out = new Uint8Array(head.length + s.length);
  out.set(head);
  for (let i = 0; i < s.length; i++) out[head.length + i] = s.charCodeAt(i);
  return out;
};

/** Every key and fixed text value as ready-made CBOR text. */
const K = {
  kind: ascii('kind'),
  record: ascii('record'),
  conversation: ascii('conversation'),
  parent: ascii('parent'),
  root: ascii('root'),
  source: ascii('source'),
  target: ascii('target'),
  cause: ascii('cause'),
  cause_at: ascii('cause_at'),
  correlation: ascii('correlation'),
  channel: ascii('channel'),
  idempotency_key: ascii('idempotency_key'),
  deadline_micros: ascii('deadline_micros'),
  sequence: ascii('sequence'),
  last: ascii('last'),
  finish_reason: ascii('finish_reason'),
  task_state: ascii('task_state'),
  operation: ascii('operation'),
  tool: ascii('tool'),
  usage: ascii('usage'),
  metadata: ascii('metadata'),
  must_understand: ascii('must_understand'),
  body: ascii('body'),
  signature: ascii('signature'),
  input_tokens: ascii('input_tokens'),
  output_tokens: ascii('output_tokens'),
  reasoning_output_tokens: ascii('reasoning_output_tokens'),
  cache_read_input_tokens: ascii('cache_read_input_tokens'),
  cache_creation_input_tokens: ascii('cache_creation_input_tokens'),
  cost_micros: ascii('cost_micros'),
  scheme: ascii('scheme'),
  key_id: ascii('key_id'),
  bytes: ascii('bytes'),
  context: ascii('context'),
  content_type: ascii('content_type'),
  agent_version: ascii('agent_version'),
} as const;

const KIND_VALUE: Readonly<Record<AgentKind, Uint8Array>> = {
  command: ascii('command'),
  response: ascii('response'),
  event: ascii('event'),
  chunk: ascii('chunk'),
  status: ascii('status'),
  error: ascii('error'),
};

function uintChecked(w: ByteWriter, v: bigint, field: string): void {
  if (typeof v !== 'bigint' || v < 0n || v > U64_MAX) {
    throw new InvalidError(`\`${field}\` must be an unsigned 64-bit integer`, { context: { field } });
  }
  w.headBig(0, v);
}

function smallUintChecked(w: ByteWriter, v: number, max: number, field: string): void {
  if (!Number.isInteger(v) || v < 0 || v > max) {
    throw new InvalidError(`\`${field}\` must be an unsigned integer at most ${max}`, { context: { field } });
  }
  w.head(0, v);
}

function writeId(w: ByteWriter, key: Uint8Array, id: MachineId): void {
  w.raw(key);
  w.byte(0x50);
  w.raw(idBytesView(id));
}

function writeUsage(w: ByteWriter, u: TokenUsage): void {
  let n = 2;
  if (u.reasoningOutputTokens !== undefined) n++;
  if (u.cacheReadInputTokens !== undefined) n++;
  if (u.cacheCreationInputTokens !== undefined) n++;
  if (u.costMicros !== undefined) n++;
  w.head(5, n);
  w.raw(K.input_tokens);
  uintChecked(w, u.inputTokens, 'input_tokens');
  w.raw(K.output_tokens);
  uintChecked(w, u.outputTokens, 'output_tokens');
  if (u.reasoningOutputTokens !== undefined) {
    w.raw(K.reasoning_output_tokens);
    uintChecked(w, u.reasoningOutputTokens, 'reasoning_output_tokens');
  }
  if (u.cacheReadInputTokens !== undefined) {
    w.raw(K.cache_read_input_tokens);
    uintChecked(w, u.cacheReadInputTokens, 'cache_read_input_tokens');
  }
  if (u.cacheCreationInputTokens !== undefined) {
    w.raw(K.cache_creation_input_tokens);
    uintChecked(w, u.cacheCreationInputTokens, 'cache_creation_input_tokens');
  }
  if (u.costMicros !== undefined) {
    w.raw(K.cost_micros);
    uintChecked(w, u.costMicros, 'cost_micros');
  }
}

/** Writes one metadata value (ints always as CBOR integers, numbers always as floats). @internal */
export function writeMetadataValue(w: ByteWriter, v: MetadataValue, depth = 0): void {
  switch (typeof v) {
    case 'string':
      w.text(v);
      return;
    case 'bigint':
      if (v > U64_MAX || v < I65_MIN) {
        throw new InvalidError('metadata integer is outside the CBOR integer range', { context: { field: 'metadata' } });
      }
      w.int(v);
      return;
    case 'number':
      w.float(v);
      return;
    case 'boolean':
      w.bool(v);
      return;
    default:
      if (v === null) {
        w.nil();
        return;
      }
      if (Array.isArray(v) && depth < MAX_DEPTH) {
        const list = v as readonly MetadataValue[];
        w.head(4, list.length);
        for (let i = 0; i < list.length; i++) writeMetadataValue(w, list[i] as MetadataValue, depth + 1);
        return;
      }
      throw new InvalidError('metadata values are strings, integers, floats, booleans, null or lists', {
        context: { field: 'metadata' },
      });
  }
}

/** Writes a metadata map in insertion order. @internal */
export function writeMetadata(w: ByteWriter, m: Metadata): void {
  w.head(5, m.size);
  m.forEach((value, key) => {
    w.text(key);
    writeMetadataValue(w, value);
  });
}

function writeSignatureContext(w: ByteWriter, ctx: SignatureContext): void {
  const n = (ctx.contentType !== undefined ? 1 : 0) + (ctx.agentVersion !== undefined ? 1 : 0);
  w.head(5, n);
  if (ctx.contentType !== undefined) {
    w.raw(K.content_type);
    smallUintChecked(w, ctx.contentType, 0xff, 'content_type');
  }
  if (ctx.agentVersion !== undefined) {
    w.raw(K.agent_version);
    smallUintChecked(w, ctx.agentVersion, 0xffffffff, 'agent_version');
  }
}

function writeSignature(w: ByteWriter, s: Signature): void {
  w.head(5, s.context !== undefined ? 4 : 3);
  w.raw(K.scheme);
  smallUintChecked(w, s.scheme, 0xff, 'scheme');
  w.raw(K.key_id);
  w.bytes(s.keyId);
  w.raw(K.bytes);
  w.bytes(s.bytes);
  if (s.context !== undefined) {
    w.raw(K.context);
    writeSignatureContext(w, s.context);
  }
}

/** Writes the whole envelope in canonical key order. @internal */
export function writeEnvelope(w: ByteWriter, e: AgentEnvelope, withSignature = true): void {
  let n = 3;
  if (e.record !== undefined) n++;
  if (e.parent !== undefined) n++;
  if (e.root !== undefined) n++;
  if (e.target !== undefined) n++;
  if (e.cause !== undefined) n++;
  if (e.causeAt !== undefined) n++;
  if (e.correlation !== undefined) n++;
  if (e.channel !== undefined) n++;
  if (e.idempotencyKey !== undefined) n++;
  if (e.deadlineMicros !== undefined) n++;
  if (e.sequence !== undefined) n++;
  if (e.last) n++;
  if (e.finishReason !== undefined) n++;
  if (e.taskState !== undefined) n++;
  if (e.operation !== undefined) n++;
  if (e.tool !== undefined) n++;
  if (e.usage !== undefined) n++;
  if (e.metadata !== undefined) n++;
  if (e.mustUnderstand !== 0n) n++;
  if (e.body.length !== 0) n++;
  const sig = withSignature ? e.signature : undefined;
  if (sig !== undefined) n++;

  w.head(5, n);
  w.raw(K.kind);
  const kind = KIND_VALUE[e.kind];
  if (kind === undefined) throw new InvalidError(`\`${String(e.kind)}\` is not a recognized agent envelope kind`, { context: { field: 'kind' } });
  w.raw(kind);
  if (e.record !== undefined) writeId(w, K.record, e.record);
  writeId(w, K.conversation, e.conversation);
  if (e.parent !== undefined) writeId(w, K.parent, e.parent);
  if (e.root !== undefined) writeId(w, K.root, e.root);
  w.raw(K.source);
  w.text(e.source.value);
  if (e.target !== undefined) {
    w.raw(K.target);
    w.text(e.target.value);
  }
  if (e.cause !== undefined) writeId(w, K.cause, e.cause);
  if (e.causeAt !== undefined) {
    w.raw(K.cause_at);
    w.byte(0x54);
    if (w.buf !== null) e.causeAt.writeTo(w.buf, w.pos);
    w.pos += 20;
  }
  if (e.correlation !== undefined) writeId(w, K.correlation, e.correlation);
  if (e.channel !== undefined) writeId(w, K.channel, e.channel);
  if (e.idempotencyKey !== undefined) {
    w.raw(K.idempotency_key);
    w.text(e.idempotencyKey.value);
  }
  if (e.deadlineMicros !== undefined) {
    w.raw(K.deadline_micros);
    uintChecked(w, e.deadlineMicros, 'deadline_micros');
  }
  if (e.sequence !== undefined) {
    w.raw(K.sequence);
    uintChecked(w, e.sequence, 'sequence');
  }
  if (e.last) {
    w.raw(K.last);
    w.byte(0xf5);
  }
  if (e.finishReason !== undefined) {
    w.raw(K.finish_reason);
    w.text(e.finishReason);
  }
  if (e.taskState !== undefined) {
    w.raw(K.task_state);
    smallUintChecked(w, e.taskState, 0xff, 'task_state');
  }
  if (e.operation !== undefined) {
    w.raw(K.operation);
    w.text(e.operation);
  }
  if (e.tool !== undefined) {
    w.raw(K.tool);
    w.text(e.tool);
  }
  if (e.usage !== undefined) {
    w.raw(K.usage);
    writeUsage(w, e.usage);
  }
  if (e.metadata !== undefined) {
    w.raw(K.metadata);
    writeMetadata(w, e.metadata);
  }
  if (e.mustUnderstand !== 0n) {
    w.raw(K.must_understand);
    uintChecked(w, e.mustUnderstand, 'must_understand');
  }
  if (e.body.length !== 0) {
    w.raw(K.body);
    w.bytes(e.body);
  }
  if (sig !== undefined) {
    w.raw(K.signature);
    writeSignature(w, sig);
  }
}

/**
 * Canonical CBOR bytes of an envelope, without validation: fixed key order (seed fields `parent`
 * and `root` after `conversation`, `cost_micros` last in usage), defaults omitted, one exact-size
 * allocation.
 * @throws InvalidError only when a numeric field is outside its wire range.
 */
export function encodeEnvelope(envelope: AgentEnvelope): Uint8Array {
  return encodeWith((w) => writeEnvelope(w, envelope));
}

/**
 * Canonical CBOR bytes of the envelope with `signature` left out: the span a signature covers.
 */
export function encodeEnvelopeUnsigned(envelope: AgentEnvelope): Uint8Array {
  return encodeWith((w) => writeEnvelope(w, envelope, false));
}

/**
 * Canonical CBOR map of a signature context: `content_type` then `agent_version`, each only when
 * present. @agdx/sign builds the signing input `"agdx.signature.v1" ‖ this ‖ CBOR(envelope without signature)`.
 */
export function encodeSignatureContext(ctx: SignatureContext): Uint8Array {
  return encodeWith((w) => writeSignatureContext(w, ctx));
}

// ---------------------------------------------------------------------------------------------
// Decoding
// ---------------------------------------------------------------------------------------------

function shape(message: string, surface: string, operation: string): CodecError {
  return new CodecError(message, { context: { surface, operation, field: operation } });
}

function expectBytes(r: CborReader, field: string, surface = SURFACE): Uint8Array {
  r.head();
  if (r.major !== MAJOR_BYTES) throw shape(`field \`${field}\` in ${surface} must be bytes`, surface, field);
  return r.bytesPayload();
}

function expectId<T extends MachineId>(r: CborReader, cls: MachineIdClass<T>, field: string): T {
  return adoptIdBytes(cls, expectBytes(r, field));
}

const ENVELOPE_KEY_TABLE = new KeyTable([
  'kind', 'record', 'conversation', 'parent', 'root', 'source', 'target', 'cause', 'cause_at', 'correlation',
  'channel', 'idempotency_key', 'deadline_micros', 'sequence', 'last', 'finish_reason', 'task_state', 'operation',
  'tool', 'usage', 'metadata', 'must_understand', 'body', 'signature',
]);
const USAGE_KEY_TABLE = new KeyTable([
  'input_tokens', 'output_tokens', 'reasoning_output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens', 'cost_micros',
]);
const KIND_TABLE = new KeyTable(['command', 'response', 'event', 'chunk', 'status', 'error']);

const conversationCache = new LastValueCache<ConversationId>();
const correlationCache = new LastValueCache<CorrelationId>();
const channelCache = new LastValueCache<ChannelId>();
const sourceCache = new LastValueCache<AgentId>();
const targetCache = new LastValueCache<AgentId>();

/** An id field, reusing the previous immutable id object when the bytes repeat (stream hot path). */
function expectCachedId<T extends MachineId>(r: CborReader, cls: MachineIdClass<T>, field: string, cache: LastValueCache<T>): T {
  r.head();
  if (r.major !== MAJOR_BYTES) throw shape(`field \`${field}\` in ${SURFACE} must be bytes`, SURFACE, field);
  const n = r.arg;
  r.need(n);
  const hit = cache.get(r.buf, r.pos, n);
  if (hit !== undefined) {
    r.pos += n;
    return hit;
  }
  const start = r.pos;
  const id = adoptIdBytes(cls, r.bytesPayload());
  cache.set(r.buf, start, n, id);
  return id;
}

/** An agent id field (wire rule), reusing the previous AgentId object when the bytes repeat. */
function expectAgentId(r: CborReader, field: string, cache: LastValueCache<AgentId>): AgentId {
  r.head();
  if (r.major !== MAJOR_TEXT) throw shape(`field \`${field}\` in ${SURFACE} must be a string`, SURFACE, field);
  const n = r.arg;
  r.need(n);
  const hit = cache.get(r.buf, r.pos, n);
  if (hit !== undefined) {
    r.pos += n;
    return hit;
  }
  const start = r.pos;
  const id = AgentId.parse(r.textPayload());
  cache.set(r.buf, start, n, id);
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

function expectText(r: CborReader, field: string): string {
  r.head();
  if (r.major !== MAJOR_TEXT) throw shape(`field \`${field}\` in ${SURFACE} must be a string`, SURFACE, field);
  return r.textPayload();
}

function expectU64(r: CborReader, field: string, surface = SURFACE): bigint {
  r.head();
  if (r.major === MAJOR_UINT) return r.argBig();
  if (r.major === MAJOR_NINT && (r.bigArg !== undefined || r.arg >= Number.MAX_SAFE_INTEGER - 1)) {
    throw shape(`field \`${field}\` in ${surface} must fit u64`, surface, field);
  }
  throw shape(`field \`${field}\` in ${surface} must be an unsigned integer`, surface, field);
}

function expectSmallUint(r: CborReader, field: string, max: number, surface = SURFACE): number {
  r.head();
  if (r.major === MAJOR_UINT && r.bigArg === undefined && r.arg <= max) return r.arg;
  throw shape(`field \`${field}\` in ${surface} must be an unsigned integer at most ${max}`, surface, field);
}

function expectBool(r: CborReader, field: string): boolean {
  r.head();
  if (r.major === MAJOR_SIMPLE && (r.info === 20 || r.info === 21)) return r.info === 21;
  throw shape(`field \`${field}\` in ${SURFACE} must be a boolean`, SURFACE, field);
}

function expectMap(r: CborReader, surface: string, depth: number): number {
  if (depth > MAX_DEPTH) throw new CborFormatError('nesting too deep');
  r.head();
  if (r.major !== MAJOR_MAP) throw shape(`expected a CBOR map for ${surface}`, surface, 'expect-map');
  const count = r.arg;
  if (count > 0) r.need(count * 2);
  return count;
}

/** True while a map (definite `count`, or indefinite when `count` < 0) has another entry at index `i`. */
function more(r: CborReader, count: number, i: number): boolean {
  return count < 0 ? !r.takeBreak() : i < count;
}

function repeat(key: string): CborFormatError {
  return new CborFormatError(`found repeat map key ${JSON.stringify(key)}`);
}

/**
 * Duplicate detection for keys that are not known fields (known fields use a bit mask): text keys by
 * value, other keys by their exact bytes.
 */
function rememberUnknown(seen: Set<string> | undefined, r: CborReader, key: string | undefined): Set<string> {
  const set = seen ?? new Set<string>();
  const id = key === undefined ? `r${r.rawKey}` : `t${key}`;
  if (set.has(id)) throw repeat(id.slice(1));
  set.add(id);
  return set;
}

/** Marks a known field's bit, refusing a second occurrence. */
function mark(bits: number, bit: number, key: string): number {
  if ((bits & bit) !== 0) throw repeat(key);
  return bits | bit;
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

/** Thrown for a value metadata cannot hold; the path is completed while it propagates (no cost on success). */
class BadMetadataValue extends Error {
  suffix = '';
}

/** Reads one metadata value. @internal */
export function readMetadataValue(r: CborReader, depth: number): MetadataValue {
  if (depth > MAX_DEPTH) throw new CborFormatError('nesting too deep');
  r.head();
  switch (r.major) {
    case MAJOR_UINT:
      return r.bigArg ?? BigInt(r.arg);
    case MAJOR_NINT:
      return -1n - r.argBig();
    case MAJOR_TEXT:
      return r.textPayload();
    case MAJOR_ARRAY: {
      const n = r.arg;
      if (n > 0) r.need(n);
      const out: MetadataValue[] = [];
      for (let i = 0; more(r, n, i); i++) {
        try {
          out.push(readMetadataValue(r, depth + 1));
        } catch (e) {
          if (e instanceof BadMetadataValue) e.suffix = `[${i}]${e.suffix}`;
          throw e;
        }
      }
      return out;
    }
    case MAJOR_TAG:
      throw new CborFormatError(`tag not supported (${r.arg})`);
    case MAJOR_SIMPLE:
      r.checkSimple();
      if (r.info === 20) return false;
      if (r.info === 21) return true;
      if (r.info === 22) return null;
      if (r.info >= 25 && r.info <= 27) return r.readFloat();
      if (r.info === 31) throw new CborFormatError('unexpected break');
      throw new BadMetadataValue();
    default:
      // byte strings and maps are not metadata values
      throw new BadMetadataValue();
  }
}

/** Reads a string-keyed metadata map (insertion order kept), reporting under `<surface>.<key>`. @internal */
export function readMetadata(r: CborReader, surface: string, depth: number): Map<string, MetadataValue> {
  const count = expectMap(r, `${surface}.metadata`, depth);
  const out = new Map<string, MetadataValue>();
  for (let i = 0; more(r, count, i); i++) {
    const key = r.mapKey(depth);
    if (key === undefined) throw shape(`expected a string-keyed map in ${surface}`, surface, 'map');
    if (out.has(key)) throw repeat(key);
    try {
      out.set(key, readMetadataValue(r, depth + 1));
    } catch (e) {
      if (e instanceof BadMetadataValue) {
        const path = `${surface}.${key}${e.suffix}`;
        throw shape(`cannot decode value in ${path}`, path, 'value');
      }
      throw e;
    }
  }
  return out;
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
  if (count > 0) r.need(count * 2);
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
        metadata = readMetadata(r, SURFACE, 1);
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

