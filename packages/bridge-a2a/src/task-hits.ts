/**
 * The per-task half of the reply index: for each task, where on each place its first terminal
 * reply and its latest non-terminal reply sit, the replies still waiting for verification, and
 * the task its chosen reply gave for the most recently asked tasks. Bounded: the least recently
 * asked or answered task is dropped first, into a filter that keeps it from being answered `none`.
 */

import { RecencyMap } from '@agdx/agents';
import type { RecordId } from '@agdx/wire';
import { CountedReplies } from './counted-replies.js';
import { EvictedIds } from './evicted-ids.js';
import type { A2aTask } from './task.js';
import { KEPT_TASK_READS, type TaskAddress } from './task-reads.js';

/**
 * Replies of one task on one place the index holds unverified (under a verifier, a reply is
 * verified when its task is asked, not when the index meets it); past this the task is answered
 * by the per-task scan instead, so forgeries aimed at one task cannot grow the index.
 */
export const PENDING_REPLIES_PER_TASK = 16;

/** One reply the index kept: its offset and the broker's append time. */
export interface Hit {
  readonly offset: bigint;
  readonly micros: bigint;
}

/** A task's kept replies on one place. */
export interface PlaceHits {
  readonly place: string;
  terminal: Hit | undefined;
  latest: Hit | undefined;
  /** Replies met after `terminal`/`latest` and not yet verified, oldest first. */
  pending: Hit[];
  /** More than {@link PENDING_REPLIES_PER_TASK} replies waited for verification: only a scan can answer. */
  overflow: boolean;
}

/** The task a kept reply gave, and where that reply sits. */
export interface KeptAnswer {
  readonly place: string;
  readonly offset: bigint;
  readonly task: A2aTask;
}

/** The reply a lookup answers from: its hit, the rank of its place among those asked, and the place. */
export interface ChosenReply {
  readonly hit: Hit;
  readonly rank: number;
  readonly place: string;
  readonly address: TaskAddress;
}

/**
 * The kept replies of at most `limit` tasks (see the module comment). Touching a task makes it the
 * newest; the oldest is dropped first. Building the index over a long log drops one task per new
 * one, so the order is a {@link RecencyMap}: a Map's own order (`keys().next()`) walks every task
 * dropped before, about 5.6 µs a drop at the default 32,768.
 */
export class TaskHits {
  readonly #limit: number;
  readonly #tasks = new RecencyMap<string, PlaceHits[]>();
  readonly #answers = new Map<string, KeptAnswer>();
  /** Per kept task, its non-terminal replies that counted (on any place), so a copy never counts. */
  readonly #counted = new Map<string, CountedReplies>();
  readonly #evicted = new EvictedIds();

  /** @param limit the most tasks kept (checked by the caller). */
  constructor(limit: number) {
    this.#limit = limit;
  }

  /** How many tasks are kept. */
  get size(): number {
    return this.#tasks.size;
  }

  /** True when `task` was dropped, or the filter of dropped ids wrongly claims it was. */
  mightHaveDropped(task: string): boolean {
    return this.#evicted.mightHold(task);
  }

  /** The task's kept replies, which makes it the newest to keep; `undefined` when none are kept. */
  touch(task: string): PlaceHits[] | undefined {
    const hits = this.#tasks.get(task);
    if (hits === undefined) return undefined;
    this.#tasks.set(task, hits);
    return hits;
  }

  /** The task the chosen reply of `task` gave when it was last read, if still kept. */
  answerOf(task: string): KeptAnswer | undefined {
    return this.#answers.get(task);
  }

  /** The non-terminal replies of a kept `task` that counted (settling adds to them). */
  countedOf(task: string): CountedReplies {
    let counted = this.#counted.get(task);
    if (counted === undefined) {
      counted = new CountedReplies();
      this.#counted.set(task, counted);
    }
    return counted;
  }

  /** A copy of the record ids of `task`'s non-terminal replies that counted (`undefined` when none did). */
  countedCopyOf(task: string): CountedReplies | undefined {
    return this.#counted.get(task)?.clone();
  }

  /**
   * Keeps a reply of `task` (`record` its record id); true when it is now the place's terminal or
   * latest reply of the task. A non-terminal reply with the record id of one that already counted
   * is a copy and changes nothing.
   */
  keep(task: string, place: string, hit: Hit, terminal: boolean, unverified: boolean, record?: RecordId): boolean {
    let hits = this.touch(task);
    if (hits === undefined) {
      // Its earlier replies may have been dropped: keeping only the later ones could give a wrong
      // answer, so lookups of it scan instead.
      if (this.#evicted.mightHold(task)) return false;
      hits = [];
      this.#tasks.set(task, hits);
    }
    let onPlace = hits.find((h) => h.place === place);
    if (onPlace === undefined) {
      onPlace = { place, terminal: undefined, latest: undefined, pending: [], overflow: false };
      hits.push(onPlace);
    }
    // The first terminal on a place wins there; nothing after it matters. A reply behind one
    // still waiting for verification waits too, so replies are settled in the order they came.
    const waits = unverified || onPlace.pending.length > 0;
    const counts = onPlace.terminal === undefined && !onPlace.overflow && !waits;
    if (onPlace.terminal === undefined && !onPlace.overflow && waits) {
      if (onPlace.pending.length < PENDING_REPLIES_PER_TASK) onPlace.pending.push(hit);
      else {
        onPlace.overflow = true;
        onPlace.pending = [];
      }
    }
    if (counts && terminal) onPlace.terminal = hit;
    else if (counts) {
      const counted = this.countedOf(task);
      if (counted.isCopy(record)) return false;
      counted.add(record);
      onPlace.latest = hit;
    }
    this.#dropOverLimit();
    return counts && this.#tasks.has(task);
  }

  /** Keeps the task the reply at `place`/`offset` gave, as the newest of the kept answers. */
  remember(task: string, place: string, offset: bigint, found: A2aTask): void {
    this.#answers.delete(task);
    this.#answers.set(task, { place, offset, task: found });
    while (this.#answers.size > KEPT_TASK_READS) {
      const oldest = this.#answers.keys().next().value;
      if (oldest === undefined) break;
      this.#answers.delete(oldest);
    }
  }

  #dropOverLimit(): void {
    while (this.#tasks.size > this.#limit) {
      const oldest = this.#tasks.oldest();
      if (oldest === undefined) break;
      this.#tasks.delete(oldest);
      this.#answers.delete(oldest);
      this.#counted.delete(oldest);
      this.#evicted.add(oldest);
    }
  }
}

/**
 * The reply that gives a task: its first terminal reply by append time (the first place asked on
 * a tie), else its latest non-terminal one; `undefined` when it has neither on `addresses`.
 */
export function chooseReply(hits: readonly PlaceHits[], addresses: readonly TaskAddress[], keyOf: (address: TaskAddress) => string): ChosenReply | undefined {
  let terminal: ChosenReply | undefined;
  let latest: ChosenReply | undefined;
  for (const [rank, address] of addresses.entries()) {
    const place = keyOf(address);
    const onPlace = hits.find((h) => h.place === place);
    if (onPlace === undefined) continue;
    if (onPlace.terminal !== undefined && earlier(terminal, { hit: onPlace.terminal, rank })) terminal = { hit: onPlace.terminal, rank, place, address };
    if (onPlace.latest !== undefined && (latest === undefined || onPlace.latest.micros > latest.hit.micros)) latest = { hit: onPlace.latest, rank, place, address };
  }
  return terminal ?? latest;
}

/** True when reply `b` came before reply `a` (by append time, the first place asked on a tie), or there is no `a`. */
function earlier(a: { hit: Hit; rank: number } | undefined, b: { hit: Hit; rank: number }): boolean {
  return a === undefined || b.hit.micros < a.hit.micros || (b.hit.micros === a.hit.micros && b.rank < a.rank);
}
