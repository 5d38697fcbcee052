/**
 * Task ids a client cannot guess. The bridge keeps no state of its own, so a task id is all that
 * lets a client read, follow or cancel a task: it must not be derivable from another one.
 */

import { ConversationId, ulidBytes } from '@agdx/wire';

// One CSPRNG call costs about as much as thirty ids, so randomness is drawn for 64 ids at a time.
// Holding it in memory exposes nothing: every id it becomes is written to the log anyway.
const RANDOM_BYTES = 10;
const pool = new Uint8Array(RANDOM_BYTES * 64);
let next = pool.length;

/**
 * A new task id: a ULID of the current millisecond whose 80 random bits are all drawn fresh from
 * the platform CSPRNG. `ConversationId.new()` is monotonic instead: within one millisecond each
 * id is the previous one plus one, so a client holding its own task id could read or cancel the
 * tasks other clients submitted in the same millisecond by adding or subtracting a few.
 */
export function newTaskId(): ConversationId {
  if (next === pool.length) {
    crypto.getRandomValues(pool);
    next = 0;
  }
  const random = pool.subarray(next, next + RANDOM_BYTES);
  next += RANDOM_BYTES;
  return ConversationId.fromBytes(ulidBytes(Date.now(), random));
}
