import { CAPSULE_LIMITS } from '../cbor/capsule-limits.js';
import { FieldReader } from '../cbor/fields.js';
import { encodeCbor, type CborValue } from '../cbor/strict.js';
import { CodecError, InvalidError } from '../errors.js';
import { ConversationId } from '../ids/machine-id.js';

/** Most sessions one heartbeat record names; larger sets are split across records. */
export const MAX_HEARTBEAT_SESSIONS = 2048;
/** Status operation of a heartbeat record. */
export const HEARTBEAT_OPERATION = 'progress';
/** Topic of heartbeat records. */
export const HEARTBEAT_TOPIC = 'agent.heartbeats';

/** The body of a heartbeat record on `agent.heartbeats`. */
export interface SessionHeartbeat {
  /** The process holding the leases. */
  readonly process: string;
  /** The stream the sessions live on. */
  readonly stream: string;
  /** Sessions this process holds (≤ 2,048). */
  readonly sessions: readonly ConversationId[];
}

function checkCount(count: number): void {
  if (count > MAX_HEARTBEAT_SESSIONS) {
    throw new InvalidError(`\`sessions\` has ${count} entries, exceeds cap ${MAX_HEARTBEAT_SESSIONS}`, {
      context: { field: 'sessions', count, cap: MAX_HEARTBEAT_SESSIONS },
    });
  }
}

/** Encodes a heartbeat: `process`, `stream`, `sessions` (16-byte ids). InvalidError beyond 2,048 sessions. */
export function encodeSessionHeartbeat(heartbeat: SessionHeartbeat): Uint8Array {
  checkCount(heartbeat.sessions.length);
  return encodeCbor(
    new Map<CborValue, CborValue>([
      ['process', heartbeat.process],
      ['stream', heartbeat.stream],
      ['sessions', heartbeat.sessions.map((id) => id.toBytes())],
    ]),
  );
}

/** Decodes a heartbeat (surface `heartbeat`). */
export function decodeSessionHeartbeat(bytes: Uint8Array): SessionHeartbeat {
  const r = FieldReader.decode(bytes, 'heartbeat', CAPSULE_LIMITS.sessionHeartbeat);
  const process = r.text('process');
  const stream = r.text('stream');
  const raw = r.array('sessions');
  checkCount(raw.length);
  const sessions = raw.map((item) => {
    if (!(item instanceof Uint8Array)) throw new CodecError('field `sessions` in heartbeat must hold bytes', { context: { surface: 'heartbeat', operation: 'sessions' } });
    return ConversationId.fromBytes(item);
  });
  return { process, stream, sessions };
}

/** Splits a session set into heartbeat-sized groups (each ≤ 2,048), preserving order. */
export function splitHeartbeatSessions(sessions: readonly ConversationId[]): ConversationId[][] {
  const groups: ConversationId[][] = [];
  for (let i = 0; i < sessions.length; i += MAX_HEARTBEAT_SESSIONS) groups.push(sessions.slice(i, i + MAX_HEARTBEAT_SESSIONS));
  return groups;
}
