import { partitionForKey, type LogTransport, type PartitionAddress } from '@agdx/transport';
import { AgdxError } from '@agdx/wire';
import { LayoutMismatchError } from '../errors.js';
import { checkLayoutDeclaration } from './layout-declaration-check.js';
import { locateRecords, type LocateQuery, type StreamLayout } from './stream-layout.js';

/**
 * The partitions a reader must read for `query` on `stream`: {@link locateRecords}'s routes with
 * each key resolved to its partition (one `describeTopic` per topic), without repeats, the
 * conversation's own partition first. The topics must exist. The stream's layout declaration is
 * checked too (`checkLayoutDeclaration`), so every reader that asks where records live learns
 * that the log was written with another layout, at a cost that does not grow with the log.
 * @throws LayoutMismatchError when the stream declares another layout, a declared per-agent topic
 * is missing or a declared partition is beyond its topic's partition count (the log was not
 * bootstrapped with this layout); the
 * transport's `not-found` error for a missing stream or named topic; InvalidError for a bad query.
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
      count = await partitionCount(transport, stream, route.topic, route.topic === query.topic ? undefined : query.topic, signal);
      counts.set(route.topic, count);
    }
    const routing = route.routing as { readonly partition?: number; readonly key?: string };
    const partition = routing.partition ?? (await partitionForKey(routing.key ?? '', count));
    if (partition >= count) {
      throw new LayoutMismatchError(`the layout declares partition ${partition}, but \`${route.topic}\` has ${count} partitions`, {
        context: { stream, topic: route.topic, partition, partitionCount: count },
      });
    }
    if (!out.some((a) => a.topic === route.topic && a.partition === partition)) out.push({ stream, topic: route.topic, partition });
  }
  // after the structural checks, whose errors name the very topic or partition that is missing
  await checkLayoutDeclaration(transport, stream, layout, { signal });
  return out;
}

/**
 * A topic's partition count. When a layout's own topic (`declaredFor` names the topic it stands
 * in for) is missing while the named topic exists, the log was bootstrapped for another layout.
 */
async function partitionCount(transport: LogTransport, stream: string, topic: string, declaredFor: string | undefined, signal: AbortSignal | undefined): Promise<number> {
  try {
    return (await transport.describeTopic({ stream, topic }, { signal })).partitionCount;
  } catch (error) {
    if (declaredFor === undefined || !AgdxError.is(error, 'not-found')) throw error;
    // a missing stream or named topic stays the transport's own not-found
    await transport.describeTopic({ stream, topic: declaredFor }, { signal });
    throw new LayoutMismatchError(`the layout declares topic \`${topic}\`, but stream \`${stream}\` has no such topic`, { cause: error, context: { stream, topic } });
  }
}
