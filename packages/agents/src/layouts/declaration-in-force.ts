import type { LogTransport, TopicDescription } from '@agdx/transport';
import { decodeDeclarationRecord, LAYOUT_DECLARATION_TOPIC, type LayoutDeclaration } from './declaration-record.js';

/**
 * Which declaration record is in force, by one rule every reader and writer applies. A log has no
 * conditional append, so a writer says in each record the offset it expects the record to land
 * at (the topic's end when it looked): a record that landed there was appended with nothing in
 * between, as a compare-and-append would have allowed. A record that landed elsewhere raced
 * another writer that appended first, lost, and does not count. The declaration in force is the
 * newest record that did not lose a race; records written before writers said where (no `at`)
 * always count, as before.
 *
 * Readers start from the last record: normally it is in force and one one-record read decides.
 * Only behind race losers do they read further back, at most {@link MAX_SCANNED_RECORDS} records
 * in all, so the read is bounded whatever the topic's history. A record that does not decode ends
 * the search with no declaration (a corrupt newest record is ignored, as before, and a later
 * `bootstrap()` writes a good one after it), and so do more race losers than the bound.
 */

/** The most records read back past race losers before a stream counts as declaring nothing. */
export const MAX_SCANNED_RECORDS = 64;

/** Records read per step after the last one: a race leaves a few losers behind the winner. */
const PAGE = 16;

/**
 * The declaration in force on the declaration topic described as `topic` (see the module notes),
 * `undefined` when there is none.
 * @throws the transport's errors.
 */
export async function declarationInForce(transport: LogTransport, stream: string, topic: TopicDescription, signal?: AbortSignal): Promise<LayoutDeclaration | undefined> {
  let upTo = topic.partitions[0]?.nextOffset ?? 0n;
  let scanned = 0;
  let step = 1;
  while (upTo > 0n && scanned < MAX_SCANNED_RECORDS) {
    const count = Math.min(step, MAX_SCANNED_RECORDS - scanned, Number(upTo < BigInt(PAGE) ? upTo : BigInt(PAGE)));
    const from = upTo - BigInt(count);
    const records = await transport.read({ stream, topic: LAYOUT_DECLARATION_TOPIC, partition: 0, offset: from, maxCount: count, signal });
    for (let i = records.length - 1; i >= 0; i--) {
      const record = records[i]!;
      if (record.offset >= upTo || record.offset < from) continue;
      const decoded = decodeDeclarationRecord(record.payload);
      if (decoded === undefined) return undefined;
      if (decoded.at === undefined || decoded.at === record.offset) return { layout: decoded.layout, offset: record.offset };
    }
    // Older records expired (the read started later than asked): nothing further back to find.
    if (records.length === 0 || (records[0]?.offset ?? from) > from) return undefined;
    scanned += count;
    upTo = from;
    step = PAGE;
  }
  return undefined;
}
