import { isAgentKind, type AgentKind } from '../dictionaries/agent-kind.js';
import { AgdxError, CodecError } from '../errors.js';
import { adoptCheckedAgentId, AgentId } from '../ids/agent-id.js';
import { IdempotencyKey } from '../ids/idempotency-key.js';
import type { LogPosition } from '../ids/log-position.js';
import {
  ChannelId,
  channelIdOf,
  ConversationId,
  conversationIdOf,
  CorrelationId,
  correlationIdOf,
  RecordId,
  recordIdOf,
  word,
  type IdMaker,
  type MachineId,
  type MachineIdClass,
} from '../ids/machine-id.js';
import { assembleEnvelope, type AgentEnvelope } from '../envelope/agent-envelope.js';
import type { MetadataValue } from '../envelope/metadata.js';
import type { Signature, SignatureContext } from '../envelope/signature.js';
import type { TokenUsage } from '../usage/token-usage.js';
import { CHUNK_PURPOSES, STATUS_OPERATIONS } from '../envelope/validate.js';
import {
  expectBool,
  expectBytes,
  expectLogPosition,
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
import { asciiText, MAX_ASCII_TEXT } from './ascii-text.js';
import { KeyTable } from './key-table.js';
import { readMetadata } from './metadata-codec.js';
import { CborFormatError, CborReader, formatFailure, MAJOR_BYTES, MAJOR_MAP, MAJOR_TEXT, SMALL_BIGINTS, smallBigInt } from './reader.js';
import { LastAgentIdCache, LastIdCache } from './value-cache.js';

/** Keys the decoder recognises at the top level, in canonical order (the `switch` below uses these positions). */
export const ENVELOPE_KEYS: readonly string[] = Object.freeze([
  'kind', 'record', 'conversation', 'parent', 'root', 'source', 'target', 'cause', 'cause_at', 'correlation',
  'channel', 'idempotency_key', 'deadline_micros', 'sequence', 'last', 'finish_reason', 'task_state', 'operation',
  'tool', 'usage', 'metadata', 'must_understand', 'body', 'signature',
]);
const ENVELOPE_KEY_TABLE = new KeyTable(ENVELOPE_KEYS);
const USAGE_KEY_TABLE = new KeyTable([
  'input_tokens', 'output_tokens', 'reasoning_output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens', 'cost_micros',
]);
const KINDS: readonly AgentKind[] = ['command', 'response', 'event', 'chunk', 'status', 'error'];
const KIND_TABLE = new KeyTable(KINDS);

/** The operations the validator knows (status operations, chunk purposes), decoded as interned strings. */
const OPERATIONS: readonly string[] = [...STATUS_OPERATIONS, ...CHUNK_PURPOSES];
const OPERATION_TABLE = new KeyTable(OPERATIONS);

const conversationCache = new LastIdCache<ConversationId>();
const correlationCache = new LastIdCache<CorrelationId>();
const channelCache = new LastIdCache<ChannelId>();
const sourceCache = new LastAgentIdCache();
const targetCache = new LastAgentIdCache();

/** Bodies up to this many bytes are decoded as copies, larger ones as views into the input. */
export const SMALL_BODY_COPY = 64;

/** A one-byte head of a 16-byte byte string: how every id is written. */
const ID_HEAD = 0x50;

/**
 * An id field: its 16 bytes are read once as four words, compared with the previous id of the
 * field (consecutive records of a stream repeat it, so the immutable object is handed back) and,
 * on a miss, made into a new id. `cache` is undefined for fields that are new on every record
 * (record, parent, root, cause). Any layout but the usual one-byte head goes through the general
 * path, which reports the errors.
 */
function expectIdField<T extends MachineId>(
  r: CborReader,
  cls: MachineIdClass<T>,
  make: IdMaker<T>,
  field: string,
  cache: LastIdCache<T> | undefined,
): T {
  if (!r.takeShortHead(ID_HEAD, 16)) return expectId(r, cls, field);
  const buf = r.buf;
  const at = r.pos;
  r.pos = at + 16;
  const w0 = word(buf, at);
  const w1 = word(buf, at + 4);
  const w2 = word(buf, at + 8);
  const w3 = word(buf, at + 12);
  if (cache === undefined) return make(w0, w1, w2, w3);
  const hit = cache.get(w0, w1, w2, w3);
  if (hit !== undefined) return hit;
  const id = make(w0, w1, w2, w3);
  cache.set(id);
  return id;
}

/** An agent id field (wire rule), reusing the previous AgentId object when the bytes repeat. */
function expectAgentId(r: CborReader, field: string, cache: LastAgentIdCache): AgentId {
  const p = r.pos;
  const short = p < r.buf.length ? (r.buf[p] as number) - 0x60 : 0;
  // A name of 1..23 bytes behind a one-byte text head (the common case) skips the general head read.
  if (short > 0 && short < 24 && r.takeShortHead(0x60 + short, short)) return agentIdText(r, short, cache);
  r.head();
  if (r.major !== MAJOR_TEXT) throw shape(`field \`${field}\` in ${SURFACE} must be a string`, SURFACE, field);
  const n = r.arg;
  r.need(n);
  return agentIdText(r, n, cache);
}

/**
 * The agent id whose text is the `n` bytes at the reader's position (checked to be within the
 * input), consumed: the cache comparison and the printable-ASCII check in one pass; printable text
 * of at most MAX_ASCII_TEXT bytes is adopted as it is, anything else goes through the full rule.
 */
function agentIdText(r: CborReader, n: number, cache: LastAgentIdCache): AgentId {
  const buf = r.buf;
  const start = r.pos;
  const hit = cache.scan(buf, start, n);
  if (hit !== undefined) {
    r.pos = start + n;
    return hit;
  }
  let id: AgentId;
  if (cache.printable && n > 0 && n <= MAX_ASCII_TEXT) {
    r.pos = start + n;
    id = adoptCheckedAgentId(asciiText(buf, start, n));
  } else {
    r.arg = n;
    id = AgentId.parse(r.textPayload());
  }
  cache.set(id);
  return id;
}

/**
 * The index in `table` of a known name of 1..23 bytes behind a one-byte text head, consumed; else
 * -1 with nothing consumed, so the caller's general path reads (and checks) the item itself.
 */
function shortKnownText(r: CborReader, table: KeyTable): number {
  const p = r.pos;
  const short = p < r.buf.length ? (r.buf[p] as number) - 0x60 : 0;
  if (short > 0 && short < 24 && r.takeShortHead(0x60 + short, short)) {
    const index = table.indexOf(r.buf, r.pos, short);
    if (index >= 0) {
      r.pos += short;
      return index;
    }
    // Not a known name: give the head back.
    r.pos = p;
    r.itemsLeft++;
  }
  return -1;
}

function expectKind(r: CborReader): AgentKind {
  const known = shortKnownText(r, KIND_TABLE);
  if (known >= 0) return KINDS[known] as AgentKind;
  r.head();
  if (r.major !== MAJOR_TEXT) throw shape(`field \`kind\` in ${SURFACE} must be a string`, SURFACE, 'kind');
  const n = r.arg;
  r.need(n);
  const index = KIND_TABLE.indexOf(r.buf, r.pos, n);
  if (index >= 0) {
    r.pos += n;
    return KINDS[index] as AgentKind;
  }
  const text = r.textPayload();
  if (isAgentKind(text)) return text;
  throw new CodecError(`\`${text}\` is not a recognized agent envelope kind`, {
    context: { surface: SURFACE, operation: 'kind', field: 'kind' },
  });
}

/**
 * The `operation` field: a known operation behind a one-byte head comes back as the interned
 * string (no string built); anything else, with nothing consumed, goes through the general path.
 */
function expectOperation(r: CborReader): string {
  const known = shortKnownText(r, OPERATION_TABLE);
  return known >= 0 ? (OPERATIONS[known] as string) : expectText(r, 'operation');
}

/**
 * A u64 field; values below 1,024 in their shortest head (a chunk sequence: one byte below 24,
 * then a one-byte argument up to 255, then a two-byte one) are read in place. Anything else,
 * including a longer head than needed, goes through the general path, which reports the errors.
 */
function expectSmallU64(r: CborReader, field: string): bigint {
  const buf = r.buf;
  const p = r.pos;
  if (p < buf.length && r.itemsLeft > 0) {
    const b = buf[p] as number;
    if (b < 24) {
      r.itemsLeft--;
      r.pos = p + 1;
      return smallBigInt(b);
    }
    if (b === 24 && p + 1 < buf.length) {
      const v = buf[p + 1] as number;
      if (v >= 24) {
        r.itemsLeft--;
        r.pos = p + 2;
        return smallBigInt(v);
      }
    } else if (b === 25 && p + 2 < buf.length) {
      const v = ((buf[p + 1] as number) << 8) | (buf[p + 2] as number);
      if (v >= 256 && v < SMALL_BIGINTS) {
        r.itemsLeft--;
        r.pos = p + 3;
        return smallBigInt(v);
      }
    }
  }
  return expectU64(r, field);
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
    switch (r.mapKeyIndex(depth, USAGE_KEY_TABLE)) {
      case 0: // input_tokens
        bits = mark(bits, 1, 'input_tokens');
        input = expectU64(r, 'input_tokens');
        break;
      case 1: // output_tokens
        bits = mark(bits, 2, 'output_tokens');
        output = expectU64(r, 'output_tokens');
        break;
      case 2: // reasoning_output_tokens
        bits = mark(bits, 4, 'reasoning_output_tokens');
        reasoning = expectU64(r, 'reasoning_output_tokens');
        break;
      case 3: // cache_read_input_tokens
        bits = mark(bits, 8, 'cache_read_input_tokens');
        cacheRead = expectU64(r, 'cache_read_input_tokens');
        break;
      case 4: // cache_creation_input_tokens
        bits = mark(bits, 16, 'cache_creation_input_tokens');
        cacheCreation = expectU64(r, 'cache_creation_input_tokens');
        break;
      case 5: // cost_micros
        bits = mark(bits, 32, 'cost_micros');
        cost = expectU64(r, 'cost_micros');
        break;
      default:
        unknown = rememberUnknown(unknown, r, r.otherKey);
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
    switch (r.keyIndexAt(0, ENVELOPE_KEY_TABLE)) {
      case 0: // kind
        bits = mark(bits, 1 << 0, 'kind');
        kind = expectKind(r);
        break;
      case 1: // record
        bits = mark(bits, 1 << 1, 'record');
        record = expectIdField(r, RecordId, recordIdOf, 'record', undefined);
        break;
      case 2: // conversation
        bits = mark(bits, 1 << 2, 'conversation');
        conversation = expectIdField(r, ConversationId, conversationIdOf, 'conversation', conversationCache);
        break;
      case 3: // parent
        bits = mark(bits, 1 << 3, 'parent');
        parent = expectIdField(r, ConversationId, conversationIdOf, 'parent', undefined);
        break;
      case 4: // root
        bits = mark(bits, 1 << 4, 'root');
        root = expectIdField(r, ConversationId, conversationIdOf, 'root', undefined);
        break;
      case 5: // source
        bits = mark(bits, 1 << 5, 'source');
        source = expectAgentId(r, 'source', sourceCache);
        break;
      case 6: // target
        bits = mark(bits, 1 << 6, 'target');
        target = expectAgentId(r, 'target', targetCache);
        break;
      case 7: // cause
        bits = mark(bits, 1 << 7, 'cause');
        cause = expectIdField(r, RecordId, recordIdOf, 'cause', undefined);
        break;
      case 8: // cause_at
        bits = mark(bits, 1 << 8, 'cause_at');
        causeAt = expectLogPosition(r, 'cause_at');
        break;
      case 9: // correlation
        bits = mark(bits, 1 << 9, 'correlation');
        correlation = expectIdField(r, CorrelationId, correlationIdOf, 'correlation', correlationCache);
        break;
      case 10: // channel
        bits = mark(bits, 1 << 10, 'channel');
        channel = expectIdField(r, ChannelId, channelIdOf, 'channel', channelCache);
        break;
      case 11: // idempotency_key
        bits = mark(bits, 1 << 11, 'idempotency_key');
        idempotencyKey = IdempotencyKey.new(expectText(r, 'idempotency_key'));
        break;
      case 12: // deadline_micros
        bits = mark(bits, 1 << 12, 'deadline_micros');
        deadlineMicros = expectU64(r, 'deadline_micros');
        break;
      case 13: // sequence
        bits = mark(bits, 1 << 13, 'sequence');
        sequence = expectSmallU64(r, 'sequence');
        break;
      case 14: // last
        bits = mark(bits, 1 << 14, 'last');
        last = expectBool(r, 'last');
        break;
      case 15: // finish_reason
        bits = mark(bits, 1 << 15, 'finish_reason');
        finishReason = expectText(r, 'finish_reason');
        break;
      case 16: // task_state
        bits = mark(bits, 1 << 16, 'task_state');
        taskState = expectSmallUint(r, 'task_state', 0xff);
        break;
      case 17: // operation
        bits = mark(bits, 1 << 17, 'operation');
        operation = expectOperation(r);
        break;
      case 18: // tool
        bits = mark(bits, 1 << 18, 'tool');
        tool = expectText(r, 'tool');
        break;
      case 19: // usage
        bits = mark(bits, 1 << 19, 'usage');
        usage = readUsage(r, 1);
        break;
      case 20: // metadata
        bits = mark(bits, 1 << 20, 'metadata');
        metadata = readMetadata(r, SURFACE, 1, true);
        break;
      case 21: // must_understand
        bits = mark(bits, 1 << 21, 'must_understand');
        mustUnderstand = expectU64(r, 'must_understand');
        break;
      case 22: // body
        bits = mark(bits, 1 << 22, 'body');
        r.head();
        if (r.major !== MAJOR_BYTES) throw shape(`field \`body\` in ${SURFACE} must be bytes`, SURFACE, 'body');
        // A body of up to 64 bytes (a typical chunk) is copied: a small fresh array costs less
        // than a view object and does not keep the whole input alive. Larger bodies are
        // zero-copy views into the input (see decodeEnvelope).
        body = r.arg <= SMALL_BODY_COPY ? r.bytesPayload() : r.bytesView();
        break;
      case 23: // signature
        bits = mark(bits, 1 << 23, 'signature');
        signature = readSignature(r, 1);
        break;
      default:
        unknown = rememberUnknown(unknown, r, r.otherKey);
        r.skip(1);
    }
  }
  if (kind === undefined) throw shape(`missing required field \`kind\` in ${SURFACE}`, SURFACE, 'kind');
  if (conversation === undefined) throw shape(`missing required field \`conversation\` in ${SURFACE}`, SURFACE, 'conversation');
  if (source === undefined) throw shape(`missing required field \`source\` in ${SURFACE}`, SURFACE, 'source');
  // Straight from the locals: no fields object is filled only to be read back.
  return assembleEnvelope(
    kind, record, conversation, parent, root, source, target, cause, causeAt, correlation, channel,
    idempotencyKey, deadlineMicros, sequence, last, finishReason, taskState, operation, tool, usage,
    metadata, mustUnderstand, body, signature,
  );
}

const NO_INPUT = new Uint8Array(0);
/**
 * The one reader {@link decodeEnvelope} uses: a decode runs start to end without calling out to
 * anything that could decode another envelope, so the reader is never needed twice at once.
 */
const sharedReader = new CborReader(NO_INPUT);

/**
 * Strictly decodes one envelope without validating its shape rules: exactly one CBOR item, no
 * trailing bytes, no duplicate keys at any depth, minimal heads, no indefinite-length strings, no
 * tags, valid UTF-8, integer fields only from CBOR integers. Indefinite-length maps and arrays are
 * accepted; unknown top-level keys are ignored.
 *
 * A decoded `body` longer than 64 bytes is a zero-copy view into `bytes` (like cborg's byte
 * strings): copy it (or the input) before reusing the input buffer. Shorter bodies, ids, keys and
 * signature bytes are copies.
 * @throws CodecError (malformed CBOR or a wrong type for a known field, naming the field) or
 * InvalidError (bad id length, agent id or idempotency key) — never anything else.
 */
export function decodeEnvelope(bytes: Uint8Array): AgentEnvelope {
  if (!(bytes instanceof Uint8Array)) {
    throw new CodecError(`failed to decode ${SURFACE}`, { context: { surface: SURFACE, operation: 'decode' } });
  }
  const r = sharedReader;
  r.restart(bytes);
  try {
    if (bytes.length === 0) throw new CborFormatError('did not find any content to decode');
    const env = readEnvelopeMap(r);
    if (!r.atEnd()) throw new CborFormatError('too many terminals');
    return env;
  } catch (e) {
    if (e instanceof CborFormatError) throw formatFailure(SURFACE, e);
    if (AgdxError.is(e)) throw e;
    throw formatFailure(SURFACE, e);
  } finally {
    // Let go of the input: the shared reader must not keep a caller's buffer alive.
    r.restart(NO_INPUT);
  }
}
