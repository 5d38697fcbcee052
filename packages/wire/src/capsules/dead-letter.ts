import { CAPSULE_LIMITS } from '../cbor/capsule-limits.js';
import { FieldReader } from '../cbor/fields.js';
import { encodeCbor, type CborValue } from '../cbor/strict.js';
import { LogPosition } from '../ids/log-position.js';

/** The capsule written to `agent.dlq` for a record that could not be processed. */
export interface AgentDeadLetter {
  /** Where the poison record sits on the log. */
  readonly source: LogPosition;
  /** DeadLetterReason (u8); unknown codes are kept. */
  readonly reason: number;
  /** Delivery attempts made (u32). */
  readonly attempts: number;
  /** Why, in words. */
  readonly detail?: string | undefined;
  /** The original record payload, verbatim. */
  readonly payload: Uint8Array;
}

/** Encodes a dead letter: `source`, `reason`, `attempts`, `detail`, `payload`. */
export function encodeAgentDeadLetter(letter: AgentDeadLetter): Uint8Array {
  const map = new Map<CborValue, CborValue>([
    ['source', letter.source.toBytes()],
    ['reason', BigInt(letter.reason)],
    ['attempts', BigInt(letter.attempts)],
  ]);
  if (letter.detail !== undefined) map.set('detail', letter.detail);
  map.set('payload', letter.payload);
  return encodeCbor(map);
}

/** Decodes a dead letter (surface `body`); a source of the wrong length is InvalidError. */
export function decodeAgentDeadLetter(bytes: Uint8Array): AgentDeadLetter {
  const r = FieldReader.decode(bytes, 'body', CAPSULE_LIMITS.deadLetter);
  const source = LogPosition.fromBytes(r.bytes('source'));
  const reason = r.u8('reason');
  const attempts = r.u32('attempts');
  const detail = r.textOpt('detail');
  const payload = r.bytes('payload');
  return detail === undefined ? { source, reason, attempts, payload } : { source, reason, attempts, detail, payload };
}
