import { CAPSULE_LIMITS } from '../cbor/capsule-limits.js';
import { FieldReader } from '../cbor/fields.js';
import { encodeCbor, type CborValue } from '../cbor/strict.js';
import { CodecError, InvalidError } from '../errors.js';
import { AgentId } from '../ids/agent-id.js';
import { LogPosition } from '../ids/log-position.js';

/** Control operations on `agent.control`. */
export const SessionControlOperation: {
  readonly Pause: 'session_pause';
  readonly Resume: 'session_resume';
  readonly Cancel: 'session_cancel';
  readonly ForceCancel: 'force_cancel';
} = { Pause: 'session_pause', Resume: 'session_resume', Cancel: 'session_cancel', ForceCancel: 'force_cancel' };

/** A session control operation. */
export type SessionControlOperation = (typeof SessionControlOperation)[keyof typeof SessionControlOperation];

/** Event operations that park and unpark a record. */
export const SESSION_PARKED_OPERATION = 'session_parked';
/** Event operation written after a parked record was handled. */
export const SESSION_UNPARKED_OPERATION = 'session_unparked';

/** The JSON body of a `session_pause` command: who must acknowledge. */
export interface SessionPauseRequest {
  /** Participants asked to pause (empty = none named). */
  readonly participants: readonly AgentId[];
}

const encoder = new TextEncoder();
// The default decoder drops one leading byte order mark, which JSON allows a parser to ignore:
// a body written with one is still read; marks inside the JSON strings are kept.
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Largest accepted pause request body: room for about a thousand participants of 250-byte agent
 * ids, far beyond any real session.
 */
export const MAX_PAUSE_REQUEST_BYTES: number = 256 * 1024;

/** Encodes a pause request as JSON; an empty set is written as `{}`. */
export function encodeSessionPauseRequest(request: SessionPauseRequest): Uint8Array {
  const json = request.participants.length === 0 ? {} : { participants: request.participants.map((a) => a.toString()) };
  return encoder.encode(JSON.stringify(json));
}

/**
 * Decodes a pause request; an empty body means no participants. Errors are CodecErrors with the
 * documented messages; a body over {@link MAX_PAUSE_REQUEST_BYTES} is refused before parsing.
 */
export function decodeSessionPauseRequest(bytes: Uint8Array): SessionPauseRequest {
  if (bytes.length === 0) return { participants: [] };
  // JSON.parse has no limits of its own: the cap bounds its time and memory before it runs.
  if (bytes.length > MAX_PAUSE_REQUEST_BYTES) {
    throw new CodecError('invalid session pause request', {
      context: { surface: 'session pause request', operation: 'json', bytes: bytes.length, cap: MAX_PAUSE_REQUEST_BYTES },
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(decoder.decode(bytes));
  } catch (error) {
    throw new CodecError('invalid session pause request', { context: { surface: 'session pause request', operation: 'json' }, cause: error });
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new CodecError('a session pause request is a JSON object', { context: { surface: 'session pause request', operation: 'json' } });
  }
  const raw = (json as Record<string, unknown>)['participants'];
  if (raw === undefined || raw === null) return { participants: [] };
  if (!Array.isArray(raw)) throw new CodecError('pause participants are agent ids', { context: { surface: 'session pause request', operation: 'participants' } });
  const participants = raw.map((item: unknown) => {
    const id = typeof item === 'string' ? AgentId.tryParse(item) : undefined;
    if (id === undefined) throw new CodecError('pause participants are agent ids', { context: { surface: 'session pause request', operation: 'participants' } });
    return id;
  });
  return { participants };
}

/** Where a parked record came from (externally tagged on the wire). */
export type SourceRef =
  | {
      readonly kind: 'message';
      readonly stream: number;
      readonly topic: number;
      readonly partition: number;
      readonly offset: bigint;
      readonly generation?: bigint | undefined;
      readonly conversation?: string | undefined;
    }
  | { readonly kind: 'kv'; readonly namespace: string; readonly key: string }
  | { readonly kind: 'memory'; readonly id: string };

/** The body of a `session_parked` / `session_unparked` event. */
export interface SessionParking {
  /** The parked record; must be a log message that names its topic generation. */
  readonly source: SourceRef;
  /** The participant that parked it. */
  readonly role: AgentId;
  /** The control request that caused the parking. */
  readonly request: LogPosition;
}

/** Checks the parking rules (InvalidError with the documented messages). */
export function validateSessionParking(parking: SessionParking): void {
  if (parking.source.kind !== 'message') throw new InvalidError('a parked record must point at a log record', { context: { field: 'source' } });
  if (parking.source.generation === undefined) {
    throw new InvalidError('a parked record must name its source topic generation', { context: { field: 'source' } });
  }
}

function sourceToCbor(source: SourceRef): CborValue {
  if (source.kind === 'kv') return new Map<CborValue, CborValue>([['Kv', new Map<CborValue, CborValue>([['namespace', source.namespace], ['key', source.key]])]]);
  if (source.kind === 'memory') return new Map<CborValue, CborValue>([['Memory', new Map<CborValue, CborValue>([['id', source.id]])]]);
  const inner = new Map<CborValue, CborValue>([
    ['stream', BigInt(source.stream)],
    ['topic', BigInt(source.topic)],
    ['partition', BigInt(source.partition)],
    ['offset', source.offset],
  ]);
  if (source.generation !== undefined) inner.set('generation', source.generation);
  if (source.conversation !== undefined) inner.set('conversation', source.conversation);
  return new Map<CborValue, CborValue>([['Message', inner]]);
}

/** Validates and encodes a parking body: `source`, `role`, `request`. */
export function encodeSessionParking(parking: SessionParking): Uint8Array {
  validateSessionParking(parking);
  return encodeCbor(
    new Map<CborValue, CborValue>([
      ['source', sourceToCbor(parking.source)],
      ['role', parking.role.toString()],
      ['request', parking.request.toBytes()],
    ]),
  );
}

function readSource(r: FieldReader): SourceRef {
  const message = r.mapOpt('Message');
  if (message !== undefined) {
    const out: { -readonly [K in keyof Extract<SourceRef, { kind: 'message' }>]: Extract<SourceRef, { kind: 'message' }>[K] } = {
      kind: 'message',
      stream: message.u32('stream'),
      topic: message.u32('topic'),
      partition: message.u32('partition'),
      offset: message.u64('offset'),
    };
    const generation = message.u64Opt('generation');
    const conversation = message.textOpt('conversation');
    if (generation !== undefined) out.generation = generation;
    if (conversation !== undefined) out.conversation = conversation;
    return out;
  }
  const kv = r.mapOpt('Kv');
  if (kv !== undefined) return { kind: 'kv', namespace: kv.text('namespace'), key: kv.text('key') };
  const memory = r.mapOpt('Memory');
  if (memory !== undefined) return { kind: 'memory', id: memory.text('id') };
  throw r.error('source', `unknown source reference in ${r.surface}`);
}

/** Decodes and validates a parking body (surface `session parking`). */
export function decodeSessionParking(bytes: Uint8Array): SessionParking {
  const r = FieldReader.decode(bytes, 'session parking', CAPSULE_LIMITS.sessionParking);
  const parking: SessionParking = {
    source: readSource(r.map('source')),
    role: AgentId.parse(r.text('role')),
    request: LogPosition.fromBytes(r.bytes('request')),
  };
  validateSessionParking(parking);
  return parking;
}
