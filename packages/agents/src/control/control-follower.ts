/**
 * Follows every partition of `agent.control`, outside any consumer group (seed 000: "Agents
 * follow every partition of agent.control, outside their consumer groups"). At start it folds
 * the newest 10,000 records of each partition, then keeps reading as records arrive. Nothing is
 * ever committed: every agent process reads the whole control history for itself.
 */
import { AgdxError } from '@agdx/wire';
import type { LogRecord, LogTransport, TopicDescription } from '@agdx/transport';

/** How many records per partition the startup fold reads at most. */
export const CONTROL_HISTORY_LIMIT = 10_000;

/** What the follower needs. */
export interface ControlFollowerOptions {
  /** The log. */
  readonly transport: LogTransport;
  /** Stream of the control topic. */
  readonly stream: string;
  /** The control topic (`agent.control`). */
  readonly topic: string;
  /** Partition count used when the topic has to be created. */
  readonly createPartitions: number;
  /** Applies one control record; errors are reported and the record is skipped. */
  readonly apply: (record: LogRecord, partition: number) => Promise<void>;
  /** Longest wait before checking for new partitions and re-waiting, in ms. */
  readonly waitMs: number;
  /** Told about errors the follower survives. */
  readonly onError: (error: unknown) => void;
}

const MAX_CONSECUTIVE_ERRORS = 10;

/** Reads `agent.control` until stopped. */
export class ControlFollower {
  readonly #o: ControlFollowerOptions;
  readonly #stop = new AbortController();
  readonly #loops: Promise<void>[] = [];

  /** A follower; {@link start} folds the history. */
  constructor(options: ControlFollowerOptions) {
    this.#o = options;
  }

  /** Creates the topic when missing, folds the history of every partition, then follows them. */
  async start(): Promise<void> {
    const o = this.#o;
    let description: TopicDescription;
    try {
      description = await o.transport.describeTopic({ stream: o.stream, topic: o.topic });
    } catch (error) {
      if (!AgdxError.is(error, 'not-found')) throw error;
      try {
        description = await o.transport.ensureTopic({ stream: o.stream, topic: o.topic }, { partitions: o.createPartitions });
      } catch (conflict) {
        // Someone else created it meanwhile, with their own partition count.
        if (!AgdxError.is(conflict, 'conflict')) throw conflict;
        description = await o.transport.describeTopic({ stream: o.stream, topic: o.topic });
      }
    }
    const cursors: bigint[] = [];
    for (const part of description.partitions) {
      const from = part.nextOffset > BigInt(CONTROL_HISTORY_LIMIT) ? part.nextOffset - BigInt(CONTROL_HISTORY_LIMIT) : 0n;
      cursors.push(await this.#drain(part.partition, from, part.nextOffset));
    }
    for (const part of description.partitions) this.#loops.push(this.#follow(part.partition, cursors[part.partition] ?? 0n));
  }

  /** Stops following and waits for the loops to end. */
  async stop(): Promise<void> {
    this.#stop.abort();
    await Promise.allSettled(this.#loops);
  }

  async #drain(partition: number, from: bigint, until: bigint): Promise<bigint> {
    const o = this.#o;
    let next = from;
    while (next < until) {
      const records = await o.transport.read({ stream: o.stream, topic: o.topic, partition, offset: next, maxCount: 1_000, signal: this.#stop.signal });
      if (records.length === 0) break;
      for (const record of records) {
        next = record.offset + 1n;
        await this.#apply(record, partition);
      }
    }
    return next;
  }

  async #apply(record: LogRecord, partition: number): Promise<void> {
    try {
      await this.#o.apply(record, partition);
    } catch (error) {
      this.#o.onError(error);
    }
  }

  async #follow(partition: number, from: bigint): Promise<void> {
    const o = this.#o;
    const signal = this.#stop.signal;
    let next = from;
    let errors = 0;
    let backoff = 50;
    while (!signal.aborted) {
      try {
        const records = await o.transport.read({ stream: o.stream, topic: o.topic, partition, offset: next, maxCount: 1_000, signal });
        errors = 0;
        backoff = 50;
        if (records.length === 0) {
          await o.transport.waitFor({ stream: o.stream, topic: o.topic, partition, offset: next, timeoutMs: o.waitMs, signal });
          continue;
        }
        for (const record of records) {
          next = record.offset + 1n;
          await this.#apply(record, partition);
        }
      } catch (error) {
        if (signal.aborted || AgdxError.is(error, 'closed')) return;
        o.onError(error);
        if (++errors >= MAX_CONSECUTIVE_ERRORS) return;
        await new Promise((resolve) => setTimeout(resolve, backoff));
        backoff = Math.min(backoff * 2, 1_000);
      }
    }
  }
}
