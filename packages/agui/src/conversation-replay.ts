/**
 * Incremental AG-UI replay: what `AguiBridge.aguiEvents` keeps per conversation between calls
 * (the per-address next offsets, the converter with its channel and state fold, the events so
 * far), so a repeated call reads only the records written since the last one.
 */

import { recordPlacementMismatch, type StreamLayout } from '@agdx/agents';
import type { LogTransport, TopicDescription } from '@agdx/transport';
import type { ConversationId, SkippedRecordHandler } from '@agdx/wire';
import { readConversationRange, unreadableStateReporter, type ConversationAddress, type ConversationRecord } from './conversation-log.js';
import { AguiConverter } from './converter.js';
import type { AguiEvent } from './events.js';

/** Conversations a bridge keeps replay state for; the least recently asked is dropped first. */
export const KEPT_REPLAYS = 256;

/** Where one address stands: the topic generation it was read under and the next offset to read. */
interface Cursor {
  readonly address: ConversationAddress;
  readonly generation: bigint | undefined;
  next: bigint;
}

/** What a read needs that does not change between calls. */
export interface ReplayContext {
  readonly transport: LogTransport;
  readonly layout: StreamLayout;
  readonly onError: SkippedRecordHandler | undefined;
}

function sameAddresses(a: readonly ConversationAddress[], b: readonly ConversationAddress[]): boolean {
  return a.length === b.length && a.every((x, i) => x.stream === b[i]?.stream && x.topic === b[i]?.topic && x.partition === b[i]?.partition);
}

/**
 * One conversation's replay on one topic. Calls are serialised: a call started while another runs
 * waits for it, so two callers never convert the same records twice.
 */
export class ConversationReplay {
  readonly #conversation: ConversationId;
  readonly #topic: string;
  #cursors: Cursor[] = [];
  #converter = this.#newConverter();
  /** The reporter of the record being converted (the converter outlives a call, its reporters do not). */
  #current: ReturnType<typeof unreadableStateReporter> | undefined;
  #events: AguiEvent[] = [];
  #queue: Promise<unknown> = Promise.resolve();

  /** @param conversation the conversation replayed; @param topic the topic it was asked on */
  constructor(conversation: ConversationId, topic: string) {
    this.#conversation = conversation;
    this.#topic = topic;
  }

  /**
   * Reads every address from its kept offset to its end at the time of the call, converts the new
   * records and returns a copy of all the events so far. Starts over from offset 0 when the
   * addresses changed (layout or partition count) or a topic's generation changed (its
   * `createdAtMicros`, or an end below the kept offset: the topic was recreated).
   * @throws LayoutMismatchError when a new record sits where only another layout writes it; the
   * kept state is then dropped, so the next call reads from 0 and throws again.
   */
  events(context: ReplayContext, addresses: readonly ConversationAddress[], signal?: AbortSignal): Promise<AguiEvent[]> {
    const run = this.#queue.then(() => this.#advance(context, addresses, signal));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #advance(context: ReplayContext, addresses: readonly ConversationAddress[], signal?: AbortSignal): Promise<AguiEvent[]> {
    const { transport } = context;
    const descriptions = new Map<string, TopicDescription>();
    for (const address of addresses) {
      const key = `${address.stream}\u0000${address.topic}`;
      if (!descriptions.has(key)) descriptions.set(key, await transport.describeTopic({ stream: address.stream, topic: address.topic }, { signal }));
    }
    const described = addresses.map((address) => {
      const description = descriptions.get(`${address.stream}\u0000${address.topic}`);
      return { address, generation: description?.createdAtMicros, end: description?.partitions[address.partition]?.nextOffset ?? 0n };
    });
    const kept = this.#cursors;
    const stale =
      !sameAddresses(
        kept.map((c) => c.address),
        addresses,
      ) || described.some((d, i) => d.generation !== kept[i]?.generation || d.end < (kept[i]?.next ?? 0n));
    const cursors: Cursor[] = stale ? described.map((d) => ({ address: d.address, generation: d.generation, next: 0n })) : kept.map((c) => ({ ...c }));

    // Read everything new before touching the kept state, so a failed or cancelled read leaves it as it was.
    const fresh: { readonly at: number; readonly record: ConversationRecord }[] = [];
    for (const [at, cursor] of cursors.entries()) {
      const end = described[at]?.end ?? 0n;
      for (const record of await readConversationRange(transport, cursor.address, this.#conversation, cursor.next, end, signal, context.onError)) fresh.push({ at, record });
      cursor.next = end;
    }
    if (cursors.length > 1) {
      // stable: equal timestamps keep address order, and an address is already in order
      fresh.sort((a, b) => (a.record.timestampMicros === b.record.timestampMicros ? 0 : a.record.timestampMicros < b.record.timestampMicros ? -1 : 1));
    }
    const home = cursors[0]?.address;
    for (const { at, record } of fresh) {
      if (at !== 0 || home === undefined) continue;
      const found = { ...home, offset: record.offset, kind: record.envelope.kind, target: record.envelope.target?.value };
      const mismatch = recordPlacementMismatch(context.layout, this.#topic, home.partition, found);
      if (mismatch !== undefined) {
        this.#reset();
        throw mismatch;
      }
    }

    if (stale) this.#reset();
    const reporters = cursors.map((cursor) => unreadableStateReporter(cursor.address, context.onError));
    for (const { at, record } of fresh) {
      this.#current = reporters[at];
      if (this.#current !== undefined) this.#current.offset = record.offset;
      this.#events.push(...this.#converter.convert(record.envelope));
    }
    this.#current = undefined;
    this.#cursors = cursors;
    return this.#events.slice();
  }

  #reset(): void {
    this.#cursors = [];
    this.#converter = this.#newConverter();
    this.#events = [];
  }

  #newConverter(): AguiConverter {
    return new AguiConverter({ onUnreadableState: (envelope) => this.#current?.report(envelope) });
  }
}
