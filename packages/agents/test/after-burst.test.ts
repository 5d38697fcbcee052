/**
 * The end-of-burst hop where the platform has no `setImmediate` (browsers): one shared
 * `MessageChannel` whose single message serves every callback queued before it, which runs after
 * every microtask queued meanwhile, and which keeps a process alive only while a hop is pending.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { afterBurst, burstEnd } from '../src/clock/after-burst.js';
import { countingChannel } from './support/counting-channel.js';

/** Resolves after `n` chained microtasks, recording when it is done. */
async function microtaskChain(n: number, order: string[]): Promise<void> {
  for (let i = 0; i < n; i++) await Promise.resolve();
  order.push('microtasks');
}

describe('afterBurst without setImmediate', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('runs after every microtask queued meanwhile, with one message for all callbacks queued before it', async () => {
    vi.stubGlobal('setImmediate', undefined);
    const { channel, posts } = countingChannel();
    vi.stubGlobal('MessageChannel', channel);
    const order: string[] = [];
    afterBurst(() => order.push('hop 1'));
    afterBurst(() => order.push('hop 2'));
    await Promise.all([microtaskChain(50, order), burstEnd().then(() => order.push('hop 3'))]);
    expect(order).toEqual(['microtasks', 'hop 1', 'hop 2', 'hop 3']);
    expect(posts()).toBe(1);
    // A callback queued by a delivered one waits for the next message.
    await new Promise<void>((resolve) => afterBurst(() => afterBurst(resolve)));
    expect(posts()).toBe(3);
  });

  it('keeps running the batch when one callback throws, and reports the error', async () => {
    vi.stubGlobal('setImmediate', undefined);
    const reported: unknown[] = [];
    const realQueue = queueMicrotask;
    // The hop reports a callback's error as an uncaught one, from a microtask: catch it there.
    vi.stubGlobal('queueMicrotask', (task: () => void) =>
      realQueue(() => {
        try {
          task();
        } catch (error) {
          reported.push(error);
        }
      }),
    );
    const boom = new Error('boom');
    afterBurst(() => {
      throw boom;
    });
    await burstEnd();
    await Promise.resolve();
    expect(reported).toEqual([boom]);
  });

  it('references its port only while a hop is pending, so an idle client does not keep a process alive', async () => {
    vi.stubGlobal('setImmediate', undefined);
    const referenced: boolean[] = [];
    let isReferenced = true;
    class Tracking extends MessageChannel {
      constructor() {
        super();
        // Node's port has ref/unref; the DOM typings the tests compile against do not say so.
        const port = this.port1 as MessagePort & { ref: () => void; unref: () => void };
        const ref = port.ref.bind(port);
        const unref = port.unref.bind(port);
        port.ref = () => {
          isReferenced = true;
          return ref();
        };
        port.unref = () => {
          isReferenced = false;
          return unref();
        };
      }
    }
    vi.stubGlobal('MessageChannel', Tracking);
    afterBurst(() => referenced.push(isReferenced));
    expect(isReferenced).toBe(true);
    await burstEnd();
    // Unreferenced before the batch runs, referenced again by the hop queued from it, unreferenced once idle.
    expect(referenced).toEqual([false]);
    expect(isReferenced).toBe(false);
  });

  it('is a microtask where there is no MessageChannel either', async () => {
    vi.stubGlobal('setImmediate', undefined);
    vi.stubGlobal('MessageChannel', undefined);
    const order: string[] = [];
    const chain = microtaskChain(50, order);
    await burstEnd().then(() => order.push('hop'));
    await chain;
    expect(order).toEqual(['hop', 'microtasks']);
  });
});
