import type { StreamLayout } from '@agdx/agents';
import type { LogTransport } from '@agdx/transport';
import type { ConversationId, SkippedRecordHandler } from '@agdx/wire';
import { compareKeyed, conversationSlices, readPage, type Keyed, type PartitionBounds, type PartitionRead } from './read-turns.js';
import type { ContextMessage } from './session-turn.js';
import { FirstCopies } from './turn-copies.js';

/** One partition slice read a page at a time: the turns of its current page not yet visited. */
interface Cursor {
  readonly slice: PartitionRead;
  next: bigint;
  page: Keyed[];
  index: number;
}

/** Reads pages until one holds a turn of the conversation or the slice ends; false when it ended. */
async function fill(c: Cursor): Promise<boolean> {
  while (c.next < c.slice.range.end) {
    const page = await readPage(c.slice, c.next);
    c.next = page.next;
    if (page.found.length > 0) {
      c.page = page.found;
      c.index = 0;
      return true;
    }
  }
  c.page = [];
  return false;
}

/**
 * Visits the messages of `conversation` on `topics` within `bounds` in the order
 * `readConversation` returns them (broker time, topic index, partition, offset), without holding
 * the range: each partition slice is read one page (one read batch, up to 1,000 records) at a
 * time and merged, so at most one page per slice is held, whatever the range's length. A slice's
 * pages come in offset order, which is broker-time order wherever broker time does not go back
 * within a partition (the memory log and Iggy assign it at append, non-decreasing). Skipped
 * records go to `onError` as the page that holds them is read; an error thrown by `visit` or by the
 * transport ends the walk with that error. A later copy of a turn (the same envelope record id) is
 * not visited, as {@link FirstCopies} recognises it.
 */
export async function visitConversation(
  transport: LogTransport,
  stream: string,
  topics: readonly string[],
  conversation: ConversationId,
  bounds: PartitionBounds,
  visit: (message: ContextMessage) => void,
  signal: AbortSignal | undefined,
  onError: SkippedRecordHandler | undefined,
  layout: StreamLayout | undefined,
): Promise<void> {
  const slices = await conversationSlices(transport, stream, topics, conversation, bounds, signal, onError, layout);
  const cursors: Cursor[] = slices.map((slice) => ({ slice, next: slice.range.start, page: [], index: 0 }));
  // the first pages are read concurrently: over a network transport the round trips overlap
  const filled = await Promise.all(cursors.map(fill));
  const live = cursors.filter((_, i) => filled[i] === true);
  const copies = new FirstCopies();
  while (live.length > 0) {
    let best = 0;
    for (let i = 1; i < live.length; i++) {
      const c = live[i] as Cursor;
      const b = live[best] as Cursor;
      if (compareKeyed(c.page[c.index] as Keyed, b.page[b.index] as Keyed) < 0) best = i;
    }
    const c = live[best] as Cursor;
    const k = c.page[c.index] as Keyed;
    if (copies.take(k.identity)) visit(k.message);
    c.index++;
    if (c.index >= c.page.length && !(await fill(c))) live.splice(best, 1);
  }
}
