import type { LogTransport, PartitionAddress } from '@agdx/transport';

/** Where one partition a reader keeps offsets for stands now. */
export interface PlaceState {
  /** The partition described. */
  readonly address: PartitionAddress;
  /** Its topic's generation (`createdAtMicros`), `undefined` when the log cannot say. */
  readonly generation: bigint | undefined;
  /** Its topic's partition count. */
  readonly partitionCount: number;
  /** The partition's next offset (0 for a partition the topic does not have). */
  readonly end: bigint;
}

/**
 * Describes the partitions a reader keeps resume offsets for (one `describeTopic` per topic), so
 * it can tell a topic deleted and recreated (another generation or partition count, or an end below
 * its offset) from one that only grew, and read up to the ends as they are now.
 * @throws the transport's errors (`not-found` for a missing topic).
 */
export async function describePlaces(transport: LogTransport, addresses: readonly PartitionAddress[], signal?: AbortSignal): Promise<PlaceState[]> {
  const descriptions = new Map<string, Awaited<ReturnType<LogTransport['describeTopic']>>>();
  const out: PlaceState[] = [];
  for (const address of addresses) {
    const key = `${address.stream}\u0000${address.topic}`;
    let description = descriptions.get(key);
    if (description === undefined) {
      description = await transport.describeTopic({ stream: address.stream, topic: address.topic }, { signal });
      descriptions.set(key, description);
    }
    out.push({ address, generation: description.createdAtMicros, partitionCount: description.partitionCount, end: description.partitions[address.partition]?.nextOffset ?? 0n });
  }
  return out;
}
