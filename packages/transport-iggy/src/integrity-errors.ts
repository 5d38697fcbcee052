/**
 * The two ways the client refuses what the server sent even though it decodes: bytes whose
 * checksum does not match, and a reply that does not answer the request it was taken for. Both
 * keep the `transport` kind (readers and retry policies already treat that kind as "try again",
 * which is right: a re-poll over a fresh connection may get clean bytes) and add a class and a
 * marker field so callers can tell them apart from a lost connection.
 */

import { TransportFailureError } from '@agdx/transport';
import type { TransportErrorOptions } from '@agdx/transport';

const BRAND = Symbol.for('agdx.error');

/**
 * The `instanceof` test of both classes: the AGDX brand, kind `transport` and the class's own
 * marker field among `accepted` values, so it holds across separately installed copies.
 */
function isTransportFailureWith(value: unknown, field: string, accepted: readonly string[]): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const fields = value as Record<string | symbol, unknown>;
  return fields[BRAND] === true && fields['kind'] === 'transport' && accepted.includes(fields[field] as string);
}

const CHECKSUM_SCOPES: readonly ChecksumScope[] = ['message', 'batch'];
const MISMATCHES: readonly UnexpectedReplyReason[] = ['request-number', 'nothing-in-flight', 'poll-mismatch', 'reply-shape'];

/** Which checksum failed: a message's own (Iggy 4027) or a VSR batch's (Iggy 4039). */
export type ChecksumScope = 'message' | 'batch';

/**
 * A polled message or VSR batch whose XXH3-64 checksum does not match its bytes. The poll fails
 * as a whole, so no record of a corrupted reply reaches `read` or a group poll.
 * `context.iggyCode` is 4027 (message) or 4039 (batch); `context.partition` names the partition.
 */
export class ChecksumMismatchError extends TransportFailureError {
  /** Which checksum failed. */
  readonly checksum: ChecksumScope;

  /** Creates the error; `checksum` says which checksum did not match. */
  constructor(message: string, checksum: ChecksumScope, options?: TransportErrorOptions) {
    super(message, options);
    this.checksum = checksum;
  }

  /** Brand, kind `transport` and the `checksum` field, across separately installed copies. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isTransportFailureWith(value, 'checksum', CHECKSUM_SCOPES);
  }
}

/** Why a reply was refused as not answering its request. */
export type UnexpectedReplyReason =
  /** VSR: the echoed request number (or operation) is not the one in flight. */
  | 'request-number'
  /** A reply arrived while no request was waiting (for example a duplicated reply). */
  | 'nothing-in-flight'
  /** A poll reply names another partition, or holds records before the requested offset. */
  | 'poll-mismatch'
  /** Classic: a reply that is not shaped like the answer to its command (likely another's). */
  | 'reply-shape';

/**
 * A reply that does not answer the request it would be matched to. The connection is reset (the
 * reply stream can no longer be trusted) and reconnects: idempotent calls in flight are written
 * again, others fail with a `transport` error whose outcome is unknown, as after any lost
 * connection. `mismatch` says what did not match.
 */
export class UnexpectedReplyError extends TransportFailureError {
  /** What did not match. */
  readonly mismatch: UnexpectedReplyReason;

  /** Creates the error; `mismatch` says what did not match. */
  constructor(message: string, mismatch: UnexpectedReplyReason, options?: TransportErrorOptions) {
    super(message, options);
    this.mismatch = mismatch;
  }

  /** Brand, kind `transport` and a string `mismatch` field, across separately installed copies. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isTransportFailureWith(value, 'mismatch', MISMATCHES);
  }
}
