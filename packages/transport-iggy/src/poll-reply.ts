/**
 * The checks a poll reply passes before any of its records reaches a caller: every message and
 * VSR batch checksum (XXH3-64) must match its bytes, and the reply must plausibly answer the
 * poll that was sent. Classic replies carry no request id, so a duplicated or stray reply can
 * only be recognised by what it holds: another partition, records before the requested offset,
 * more records than asked for, or offsets out of order.
 */

import { decodePollMessagesResponse, RESYNC_REQUIRED_PARTITION } from '@agdx/iggy-protocol';
import type { IggyProtocol, PolledMessages, PollingStrategy } from '@agdx/iggy-protocol';
import { toTransportError } from './error-mapping.js';
import { UnexpectedReplyError } from './integrity-errors.js';

/** What the reply must answer. */
export interface PollExpectation {
  /** The partition asked for, if the poll named one. */
  readonly partitionId: number | undefined;
  /** The strategy sent. */
  readonly strategy: PollingStrategy;
  /** The most records asked for. */
  readonly count: number;
}

/** Why `polled` cannot answer `expected`, or undefined when it can. */
function mismatchOf(polled: PolledMessages, expected: PollExpectation): string | undefined {
  const { messages } = polled;
  // An empty reply carries nothing a caller could mistake; servers fill its partition loosely.
  if (messages.length === 0) return undefined;
  if (messages.length > expected.count) return `${messages.length} records for a poll of ${expected.count}`;
  if (expected.partitionId !== undefined && polled.partitionId !== expected.partitionId && polled.partitionId !== RESYNC_REQUIRED_PARTITION) {
    return `records of partition ${polled.partitionId} for a poll of partition ${expected.partitionId}`;
  }
  const first = messages[0]?.offset ?? 0n;
  if (expected.strategy.kind === 'offset' && first < expected.strategy.value) {
    return `records from offset ${first} for a poll from offset ${expected.strategy.value}`;
  }
  for (let i = 1; i < messages.length; i++) {
    if ((messages[i]?.offset ?? 0n) <= (messages[i - 1]?.offset ?? 0n)) return `record offsets out of order at index ${i}`;
  }
  return undefined;
}

/**
 * Decodes a poll reply with its checksums verified and checks it answers `expected`.
 * @throws ChecksumMismatchError when a checksum does not match (nothing of the reply is used).
 * @throws UnexpectedReplyError (`mismatch: 'poll-mismatch'`) when the reply answers another poll.
 * @throws TransportFailureError when the reply is malformed.
 */
export function checkedPollReply(payload: Uint8Array, protocol: IggyProtocol, expected: PollExpectation, command: number): PolledMessages {
  let polled: PolledMessages;
  try {
    polled = decodePollMessagesResponse(payload, protocol, { verifyChecksums: true });
  } catch (error) {
    throw toTransportError(error, { command, partition: expected.partitionId });
  }
  const mismatch = mismatchOf(polled, expected);
  if (mismatch !== undefined) {
    throw new UnexpectedReplyError(`the Iggy server answered a poll with ${mismatch}`, 'poll-mismatch', {
      context: { command, partition: expected.partitionId, replyPartition: polled.partitionId },
    });
  }
  return polled;
}
