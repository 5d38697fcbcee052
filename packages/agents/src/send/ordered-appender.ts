import type { BatchPosition } from '../client/client-core.js';
import { routeRecord } from '../layouts/stream-layout.js';
import type { PreparedAppend } from './append-issuer.js';

/** Most records merged into one append. */
export const MAX_MERGED_RECORDS = 4096;
/** Most payload bytes merged into one append (a larger single append still goes alone). */
export const MAX_MERGED_BYTES: number = 1024 * 1024;

interface Queued {
  readonly append: PreparedAppend;
  readonly bytes: number;
  resolve(position: BatchPosition): void;
  reject(error: unknown): void;
}

interface Place {
  busy: boolean;
  readonly queue: Queued[];
}

/**
 * Keeps appends to one place (stream, routed topic, routing) in the order they were issued, with
 * at most one append per place in flight: a transport may spread concurrent appends over several
 * connections, which does not keep their order, and a conversation's answers must stay in order.
 * Appends issued while one is in flight queue, and leave together as ONE append when it is
 * acknowledged (in issue order, up to {@link MAX_MERGED_RECORDS} records and
 * {@link MAX_MERGED_BYTES} bytes), so a busy agent needs far fewer round trips than answers.
 * A merged append succeeds or fails as a whole: every caller in it gets the same outcome.
 */
export class OrderedAppender {
  readonly #places = new Map<string, Place>();

  /** Appends `append` behind the earlier appends to its place; resolves with where it landed. */
  append(append: PreparedAppend): Promise<BatchPosition> {
    const route = routeRecord(append.core.layout, append.topic, append.kind, append.target?.value, append.conversationKey);
    const routing = route.routing;
    const where = 'partition' in routing ? `p${routing.partition}` : 'key' in routing && typeof routing.key === 'string' ? `k${routing.key}` : undefined;
    // Byte keys and balanced routing are not merged (nothing the runtime sends uses them).
    if (where === undefined) return send(append, append.records);
    const key = `${append.stream}\u0000${route.topic}\u0000${where}`;
    let place = this.#places.get(key);
    if (place === undefined) this.#places.set(key, (place = { busy: false, queue: [] }));
    if (!place.busy) {
      place.busy = true;
      const sent = send(append, append.records);
      void sent.then(
        () => this.#drain(key, place),
        () => this.#drain(key, place),
      );
      return sent;
    }
    return new Promise<BatchPosition>((resolve, reject) => place.queue.push({ append, bytes: bytesOf(append), resolve, reject }));
  }

  /** The append in flight was acknowledged: the queued ones leave as one. */
  #drain(key: string, place: Place): void {
    if (place.queue.length === 0) {
      place.busy = false;
      this.#places.delete(key);
      return;
    }
    const group: Queued[] = [];
    let count = 0;
    let bytes = 0;
    while (place.queue.length > 0) {
      const next = place.queue[0] as Queued;
      if (group.length > 0 && (count + next.append.records.length > MAX_MERGED_RECORDS || bytes + next.bytes > MAX_MERGED_BYTES)) break;
      place.queue.shift();
      group.push(next);
      count += next.append.records.length;
      bytes += next.bytes;
    }
    const first = (group[0] as Queued).append;
    const records = group.length === 1 ? first.records : group.flatMap((q) => q.append.records);
    send(first, records).then(
      (at) => {
        let offset = at.offset;
        for (const q of group) {
          const n = q.append.records.length;
          q.resolve({ stream: at.stream, topic: at.topic, partition: at.partition, offset, count: n });
          offset += BigInt(n);
        }
        this.#drain(key, place);
      },
      (error: unknown) => {
        for (const q of group) q.reject(error);
        this.#drain(key, place);
      },
    );
  }
}

function send(append: PreparedAppend, records: readonly PreparedAppend['records'][number][]): Promise<BatchPosition> {
  return append.core.append(append.stream, append.topic, append.kind, append.target, append.conversationKey, records);
}

function bytesOf(append: PreparedAppend): number {
  let bytes = 0;
  for (const r of append.records) bytes += r.payload.length;
  return bytes;
}
