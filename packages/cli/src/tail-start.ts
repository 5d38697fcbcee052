/** Where `agdx tail` starts reading each partition (`--from beginning|end|<timestamp>`). */

import type { LogTransport } from '@agdx/transport';
import { UsageError } from './errors.js';

/** The `--from` choice: every record, only new ones, or those stamped at or after a time. */
export type TailFrom = { readonly kind: 'beginning' } | { readonly kind: 'end' } | { readonly kind: 'time'; readonly micros: bigint };

const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** Reads `--from`: `beginning`, `end`, or an ISO 8601 time such as `2026-12-01T23:29:00Z`. */
export function parseTailFrom(text: string): TailFrom {
  if (text === 'beginning' || text === 'end') return { kind: text };
  const millis = ISO_TIME.test(text) ? Date.parse(text) : Number.NaN;
  if (!Number.isFinite(millis) || millis < 0) throw new UsageError(`--from must be beginning, end or an ISO 8601 time (e.g. 2026-12-01T23:29:00Z), got "${text}"`);
  return { kind: 'time', micros: BigInt(millis) * 1000n };
}

/** One partition to start following. */
export interface PartitionStart {
  readonly stream: string;
  readonly topic: string;
  readonly partition: number;
  /** The partition's next offset when the tail first saw the topic. */
  readonly nextOffset: bigint;
  /** True when the topic did not exist yet when the tail started. */
  readonly appearedLater: boolean;
}

/**
 * The first offset to read. A topic that appeared after the tail started holds nothing older
 * than the tail, so it is read from offset 0 (reading from its next offset at first sight would
 * skip every record written between its creation and that look). A time starts at the first
 * record stamped at or after it, or at the next offset when there is none yet.
 */
export async function tailStartOffset(transport: LogTransport, start: PartitionStart, from: TailFrom, signal: AbortSignal): Promise<bigint> {
  if (from.kind === 'beginning') return 0n;
  if (from.kind === 'end') return start.appearedLater ? 0n : start.nextOffset;
  const [first] = await transport.readFromTimestamp({ stream: start.stream, topic: start.topic, partition: start.partition, timestampMicros: from.micros, maxCount: 1, signal });
  return first?.offset ?? start.nextOffset;
}
