/**
 * Concurrent appends to one target merged into one SendMessages: the coalescer alone, with a
 * sender that records what it was asked to send. The transport's merged appends against the dev
 * server in another process are in dev-server.test.ts.
 */

import type { OutgoingMessage } from '@agdx/iggy-protocol';
import { describe, expect, it } from 'vitest';
import { AppendCoalescer, MAX_MERGED_MESSAGES } from '../src/append-coalescer.js';

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const msgs = (...payloads: string[]): OutgoingMessage[] => payloads.map((p) => ({ payload: text(p) }));

/** A sender whose sends complete when the test says so, recording every batch. */
function gatedSender(): { batches: string[][]; release: () => void; fail: (e: Error) => void; send: (m: readonly OutgoingMessage[]) => Promise<{ partition: number; baseOffset: bigint }> } {
  const batches: string[][] = [];
  const gates: { resolve: () => void; reject: (e: Error) => void }[] = [];
  let next = 0n;
  return {
    batches,
    release: () => gates.shift()?.resolve(),
    fail: (e) => gates.shift()?.reject(e),
    send: async (m) => {
      batches.push(m.map((x) => new TextDecoder().decode(x.payload)));
      await new Promise<void>((resolve, reject) => gates.push({ resolve, reject }));
      const baseOffset = next;
      next += BigInt(m.length);
      return { partition: 3, baseOffset };
    },
  };
}

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

describe('AppendCoalescer', () => {
  it('sends a lone append at once and merges what queues behind it, splitting the offsets back', async () => {
    const c = new AppendCoalescer();
    const s = gatedSender();
    const first = c.send('t', msgs('a'), s.send, undefined);
    const second = c.send('t', msgs('b', 'c'), s.send, undefined);
    const third = c.send('t', msgs('d'), s.send, undefined);
    await tick();
    expect(s.batches).toEqual([['a']]);
    s.release();
    expect(await first).toEqual({ partition: 3, baseOffset: 0n });
    await tick();
    expect(s.batches).toEqual([['a'], ['b', 'c', 'd']]);
    s.release();
    expect(await second).toEqual({ partition: 3, baseOffset: 1n });
    expect(await third).toEqual({ partition: 3, baseOffset: 3n });
  });

  it('keeps targets apart: one send per target on the wire, other targets not held back', async () => {
    const c = new AppendCoalescer();
    const s = gatedSender();
    const calls = [c.send('x', msgs('x1'), s.send, undefined), c.send('y', msgs('y1'), s.send, undefined), c.send('x', msgs('x2'), s.send, undefined), c.send('x', msgs('x3'), s.send, undefined)];
    await tick();
    expect(s.batches).toEqual([['x1'], ['y1']]);
    for (let i = 0; i < 3; i++) {
      s.release();
      await tick();
    }
    await Promise.all(calls);
    expect(s.batches).toEqual([['x1'], ['y1'], ['x2', 'x3']]);
  });

  it('fails every caller of a merged batch with the batch error, and later appends still go out', async () => {
    const c = new AppendCoalescer();
    const s = gatedSender();
    const first = c.send('t', msgs('a'), s.send, undefined);
    const merged = [c.send('t', msgs('b'), s.send, undefined), c.send('t', msgs('c'), s.send, undefined)];
    s.release();
    await first;
    await tick();
    s.fail(new Error('refused'));
    for (const m of merged) await expect(m).rejects.toThrow('refused');
    const later = c.send('t', msgs('d'), s.send, undefined);
    await tick();
    s.release();
    expect((await later).baseOffset).toBe(1n);
  });

  it('drops an append aborted while queued without sending it', async () => {
    const c = new AppendCoalescer();
    const s = gatedSender();
    const first = c.send('t', msgs('a'), s.send, undefined);
    const controller = new AbortController();
    const aborted = c.send('t', msgs('gone'), s.send, controller.signal);
    const kept = c.send('t', msgs('b'), s.send, undefined);
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ kind: 'cancelled' });
    s.release();
    await first;
    await tick();
    s.release();
    await kept;
    expect(s.batches).toEqual([['a'], ['b']]);
  });

  it('caps a merged batch at MAX_MERGED_MESSAGES', async () => {
    const c = new AppendCoalescer();
    const s = gatedSender();
    const first = c.send('t', msgs('a'), s.send, undefined);
    const big = Array.from({ length: MAX_MERGED_MESSAGES - 1 }, () => ({ payload: text('m') }));
    const queued = [c.send('t', big, s.send, undefined), c.send('t', msgs('x'), s.send, undefined), c.send('t', msgs('y'), s.send, undefined)];
    s.release();
    await first;
    await tick();
    expect(s.batches[1]?.length).toBe(MAX_MERGED_MESSAGES); // big + x
    s.release();
    await tick();
    expect(s.batches[2]).toEqual(['y']);
    s.release();
    await Promise.all(queued);
  });

  it('keeps a target busy after an abort until the sender releases the request it held', async () => {
    const c = new AppendCoalescer();
    const batches: string[][] = [];
    let releaseFirst: () => void = () => undefined;
    // The first send holds its request and rejects on abort, as the connection does for a
    // written request; later sends complete at once.
    const send = async (m: readonly OutgoingMessage[], signal: AbortSignal | undefined, hold?: () => () => void): Promise<{ partition: number; baseOffset: bigint }> => {
      batches.push(m.map((x) => new TextDecoder().decode(x.payload)));
      if (batches.length === 1) {
        releaseFirst = hold?.() ?? (() => undefined);
        await new Promise<void>((_resolve, reject) => signal?.addEventListener('abort', () => reject(new Error('aborted'))));
      }
      return { partition: 0, baseOffset: BigInt(batches.length) };
    };
    const abort = new AbortController();
    const first = c.send('t', msgs('a'), send, abort.signal);
    const second = c.send('t', msgs('b'), send, undefined);
    await tick();
    abort.abort();
    await expect(first).rejects.toThrow('aborted');
    await tick();
    expect(batches).toEqual([['a']]);
    releaseFirst();
    expect(await second).toEqual({ partition: 0, baseOffset: 2n });
    expect(batches).toEqual([['a'], ['b']]);
  });
});
