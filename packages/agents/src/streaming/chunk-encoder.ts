import {
  AgentEnvelope,
  encodeEnvelope,
  InvalidError,
  validateEnvelope,
  type AgentId,
  type ChannelId,
  type ConversationId,
  type CorrelationId,
  type LogPosition,
  type RecordId,
} from '@agdx/wire';
import { payloadBytes } from '../client/payload-slab.js';

const U64_MAX = (1n << 64n) - 1n;
const PROBE_BODY = Uint8Array.of(0);
// What wire's encoder writes for `sequence: 1, body: h'00'` at the end of a chunk: the sequence
// value, the `body` key, then the one-byte byte string.
const PROBE_TAIL = Uint8Array.of(0x01, 0x64, 0x62, 0x6f, 0x64, 0x79, 0x41, 0x00);
const SEQUENCE_KEY = Uint8Array.of(0x68, 0x73, 0x65, 0x71, 0x75, 0x65, 0x6e, 0x63, 0x65);
const BODY_KEY = Uint8Array.of(0x64, 0x62, 0x6f, 0x64, 0x79);

/** The fields every later chunk of one stream shares. */
export interface ChunkStreamFields {
  /** Session. */
  readonly conversation: ConversationId;
  /** Author. */
  readonly source: AgentId;
  /** Addressee, when set. */
  readonly target?: AgentId | undefined;
  /** The answered record, when set. */
  readonly cause?: RecordId | undefined;
  /** The answered record's log position, when set. */
  readonly causeAt?: LogPosition | undefined;
  /** Correlation. */
  readonly correlation: CorrelationId;
  /** Channel. */
  readonly channel: ChannelId;
}

function headLength(value: number | bigint): number {
  if (value < 24) return 1;
  if (value < 0x100) return 2;
  if (value < 0x10000) return 3;
  if (value < 0x100000000) return 5;
  return 9;
}

function writeHead(out: Uint8Array, at: number, major: number, value: number | bigint): number {
  const n = headLength(value);
  if (n === 1) {
    out[at] = major | Number(value);
    return at + 1;
  }
  out[at] = major | (n === 2 ? 24 : n === 3 ? 25 : n === 5 ? 26 : 27);
  let v = BigInt(value);
  for (let i = n - 1; i >= 1; i--) {
    out[at + i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return at + n;
}

function endsWith(bytes: Uint8Array, tail: Uint8Array, offset: number): boolean {
  const start = bytes.length - offset - tail.length;
  if (start < 0) return false;
  for (let i = 0; i < tail.length; i++) if (bytes[start + i] !== tail[i]) return false;
  return true;
}

/**
 * The chunk writer's encoder for the chunks after the opening one and before the terminal, the
 * hot path of a stream (one per token). Those chunks differ only in `sequence` and `body`, so the
 * encoder asks wire to validate and encode one probe chunk of the stream, keeps its bytes up to
 * the sequence value, and splices each chunk's sequence and body after them.
 *
 * The probe carries every constant field, so it passes wire's whole rule set once; for such a
 * chunk wire's remaining rules are exactly the two {@link ChunkEncoder.encode} checks (sequence
 * within u64 and not 0, body not empty: the cap is the writer's 64 KiB). The output is
 * byte-identical to `encodeEnvelope` of the same chunk (see the differential test).
 */
export class ChunkEncoder {
  readonly #prefix: Uint8Array;

  private constructor(prefix: Uint8Array) {
    this.#prefix = prefix;
  }

  /**
   * An encoder for the stream's later chunks, or `undefined` when wire's encoding of the probe
   * does not end in the layout this encoder splices into (then use the generic path).
   * @throws InvalidError when the stream's constant fields break a rule.
   */
  static for(fields: ChunkStreamFields): ChunkEncoder | undefined {
    const probe = AgentEnvelope.fromFields({
      kind: 'chunk',
      conversation: fields.conversation,
      source: fields.source,
      target: fields.target,
      cause: fields.cause,
      causeAt: fields.causeAt,
      correlation: fields.correlation,
      channel: fields.channel,
      sequence: 1n,
      body: PROBE_BODY,
    });
    validateEnvelope(probe);
    const bytes = encodeEnvelope(probe);
    if (!endsWith(bytes, PROBE_TAIL, 0) || !endsWith(bytes, SEQUENCE_KEY, PROBE_TAIL.length)) return undefined;
    return new ChunkEncoder(bytes.slice(0, bytes.length - PROBE_TAIL.length));
  }

  /**
   * The canonical CBOR of the chunk with this sequence and body (a view into a shared slab that
   * is never written again).
   * @throws InvalidError for sequence 0 (the opening chunk carries the purpose), a sequence beyond
   * u64, or an empty body (only the terminal chunk may be empty).
   */
  encode(sequence: bigint, body: Uint8Array): Uint8Array {
    if (sequence < 1n || sequence > U64_MAX) {
      throw new InvalidError('`sequence`: a later chunk has a sequence from 1 to 2^64-1', { context: { field: 'sequence' } });
    }
    if (body.length === 0) throw new InvalidError('chunk requires `body`', { context: { field: 'body' } });
    const prefix = this.#prefix;
    const seq = sequence < 0x100000000n ? Number(sequence) : sequence;
    const out = payloadBytes(prefix.length + headLength(seq) + BODY_KEY.length + headLength(body.length) + body.length);
    out.set(prefix, 0);
    let at = writeHead(out, prefix.length, 0x00, seq);
    out.set(BODY_KEY, at);
    at = writeHead(out, at + BODY_KEY.length, 0x40, body.length);
    out.set(body, at);
    return out;
  }
}
