/**
 * An async iterator over a partition that keeps going as records arrive, built only on
 * {@link LogTransport.read} and {@link LogTransport.waitFor}, so it works over every transport.
 */

import type { GroupMember, GroupPollResult, LogRecord, LogTransport, PartitionAddress } from './log-transport.js';
import { checkFollowCount, checkOffset, checkTimeout } from './validation.js';

/** What {@link follow} reads. */
export interface FollowRequest extends PartitionAddress {
  /** The first offset to yield (default 0). */
  readonly offset?: bigint | undefined;
  /** Records fetched per read, 1..1,000,000 (default 1,000). */
  readonly maxCount?: number | undefined;
  /** Longest single wait before re-checking, in ms (default 30,000); waits never spin. */
  readonly waitMs?: number | undefined;
  /** Ends the iteration: the pending wait rejects with `CancelledError`. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Yields every record of a partition from `offset` on, in order, waiting for new ones when it
 * reaches the end. Stops (by throwing `CancelledError`) when the signal fires, or `ClosedError`
 * when the transport closes; `break` out of the loop to stop quietly.
 * @throws InvalidArgumentError (on the first `next()`) for a bad offset, wait or `maxCount` (0 included).
 */
export async function* follow(transport: LogTransport, request: FollowRequest): AsyncGenerator<LogRecord, void, undefined> {
  let next = checkOffset(request.offset ?? 0n);
  const waitMs = checkTimeout(request.waitMs ?? 30_000);
  const maxCount = checkFollowCount(request.maxCount);
  const { stream, topic, partition, signal } = request;
  for (;;) {
    const records = await transport.read({ stream, topic, partition, offset: next, maxCount, signal });
    for (const record of records) {
      next = record.offset + 1n;
      yield record;
    }
    if (records.length === 0) await transport.waitFor({ stream, topic, partition, offset: next, timeoutMs: waitMs, signal });
  }
}

/** What {@link followGroup} polls. */
export interface FollowGroupOptions {
  /** Records per poll, 1..1,000,000 (default 1,000). */
  readonly maxCount?: number | undefined;
  /**
   * Commit each batch's last offset as it is polled (at-most-once for a crash mid-batch). When
   * false (the default) the caller commits after handling a batch; an uncommitted batch is
   * polled again.
   */
  readonly autoCommit?: boolean | undefined;
  /** Longest single wait before re-polling, in ms (default 30,000); waits never spin. */
  readonly waitMs?: number | undefined;
  /** Ends the iteration: the pending call rejects with `CancelledError`. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Yields non-empty poll results of a group member, waiting (woken by appends or rebalances) when
 * its partitions have nothing new. Throws `CancelledError` when the signal fires and
 * `ClosedError` when the member leaves or its transport closes.
 */
export async function* followGroup(
  member: GroupMember,
  options: FollowGroupOptions = {},
): AsyncGenerator<GroupPollResult & { readonly partition: number }, void, undefined> {
  const waitMs = checkTimeout(options.waitMs ?? 30_000);
  const maxCount = checkFollowCount(options.maxCount);
  const { autoCommit, signal } = options;
  for (;;) {
    const result = await member.poll({ maxCount, autoCommit, signal });
    if (result.partition !== undefined && result.records.length > 0) {
      yield { partition: result.partition, records: result.records };
    } else {
      await member.waitFor(waitMs, { signal });
    }
  }
}
