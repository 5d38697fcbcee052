/**
 * Settling a task's unverified replies on one place when the task is asked: under a verifier the
 * index keeps the replies it meets unverified, so building it costs no signature check for tasks
 * nobody asks.
 */

import type { describePlaces } from '@agdx/agents';
import type { CountedReplies } from './counted-replies.js';
import type { SettleReply } from './index-readers.js';
import { isTerminalA2aState, type A2aTask } from './task.js';
import type { Hit, PlaceHits } from './task-hits.js';
import type { TaskAddress } from './task-reads.js';

type Transport = Parameters<typeof describePlaces>[0];

/** What settling one task's waiting replies on one place needs. */
export interface PendingSettle {
  readonly task: string;
  readonly onPlace: PlaceHits;
  readonly address: TaskAddress;
  readonly partitionCount: number;
  readonly transport: Transport;
  readonly settle: SettleReply;
  readonly signal: AbortSignal | undefined;
  /** False once the index was cleared: what this call verifies then counts for nothing. */
  readonly current: () => boolean;
  /** Keeps the task a trusted reply gave, so the answer needs no read back. */
  readonly remember: (offset: bigint, found: A2aTask) => void;
  /** The task's non-terminal replies that counted (made on first use): a copy of one is passed over. */
  readonly counted: () => CountedReplies;
}

/**
 * Verifies the task's waiting replies on the place, oldest first (one record read back each),
 * until one is a trusted terminal. False when a waiting reply is no longer on the log (retention
 * removed it) or the index was cleared meanwhile: only a scan can answer then.
 */
export async function settlePending(s: PendingSettle): Promise<boolean> {
  const { onPlace } = s;
  while (onPlace.terminal === undefined && onPlace.pending.length > 0) {
    const hit = onPlace.pending[0] as Hit;
    const [record] = await s.transport.read({ ...s.address, offset: hit.offset, maxCount: 1, signal: s.signal });
    if (record === undefined || record.offset !== hit.offset || !s.current()) return false;
    const reply = await s.settle(record, { ...s.address, partitionCount: s.partitionCount }, s.task);
    if (!s.current()) return false;
    onPlace.pending.shift();
    if (reply === undefined) continue;
    const found = reply.found;
    if (isTerminalA2aState(found.state)) {
      onPlace.terminal = hit;
      onPlace.pending = [];
    } else {
      const counted = s.counted();
      if (counted.isCopy(reply.record)) continue;
      counted.add(reply.record);
      onPlace.latest = hit;
    }
    s.remember(hit.offset, found);
  }
  return true;
}
