import type { AgentKind } from '../dictionaries/agent-kind.js';
import { InvalidError } from '../errors.js';
import { type MachineId, writeIdBytes } from '../ids/machine-id.js';
import type { AgentEnvelope } from '../envelope/agent-envelope.js';
import type { Signature, SignatureContext } from '../envelope/signature.js';
import type { TokenUsage } from '../usage/token-usage.js';
import { writeMetadata } from './metadata-codec.js';
import { type ByteWriter, encodeIntoWith, encodeWith } from './writer.js';

const U64_MAX = (1n << 64n) - 1n;
/** A CBOR map head of fewer than 24 entries is this byte or'ed with the count. */
const MAP_HEAD_SMALL = 0xa0;

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
  // The usual value (a count, a sequence number) fits 32 bits: two comparisons and a number head.
  if (typeof v === 'bigint' && v >= 0n && v <= 0xffffffffn) {
    w.head(0, Number(v));
    return;
  }
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
  // Key, a 16-byte string head and the id in one reservation: the most frequent write of all.
  const kn = key.length;
  w.ensure(kn + 17);
  const buf = w.buf;
  let p = w.pos;
  for (let i = 0; i < kn; i++) buf[p++] = key[i] as number;
  buf[p++] = 0x50;
  writeIdBytes(id, buf, p);
  w.pos = p + 16;
}

function writeUsage(w: ByteWriter, u: TokenUsage): void {
  // A one-byte map head (at most six entries), patched once the optional ones are counted.
  const head = w.pos - w.start;
  w.byte(MAP_HEAD_SMALL);
  let n = 2;
  w.raw(K.input_tokens);
  uintChecked(w, u.inputTokens, 'input_tokens');
  w.raw(K.output_tokens);
  uintChecked(w, u.outputTokens, 'output_tokens');
  if (u.reasoningOutputTokens !== undefined) {
    w.raw(K.reasoning_output_tokens);
    uintChecked(w, u.reasoningOutputTokens, 'reasoning_output_tokens');
    n++;
  }
  if (u.cacheReadInputTokens !== undefined) {
    w.raw(K.cache_read_input_tokens);
    uintChecked(w, u.cacheReadInputTokens, 'cache_read_input_tokens');
    n++;
  }
  if (u.cacheCreationInputTokens !== undefined) {
    w.raw(K.cache_creation_input_tokens);
    uintChecked(w, u.cacheCreationInputTokens, 'cache_creation_input_tokens');
    n++;
  }
  if (u.costMicros !== undefined) {
    w.raw(K.cost_micros);
    uintChecked(w, u.costMicros, 'cost_micros');
    n++;
  }
  patchMapHead(w, head, n);
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

function writeEnvelopeUnsigned(w: ByteWriter, e: AgentEnvelope): void {
  writeEnvelope(w, e, false);
}

/**
 * Writes the whole envelope in canonical key order, visiting each field once: the map head is a
 * one-byte placeholder counted up while writing and patched at the end (24 entries, the only count
 * that needs a two-byte head, moves the entries one byte up). @internal
 */
export function writeEnvelope(w: ByteWriter, e: AgentEnvelope, withSignature = true): void {
  const kind = KIND_VALUE[e.kind];
  if (kind === undefined) throw new InvalidError(`\`${String(e.kind)}\` is not a recognized agent envelope kind`, { context: { field: 'kind' } });
  // Offsets from `start`, not absolute positions: the writer may move to a larger buffer.
  const head = w.pos - w.start;
  w.byte(MAP_HEAD_SMALL);
  let n = 3;
  w.raw(K.kind);
  w.raw(kind);
  if (e.record !== undefined) {
    writeId(w, K.record, e.record);
    n++;
  }
  writeId(w, K.conversation, e.conversation);
  if (e.parent !== undefined) {
    writeId(w, K.parent, e.parent);
    n++;
  }
  if (e.root !== undefined) {
    writeId(w, K.root, e.root);
    n++;
  }
  w.raw(K.source);
  w.text(e.source.value);
  if (e.target !== undefined) {
    w.raw(K.target);
    w.text(e.target.value);
    n++;
  }
  if (e.cause !== undefined) {
    writeId(w, K.cause, e.cause);
    n++;
  }
  if (e.causeAt !== undefined) {
    w.raw(K.cause_at);
    w.ensure(21);
    w.byte(0x54);
    e.causeAt.writeTo(w.buf, w.pos);
    w.pos += 20;
    n++;
  }
  if (e.correlation !== undefined) {
    writeId(w, K.correlation, e.correlation);
    n++;
  }
  if (e.channel !== undefined) {
    writeId(w, K.channel, e.channel);
    n++;
  }
  if (e.idempotencyKey !== undefined) {
    w.raw(K.idempotency_key);
    w.text(e.idempotencyKey.value);
    n++;
  }
  if (e.deadlineMicros !== undefined) {
    w.raw(K.deadline_micros);
    uintChecked(w, e.deadlineMicros, 'deadline_micros');
    n++;
  }
  if (e.sequence !== undefined) {
    w.raw(K.sequence);
    uintChecked(w, e.sequence, 'sequence');
    n++;
  }
  if (e.last) {
    w.raw(K.last);
    w.byte(0xf5);
    n++;
  }
  if (e.finishReason !== undefined) {
    w.raw(K.finish_reason);
    w.text(e.finishReason);
    n++;
  }
  if (e.taskState !== undefined) {
    w.raw(K.task_state);
    smallUintChecked(w, e.taskState, 0xff, 'task_state');
    n++;
  }
  if (e.operation !== undefined) {
    w.raw(K.operation);
    w.text(e.operation);
    n++;
  }
  if (e.tool !== undefined) {
    w.raw(K.tool);
    w.text(e.tool);
    n++;
  }
  if (e.usage !== undefined) {
    w.raw(K.usage);
    writeUsage(w, e.usage);
    n++;
  }
  if (e.metadata !== undefined) {
    w.raw(K.metadata);
    writeMetadata(w, e.metadata);
    n++;
  }
  if (e.mustUnderstand !== 0n) {
    w.raw(K.must_understand);
    uintChecked(w, e.mustUnderstand, 'must_understand');
    n++;
  }
  if (e.body.length !== 0) {
    w.raw(K.body);
    w.bytes(e.body);
    n++;
  }
  const sig = withSignature ? e.signature : undefined;
  if (sig !== undefined) {
    w.raw(K.signature);
    writeSignature(w, sig);
    n++;
  }
  patchMapHead(w, head, n);
}

// Sets the one-byte placeholder map head written at `head` (an offset from `w.start`) to `n`
// entries; `n` is at most 24 (an envelope's three required keys and 21 optional ones).
function patchMapHead(w: ByteWriter, head: number, n: number): void {
  if (n < 24) {
    w.buf[w.start + head] = MAP_HEAD_SMALL | n;
    return;
  }
  w.ensure(1);
  const at = w.start + head;
  w.buf.copyWithin(at + 2, at + 1, w.pos);
  w.buf[at] = MAP_HEAD_SMALL | 24;
  w.buf[at + 1] = n;
  w.pos += 1;
}

/**
 * A lower bound of an envelope's encoded size that costs nothing to know: its body length (0 for
 * anything that is not an envelope with a byte body, which the writer then refuses with a typed
 * error). Read defensively because the low-level encoders accept unvalidated objects.
 */
function bodyLowerBound(e: AgentEnvelope): number {
  try {
    const body: unknown = e.body;
    return body instanceof Uint8Array ? body.length : 0;
  } catch {
    return 0;
  }
}

/** Options of {@link encodeEnvelope}. */
export interface EncodeEnvelopeOptions {
  /**
   * Supplies the output array for the exact encoded size (for example a view into a pool the
   * caller manages); it must return a Uint8Array of exactly `byteLength` bytes, into which the
   * encoding is copied. Without it the result is a view into the shared output slab.
   */
  readonly allocate?: ((byteLength: number) => Uint8Array) | undefined;
}

/**
 * Canonical CBOR bytes of an envelope, without validation: fixed key order (seed fields `parent`
 * and `root` after `conversation`, `cost_micros` last in usage), defaults omitted, every field
 * written once.
 *
 * Without `allocate` the result is a view carved out of a shared 64 KiB output slab rather than a
 * fresh array: no later encoding ever writes to it, so it can be kept as long as needed, but its
 * `byteOffset` may be non-zero and its `buffer` holds other encodings (call `slice()` for an
 * ArrayBuffer of its own, for example to transfer it), and a kept result keeps its slab chunk alive.
 * @throws InvalidError when a numeric field is outside its wire range, or `allocate` returns
 * something other than a Uint8Array of the requested length.
 */
export function encodeEnvelope(envelope: AgentEnvelope, options?: EncodeEnvelopeOptions): Uint8Array {
  return encodeWith(writeEnvelope, envelope, options?.allocate, bodyLowerBound(envelope));
}

/**
 * Writes the canonical CBOR bytes of an envelope (as {@link encodeEnvelope}, without validation)
 * straight into `target` from `offset` and returns how many bytes it wrote: the allocation-free
 * send path for a caller that keeps its own (pooled) buffers, where the body, already bytes, is
 * copied once, into `target`; room for exactly the encoded size suffices. On failure the bytes of
 * `target` from `offset` on may have been overwritten.
 * @throws InvalidError with `context.field` = `target` when `target` is not a Uint8Array, `offset`
 * is not an integer in `0..target.length`, or the encoding does not fit in the room left
 * (`context.room`; `context.atLeast` is a lower bound of what it needs); InvalidError when a
 * numeric field is outside its wire range.
 */
export function encodeEnvelopeInto(envelope: AgentEnvelope, target: Uint8Array, offset = 0): number {
  return encodeIntoWith(writeEnvelope, envelope, target, offset);
}

/**
 * Canonical CBOR bytes of the envelope with `signature` left out: the span a signature covers. The
 * result is a slab view, as from {@link encodeEnvelope} without `allocate`.
 */
export function encodeEnvelopeUnsigned(envelope: AgentEnvelope): Uint8Array {
  return encodeWith(writeEnvelopeUnsigned, envelope, undefined, bodyLowerBound(envelope));
}

/**
 * {@link encodeEnvelopeUnsigned} written into `target` from `offset`, as {@link encodeEnvelopeInto}
 * (same errors): lets a signer build the signing input in a buffer it reuses.
 */
export function encodeEnvelopeUnsignedInto(envelope: AgentEnvelope, target: Uint8Array, offset = 0): number {
  return encodeIntoWith(writeEnvelopeUnsigned, envelope, target, offset);
}

/**
 * Canonical CBOR map of a signature context: `content_type` then `agent_version`, each only when
 * present (a slab view, as from {@link encodeEnvelope}). @agdx/sign builds the signing input `"agdx.signature.v1" ‖ this ‖ CBOR(envelope without signature)`.
 */
export function encodeSignatureContext(ctx: SignatureContext): Uint8Array {
  return encodeWith(writeSignatureContext, ctx);
}
