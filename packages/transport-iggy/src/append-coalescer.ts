/**
 * Merges concurrent appends to one target into one SendMessages. VSR carries one request per
 * connection at a time, so when many callers append to the same partition at once (64 requests
 * in flight, a busy agent's answers) each append used to wait a full request round trip behind
 * the others. Here one send per target is on the wire at a time (two connections would not keep
 * the order of two appends to one partition); appends arriving meanwhile queue, and when the send
 * finishes the queue leaves as one batch (in arrival order, up to {@link MAX_MERGED_MESSAGES}
 * messages and {@link MAX_MERGED_BYTES} bytes), its offsets split back to each caller. An append
 * to an idle target goes out at once, so a lone caller pays no extra latency.
 *
 * A merged batch succeeds or fails as a whole, as one append does: every caller in it gets the
 * same error. A caller whose signal fires while queued leaves the queue (nothing was sent); once
 * its records are on the wire, the abort settles its call with `CancelledError` at once while the
 * batch completes for the others, so its records may still be stored (as for any aborted write).
 */

import type { OutgoingMessage } from '@agdx/iggy-protocol';
import { CancelledError, watchAbort } from '@agdx/transport';
import { ownCopy } from './outgoing-messages.js';

/** Largest number of messages merged into one batch. */
export const MAX_MERGED_MESSAGES = 4096;
/** Largest number of payload and header bytes merged into one batch (one large append still goes alone). */
export const MAX_MERGED_BYTES: number = 1024 * 1024;

/** Where a send landed. */
export interface SendPlacement {
  /** The partition. */
  readonly partition: number;
  /** Offset of the batch's first message. */
  readonly baseOffset: bigint;
}

/**
 * Sends one batch (with the caller's signal for a direct send, none for a merged one). A sender
 * whose request may outlive an abort (it stays on the wire until answered) calls `hold` and
 * passes the function it returns to the connection as `onRelease`, which the connection calls
 * once it is done with the request; the target stays busy until then.
 */
export type BatchSender = (messages: readonly OutgoingMessage[], signal: AbortSignal | undefined, hold?: () => () => void) => Promise<SendPlacement>;

interface Waiting {
  readonly messages: readonly OutgoingMessage[];
  readonly bytes: number;
  readonly send: BatchSender;
  settled: boolean;
  unwatch: (() => void) | undefined;
  resolve(placement: SendPlacement): void;
  reject(error: unknown): void;
}

interface Target {
  /** True while a send to this target is on the wire. */
  busy: boolean;
  readonly queue: Waiting[];
}

function sizeOf(messages: readonly OutgoingMessage[]): number {
  let bytes = 0;
  for (const m of messages) bytes += m.payload.length + (m.rawHeaders?.length ?? 0);
  return bytes;
}

function settle(w: Waiting, outcome: { placement: SendPlacement } | { error: unknown }): void {
  if (w.settled) return;
  w.settled = true;
  w.unwatch?.();
  if ('placement' in outcome) w.resolve(outcome.placement);
  else w.reject(outcome.error);
}

/** Per-target send queues; one per transport. */
export class AppendCoalescer {
  readonly #targets = new Map<string, Target>();

  /**
   * Sends `messages` to the target named `key` (callers with equal keys must route identically),
   * at once when the target is idle, else merged with the appends queued behind the send in flight.
   */
  send(key: string, messages: readonly OutgoingMessage[], send: BatchSender, signal: AbortSignal | undefined): Promise<SendPlacement> {
    let target = this.#targets.get(key);
    if (target === undefined) this.#targets.set(key, (target = { busy: false, queue: [] }));
    if (!target.busy && target.queue.length === 0) return this.#direct(key, target, messages, send, signal);
    return new Promise<SendPlacement>((resolve, reject) => {
      const waiting: Waiting = { messages: ownCopy(messages), bytes: sizeOf(messages), send, settled: false, unwatch: undefined, resolve, reject };
      const t = target;
      waiting.unwatch = watchAbort(signal, () => {
        const at = t.queue.indexOf(waiting);
        if (at !== -1) t.queue.splice(at, 1);
        settle(waiting, { error: new CancelledError('the operation was aborted', { cause: signal?.reason }) });
        this.#forget(key, t);
      });
      if (!waiting.settled) target.queue.push(waiting);
    });
  }

  async #direct(key: string, target: Target, messages: readonly OutgoingMessage[], send: BatchSender, signal: AbortSignal | undefined): Promise<SendPlacement> {
    target.busy = true;
    let held = false;
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const hold = (): (() => void) => {
      held = true;
      return release;
    };
    try {
      return await send(messages, signal, hold);
    } finally {
      const idle = (): void => {
        target.busy = false;
        this.#drain(key, target);
      };
      // An abort rejects the caller at once, but a request already written stays on the wire
      // and may still be applied: the target stays busy until the connection releases it, so
      // the next send to it (perhaps over another connection) cannot overtake it. Any other
      // outcome was released before it settled.
      if (held) void released.then(idle);
      else idle();
    }
  }

  /** Sends the appends queued for an idle target as one merged batch. */
  #drain(key: string, target: Target): void {
    if (target.queue.length > 0 && !target.busy) {
      const group: Waiting[] = [];
      let count = 0;
      let bytes = 0;
      while (target.queue.length > 0) {
        const next = target.queue[0] as Waiting;
        if (group.length > 0 && (count + next.messages.length > MAX_MERGED_MESSAGES || bytes + next.bytes > MAX_MERGED_BYTES)) break;
        target.queue.shift();
        group.push(next);
        count += next.messages.length;
        bytes += next.bytes;
      }
      target.busy = true;
      void this.#sendGroup(group, count).finally(() => {
        target.busy = false;
        this.#drain(key, target);
      });
    }
    this.#forget(key, target);
  }

  async #sendGroup(group: readonly Waiting[], count: number): Promise<void> {
    const first = group[0] as Waiting;
    let merged: readonly OutgoingMessage[];
    if (group.length === 1) merged = first.messages;
    else {
      const all = new Array<OutgoingMessage>(count);
      let i = 0;
      for (const w of group) for (const m of w.messages) all[i++] = m;
      merged = all;
    }
    try {
      const placement = await first.send(merged, undefined);
      let offset = placement.baseOffset;
      for (const w of group) {
        settle(w, { placement: { partition: placement.partition, baseOffset: offset } });
        offset += BigInt(w.messages.length);
      }
    } catch (error) {
      for (const w of group) settle(w, { error });
    }
  }

  #forget(key: string, target: Target): void {
    if (!target.busy && target.queue.length === 0 && this.#targets.get(key) === target) this.#targets.delete(key);
  }
}
