/**
 * How many streams, topics, partitions and consumer groups one server holds at most. Iggy has
 * no such bounds; this server keeps all of them in memory (and, on disk, two open files per
 * partition), so without them one client could create objects until the process ran out of
 * memory or file descriptors. Each is checked before anything is allocated, and the refusal is
 * the Iggy code of that kind of limit where Iggy has one.
 */

/** Streams at most (CreateStream past it: 1020 TooManyStreams). */
export const MAX_STREAMS = 10_000;
/** Topics at most, over every stream (CreateTopic past it: 2021 TooManyTopics). */
export const MAX_TOPICS = 10_000;
/** Partitions at most, over every topic (CreateTopic or CreatePartitions past it: 2015 TooManyPartitions). */
export const MAX_TOTAL_PARTITIONS = 10_000;
/**
 * Consumer groups at most, over every topic. Iggy has no code for this limit, so
 * CreateConsumerGroup past it is refused with 1 (Error).
 */
export const MAX_CONSUMER_GROUPS = 10_000;

/** What the limits count. */
export interface ResourceCounts {
  readonly streams: number;
  readonly topics: number;
  readonly partitions: number;
  readonly groups: number;
}

/** Counts what the streams hold (a walk over topics, bounded by {@link MAX_TOPICS}). */
export function countResources(streams: Iterable<{ readonly topics: ReadonlyMap<number, { readonly partitions: readonly unknown[]; readonly groups: ReadonlyMap<number, unknown> }> }>): ResourceCounts {
  let count = 0;
  let topics = 0;
  let partitions = 0;
  let groups = 0;
  for (const s of streams) {
    count++;
    for (const t of s.topics.values()) {
      topics++;
      partitions += t.partitions.length;
      groups += t.groups.size;
    }
  }
  return { streams: count, topics, partitions, groups };
}
