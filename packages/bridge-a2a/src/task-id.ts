/**
 * Task ids a client cannot guess. The bridge keeps no state of its own, so a task id is all that
 * lets a client read, follow or cancel a task: it must not be derivable from another one.
 */

import { ConversationId, ulidBytes } from '@agdx/wire';

/**
 * A new task id: a ULID of the current millisecond whose 80 random bits are all drawn fresh from
 * the platform CSPRNG. `ConversationId.new()` is monotonic instead: within one millisecond each
 * id is the previous one plus one, so a client holding its own task id could read or cancel the
 * tasks other clients submitted in the same millisecond by adding or subtracting a few.
 */
export function newTaskId(): ConversationId {
  const random = new Uint8Array(10);
  crypto.getRandomValues(random);
  return ConversationId.fromBytes(ulidBytes(Date.now(), random));
}
