import { partitionForKey, type LogTransport, type PartitionAddress } from '@agdx/transport';
import { locateRecords, type LocateQuery, type StreamLayout } from './stream-layout.js';

/**
 * The partitions a reader must read for `query` on `stream`: {@link locateRecords}'s routes with
 * each key resolved to its partition (one `describeTopic` per topic), without repeats, the
 * conversation's own partition first. The topics must exist (a declared per-agent topic missing
 * means the log was not bootstrapped with this layout).
 * @throws the transport's `not-found` error for a missing stream or topic; InvalidError for a bad query.
 */
export async function locatePartitions(
  transport: LogTransport,
  stream: string,
  layout: StreamLayout,
  query: LocateQuery,
  signal?: AbortSignal,
): Promise<PartitionAddress[]> {
  const counts = new Map<string, number>();
  const out: PartitionAddress[] = [];
  for (const route of locateRecords(layout, query)) {
    let count = counts.get(route.topic);
    if (count === undefined) {
      count = (await transport.describeTopic({ stream, topic: route.topic }, { signal })).partitionCount;
      counts.set(route.topic, count);
    }
    const routing = route.routing as { readonly partition?: number; readonly key?: string };
    const partition = routing.partition ?? (await partitionForKey(routing.key ?? '', count));
    // a declared partition beyond the topic's count holds nothing this layout wrote
    if (partition >= count) continue;
    if (!out.some((a) => a.topic === route.topic && a.partition === partition)) out.push({ stream, topic: route.topic, partition });
  }
  return out;
}
