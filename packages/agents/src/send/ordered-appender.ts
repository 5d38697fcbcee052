import { AgdxError } from '@agdx/wire';
import { watchAbort } from '@agdx/transport';
import type { BatchPosition } from '../client/client-core.js';
import { afterBurst } from '../clock/after-burst.js';
import { CancelledError } from '../errors.js';
import { routeRecord } from '../layouts/stream-layout.js';
import type { PreparedAppend } from './append-issuer.js';
import { checkSignal } from './refinements.js';

/** Most records merged into one append. */
export const MAX_MERGED_RECORDS = 4096;
/** Most payload bytes merged into one append (a larger single append still goes alone). */
export const MAX_MERGED_BYTES: number = 1024 * 1024;

interface Queued {
  readonly append: PreparedAppend;
  readonly bytes: number;
  settled: boolean;
  unwatch: (() => void) | undefined;
  resolve(position: BatchPosition): void;
  reject(error: unknown): void;
}

interface Place {
  busy: boolean;
  /** Replaced, not emptied, when a drain takes all of it (the taken array becomes the group). */
  queue: Queued[];
  /** The map of its topic holding it, and its key there: an idle place leaves it. */
  readonly home: Map<PlaceKey, Place>;
  readonly at: PlaceKey;
}

/** New topic or stream maps between two sweeps of the empty ones: bounds what ever new names leave. */
export const MAP_SWEEP = 256;

/** A place within its stream and topic: a partition number, or a routing key (a string). */
type PlaceKey = number | string;

/**
 * Keeps appends to one place (stream, routed topic, routing) in the order they were issued, with
 * at most one append per place in flight: a transport may spread concurrent appends over several
 * connections, which does not keep their order, and a conversation's records must stay in order.
 * Appends issued while one is in flight queue, and leave together as ONE append when it is
 * acknowledged (in issue order, up to {@link MAX_MERGED_RECORDS} records and
 * {@link MAX_MERGED_BYTES} bytes), so 64 concurrent requests, or a busy agent's answers, need a
 * few round trips instead of one each. One appender serves every client derived from one
 * `AgdxClient.from` and the agents spawned on them.
 *
 * A merged append succeeds or fails as a whole, as one append does, with one exception: when the
 * transport refuses a merged append as invalid (nothing was sent), each caller's records are sent
 * alone, in order, so the refusal reaches only the caller whose records caused it. A caller whose
 * signal fires while queued leaves the queue (nothing was sent); once its records are on the wire
 * in a merged append, the abort settles its call with `CancelledError` at once while the append
 * completes for the others, so its records may still be stored (as for any aborted write).
 *
 * On an in-process log an append is acknowledged within a few microtasks, before the next one is
 * issued, so nothing would ever merge. An appender made with `holdWhile` therefore lets an append
 * to an idle place wait for one hop of the event loop (never a timer; see {@link afterBurst})
 * while `holdWhile()` says more appends are coming: an agent working through one read's records
 * sends their answers as one append.
 *
 * State is kept only for places with an append in flight or queued: a place leaves its map once
 * it goes idle, and the maps left empty (a topic, a stream) are swept every {@link MAP_SWEEP} new
 * ones, so a long-lived client talking to ever new conversations, topics or streams keeps a
 * bounded footprint.
 */
export class OrderedAppender {
  /**
   * Places by stream, then topic, then partition number or routing key: looked up with strings
   * the caller already holds (a conversation's text is cached by its id), where one joined key
   * per append was a fresh string to build and hash on every send.
   */
  readonly #places = new Map<string, Map<string, Map<PlaceKey, Place>>>();
  /** Topic and stream maps made since the last sweep of empty ones (see {@link OrderedAppender.#place}). */
  #mapsMade = 0;
  readonly #holdWhile: (() => boolean) | undefined;
  readonly #hop: (run: () => void) => void;

  /**
   * An appender. While `holdWhile()` answers true, an append that finds its place idle waits for
   * `hop` (default {@link afterBurst}), so appends issued to that place meanwhile leave with it as
   * one append. One mode serves both kinds of log, differing only in the two arguments:
   * - in-process logs ask whether the consumer has records queued behind the one being handled,
   *   so a lone answer never waits, and hop with {@link afterBurst};
   * - where an append is a network round trip (waits poll, Iggy) the answer is always true and the
   *   hop `afterMacrotask` (clock/after-burst.ts), so a handler's 16 chunks, its finish and its
   *   response, issued across its awaits, leave as one append instead of one for the first record
   *   and one for the rest; worth one event-loop turn.
   * The two were separate modes (`burst` and `holdWhile`) that differed only in these arguments.
   */
  constructor(options: { readonly holdWhile?: (() => boolean) | undefined; readonly hop?: ((run: () => void) => void) | undefined } = {}) {
    this.#holdWhile = options.holdWhile;
    this.#hop = options.hop ?? afterBurst;
  }

  /**
   * How many stream maps, topic maps and places the appender holds: every place has an append in
   * flight or queued; empty maps are at most {@link MAP_SWEEP} beyond those. For tests and
   * diagnostics.
   */
  footprint(): { readonly streams: number; readonly topics: number; readonly places: number } {
    let topics = 0;
    let places = 0;
    for (const byTopic of this.#places.values()) {
      topics += byTopic.size;
      for (const home of byTopic.values()) places += home.size;
    }
    return { streams: this.#places.size, topics, places };
  }

  /**
   * Appends `append` behind the earlier appends to its place; resolves with where it landed.
   * `signal` aborts it (see the class notes for what an abort after sending means). Never throws:
   * a record the layout cannot route rejects.
   */
  append(append: PreparedAppend, signal?: AbortSignal): Promise<BatchPosition> {
    try {
      checkSignal(signal);
    } catch (error) {
      return Promise.reject(error);
    }
    if (signal?.aborted === true) return Promise.reject(aborted(signal));
    let route: ReturnType<typeof routeRecord>;
    try {
      route = routeRecord(append.core.layout, append.topic, append.kind, append.target?.value, append.conversationKey);
    } catch (error) {
      // Every failure is a rejection: the answer pipeline counts an append as in until it settles.
      return Promise.reject(error);
    }
    const routing = route.routing;
    const at: PlaceKey | undefined = 'partition' in routing ? routing.partition : 'key' in routing && typeof routing.key === 'string' ? routing.key : undefined;
    // Byte keys and balanced routing are not merged (nothing the runtime sends uses them).
    if (at === undefined) return send(append, append.records, signal);
    const place = this.#place(append.stream, route.topic, at);
    if (!place.busy) {
      place.busy = true;
      if (this.#holdWhile?.() === true) {
        // Queued on an idle place: the drain after the hop sends it with what follows.
        this.#hop(() => this.#drain(place));
      } else {
        const sent = send(append, append.records, signal);
        const drain = (): void => this.#drain(place);
        void sent.then(drain, drain);
        return sent;
      }
    }
    const p = place;
    return new Promise<BatchPosition>((resolve, reject) => {
      const queued: Queued = { append, bytes: bytesOf(append), settled: false, unwatch: undefined, resolve, reject };
      if (signal !== undefined) {
        queued.unwatch = watchAbort(signal, () => {
          const at = p.queue.indexOf(queued);
          if (at !== -1) p.queue.splice(at, 1);
          settle(queued, { error: aborted(signal) });
        });
      }
      if (!queued.settled) p.queue.push(queued);
    });
  }

  /** The place of `at` on `topic` of `stream`, made idle when there is none. */
  #place(stream: string, topic: string, at: PlaceKey): Place {
    let topics = this.#places.get(stream);
    let home = topics?.get(topic);
    if (home === undefined) {
      // Idle places leave their topic's map but the maps stay, so a client sending to a few topics
      // allocates none per send. One sending to ever new topics or streams would keep an empty map
      // for each: every so many new maps, the empty ones go (before this lookup goes on, so the
      // stream map it then holds is the one kept).
      if (++this.#mapsMade > MAP_SWEEP) {
        this.#sweepEmptyMaps();
        topics = this.#places.get(stream);
      }
      if (topics === undefined) this.#places.set(stream, (topics = new Map()));
      topics.set(topic, (home = new Map()));
    }
    let place = home.get(at);
    if (place === undefined) home.set(at, (place = { busy: false, queue: [], home, at }));
    return place;
  }

  /** Drops the topic maps no place is left in, then the stream maps no topic map is left in. */
  #sweepEmptyMaps(): void {
    this.#mapsMade = 0;
    for (const [stream, topics] of this.#places) {
      for (const [topic, home] of topics) if (home.size === 0) topics.delete(topic);
      if (topics.size === 0) this.#places.delete(stream);
    }
  }

  /** The append in flight was acknowledged: the queued ones leave as one. */
  #drain(place: Place): void {
    const queue = place.queue;
    if (queue.length === 0) {
      place.busy = false;
      // An idle place leaves its map (a conversation's place lives only while it sends); the
      // stream and topic maps stay until a sweep finds them empty.
      place.home.delete(place.at);
      return;
    }
    // Count what fits first, then take it in one step: a shift per entry and a flatMap over the
    // group were a measurable share of the in-memory round trip with 64 requests in flight.
    let take = 0;
    let count = 0;
    let bytes = 0;
    while (take < queue.length) {
      const next = queue[take] as Queued;
      if (take > 0 && (count + next.append.records.length > MAX_MERGED_RECORDS || bytes + next.bytes > MAX_MERGED_BYTES)) break;
      count += next.append.records.length;
      bytes += next.bytes;
      take++;
    }
    let group: Queued[];
    if (take === queue.length) {
      group = queue;
      place.queue = [];
    } else group = queue.splice(0, take);
    void sendGroup(group, count).then(() => this.#drain(place));
  }
}

/** Sends a group as one append and settles each caller; never rejects. */
async function sendGroup(group: readonly Queued[], count: number): Promise<void> {
  const first = (group[0] as Queued).append;
  const records = group.length === 1 ? first.records : mergedRecords(group, count);
  try {
    const at = await send(first, records, undefined);
    let offset = at.offset;
    for (const q of group) {
      const n = q.append.records.length;
      settle(q, { position: { stream: at.stream, topic: at.topic, partition: at.partition, offset, count: n } });
      offset += BigInt(n);
    }
  } catch (error) {
    if (group.length > 1 && refusedAsInvalid(error)) {
      // Nothing was stored: find the culprit by sending each caller's records alone, in order.
      for (const q of group) if (!q.settled) await sendGroup([q], q.append.records.length);
      return;
    }
    for (const q of group) settle(q, { error });
  }
}

/** The records of a group in issue order, in one array of the known size. */
function mergedRecords(group: readonly Queued[], count: number): PreparedAppend['records'][number][] {
  const records = new Array<PreparedAppend['records'][number]>(count);
  let at = 0;
  for (const q of group) for (const record of q.append.records) records[at++] = record;
  return records;
}

function send(append: PreparedAppend, records: readonly PreparedAppend['records'][number][], signal: AbortSignal | undefined): Promise<BatchPosition> {
  return append.core.append(append.stream, append.topic, append.kind, append.target, append.conversationKey, records, signal);
}

function settle(q: Queued, outcome: { position: BatchPosition } | { error: unknown }): void {
  if (q.settled) return;
  q.settled = true;
  q.unwatch?.();
  if ('position' in outcome) q.resolve(outcome.position);
  else q.reject(outcome.error);
}

/** The transport refused the request itself (bad input), so nothing of it was stored. */
function refusedAsInvalid(error: unknown): boolean {
  return AgdxError.is(error, 'invalid') || (AgdxError.is(error) && AgdxError.is(error.cause, 'invalid'));
}

function aborted(signal: AbortSignal | undefined): CancelledError {
  return new CancelledError('the append was aborted', { cause: signal?.reason });
}

function bytesOf(append: PreparedAppend): number {
  let bytes = 0;
  for (const r of append.records) bytes += r.payload.length;
  return bytes;
}
