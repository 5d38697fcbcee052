import { AgentEnvelope } from '../envelope/agent-envelope.js';
import { CodecError } from '../errors.js';
import { MAX_SDK_AGENT_ID_BYTES, type AgentId } from '../ids/agent-id.js';
import { utf8Length } from '../ids/utf8.js';
import { encodeHeaderBlock, type HeaderBlockOptions } from './header-block.js';
import { invalidHeader, type RecordHeaders } from './header-value.js';
import { AGENT_OP_VERSION, HeaderName } from './names.js';
import { decodeProvenanceHeaders, type Provenance } from './provenance.js';

/** An envelope ready to append: partition key, header block and payload. */
export interface EnvelopeRecord {
  /** The conversation's canonical Crockford text (keyed partitioning). */
  readonly partitionKey: string;
  /** The seed-000 header block. */
  readonly headers: RecordHeaders;
  /** The canonical CBOR envelope. */
  readonly payload: Uint8Array;
}

/**
 * Builds the record for an envelope: validates and encodes it, projects the header block and
 * keys it by conversation. InvalidError when the envelope or a header value breaks a rule.
 */
export function envelopeRecord(envelope: AgentEnvelope, contentType: number, options: HeaderBlockOptions = {}): EnvelopeRecord {
  const payload = envelope.encode();
  return { partitionKey: envelope.conversation.toString(), headers: encodeHeaderBlock(envelope, contentType, options), payload };
}

/** A received record, classified. */
export type ReceivedRecord =
  | {
      /** The record carried `agdx.av`: a validated envelope. */
      readonly kind: 'envelope';
      /** The envelope. */
      readonly envelope: AgentEnvelope;
      /** `agdx.ct` code, when present. */
      readonly contentType: number | undefined;
      /** Provenance projected from the envelope. */
      readonly provenance: Provenance;
    }
  | {
      /** A generic record read through its provenance headers. */
      readonly kind: 'plain';
      /** The payload, untouched. */
      readonly payload: Uint8Array;
      /** `agdx.ct` code, when present. */
      readonly contentType: number | undefined;
      /** Provenance from the headers. */
      readonly provenance: Provenance;
    };

const FENCE_METADATA_KEY = 'agdx.fence';
const U64_MAX = (1n << 64n) - 1n;

// The decoder already held the id to the wire rule (non-empty, no control characters, at most
// 256 bytes); the SDK rule differs only in its 255-byte cap, so no second id is built to check it.
function sdkAgent(id: AgentId): string | undefined {
  const text = id.value;
  // A UTF-16 unit is at most 3 UTF-8 bytes: short ids need no count.
  return text.length <= MAX_SDK_AGENT_ID_BYTES / 3 || utf8Length(text) <= MAX_SDK_AGENT_ID_BYTES ? text : undefined;
}

function envelopeProvenance(env: AgentEnvelope): Provenance {
  const p: { -readonly [K in keyof Provenance]: Provenance[K] } = { conversation: env.conversation };
  if (env.parent !== undefined) p.parent = env.parent;
  if (env.root !== undefined) p.root = env.root;
  // The wire allows 256-byte agent ids; provenance carries only what the SDK AgentId accepts.
  const agent = sdkAgent(env.source);
  const target = env.target === undefined ? undefined : sdkAgent(env.target);
  if (agent !== undefined) p.agent = agent;
  if (target !== undefined) p.target = target;
  if (env.correlation !== undefined) p.correlation = env.correlation.toString();
  if (env.idempotencyKey !== undefined) p.idempotencyKey = env.idempotencyKey.value;
  if (env.deadlineMicros !== undefined) p.deadlineMicros = env.deadlineMicros;
  const fence = env.metadata?.get(FENCE_METADATA_KEY);
  if (typeof fence === 'bigint' && fence >= 0n && fence <= U64_MAX) p.fence = fence;
  return p;
}

function contentTypeOf(headers: RecordHeaders): number | undefined {
  const ct = headers.get(HeaderName.ContentType);
  if (ct === undefined) return undefined;
  if (ct.kind !== 'uint8' || ct.value.length !== 1) throw new CodecError('invalid content-type header', { context: { surface: 'headers', operation: HeaderName.ContentType } });
  // Kind and length are checked: the code is the byte (readUint8Header would go through bigints).
  const code = ct.value;
  if (!(code instanceof Uint8Array)) throw invalidHeader(HeaderName.ContentType);
  return code[0] as number;
}

function classify(headers: RecordHeaders, payload: Uint8Array, understoodFeatures: bigint): ReceivedRecord {
  const av = headers.get(HeaderName.Version);
  if (av === undefined) {
    const contentType = contentTypeOf(headers);
    return { kind: 'plain', payload, contentType, provenance: decodeProvenanceHeaders(headers) };
  }
  // Little-endian by hand: a DataView per record cost more than the rest of this check.
  const v = av.value;
  const version = av.kind === 'uint32' && v instanceof Uint8Array && v.length === 4 ? ((v[0] as number) | ((v[1] as number) << 8) | ((v[2] as number) << 16) | ((v[3] as number) << 24)) >>> 0 : undefined;
  if (version !== AGENT_OP_VERSION) {
    throw new CodecError('unsupported agent envelope version', { context: { surface: 'headers', operation: HeaderName.Version } });
  }
  const contentType = contentTypeOf(headers);
  const envelope = AgentEnvelope.decode(payload);
  const unmet = envelope.unmetRequirements(understoodFeatures);
  if (unmet !== 0n) {
    throw new CodecError(`agent envelope requires unsupported features 0x${unmet.toString(16).padStart(16, '0')}`, {
      context: { surface: 'agent envelope', operation: 'must_understand', unmet },
    });
  }
  return { kind: 'envelope', envelope, contentType, provenance: envelopeProvenance(envelope) };
}

/**
 * The receive rule: a record is an envelope record iff it carries `agdx.av`. Then `agdx.av` must
 * be uint32 1, `agdx.ct` (when present) uint8, the payload must decode and validate, and every
 * `must_understand` bit must be in `understoodFeatures`. Without `agdx.av` the record is generic
 * and its provenance headers are read (conversation as text or the older uint128). Any failure
 * is CodecError `failed to decode agent message` with the reason as `cause`: the caller
 * dead-letters the record with its original bytes.
 */
export function readEnvelopeRecord(headers: RecordHeaders, payload: Uint8Array, understoodFeatures: bigint = 0n): ReceivedRecord {
  try {
    return classify(headers, payload, understoodFeatures);
  } catch (error) {
    throw new CodecError('failed to decode agent message', { context: { surface: 'agent message', operation: 'decode' }, cause: error });
  }
}
