/**
 * Reply-wait timeouts share one clock timer per hub (src/replies/deadline-queue.ts): each wait
 * still times out after its own timeout, in deadline order, a settled wait leaves no timer
 * behind, and a clock that moves backwards does not strand a wait.
 */
import { describe, expect, it } from 'vitest';
import { MemoryLog } from '@agdx/transport';
import { ConversationId, CorrelationId, InvalidError, MintUlid } from '@agdx/wire';
import { AgdxClient, AgentTopic, TestClock, TimeoutError, type Clock } from '@agdx/agents';
import { DeadlineQueue, type Timed } from '../src/replies/deadline-queue.js';

function entry(name: string, expired: string[]): Timed {
  return { deadline: 0, slot: -1, expire: () => expired.push(name), fail: (error) => expired.push(`${name}!${String((error as Error).message)}`) };
}


/** `inner`, except that every timer after the first throws (a clock that breaks mid-run). */
function timerBreaksAfterFirstArm(inner: TestClock): Clock {
  let arms = 0;
  return {
    nowMicros: () => inner.nowMicros(),
    sleep: (ms, signal) => inner.sleep(ms, signal),
    timer: (ms, fire) => {
      if (++arms > 1) throw new Error('timer broke');
      return inner.timer(ms, fire);
    },
  };
}
describe('DeadlineQueue', () => {
  it('expires entries in deadline order on one timer, whatever order they were added in', () => {
    const clock = new TestClock(1_000n);
    const queue = new DeadlineQueue(clock);
    const expired: string[] = [];
    const entries = [30, 10, 50, 20, 40, 10].map((ms, i) => [ms, entry(`${ms}:${i}`, expired)] as const);
    for (const [ms, e] of entries) queue.add(e, ms);
    // One timer armed at a time: re-armed for an earlier deadline, the previous one cancelled.
    expect(clock.pendingSleeps).toBe(1);
    clock.advanceMs(9);
    expect(expired).toEqual([]);
    clock.advanceMs(1);
    expect(expired).toEqual(['10:1', '10:5']);
    expect(clock.pendingSleeps).toBe(1);
    clock.advanceMs(25);
    expect(expired).toEqual(['10:1', '10:5', '20:3', '30:0']);
    clock.advanceMs(15);
    expect(expired).toEqual(['10:1', '10:5', '20:3', '30:0', '40:4', '50:2']);
    expect(queue.size).toBe(0);
    expect(clock.pendingSleeps).toBe(0);
  });

  it('removes entries from anywhere, and cancels its timer when the last one leaves', () => {
    const clock = new TestClock(0n);
    const queue = new DeadlineQueue(clock);
    const expired: string[] = [];
    const all = Array.from({ length: 50 }, (_, i) => entry(String(i), expired));
    all.forEach((e, i) => queue.add(e, 100 + ((i * 37) % 50)));
    // Every other entry leaves (the root among them), then the rest expire in deadline order.
    for (let i = 0; i < all.length; i += 2) queue.remove(all[i] as Timed);
    queue.remove(all[0] as Timed); // twice is harmless
    expect(queue.size).toBe(25);
    clock.advanceMs(200);
    const order = expired.map(Number);
    expect(order).toHaveLength(25);
    expect(order.every((i) => i % 2 === 1)).toBe(true);
    const due = order.map((i) => 100 + ((i * 37) % 50));
    expect(due).toEqual([...due].sort((a, b) => a - b));
    const last = entry('last', expired);
    queue.add(last, 1_000);
    queue.remove(last);
    expect(clock.pendingSleeps).toBe(0);
  });

  it('keeps each entry its remaining time when the clock is set back', () => {
    const clock = new TestClock(1_000_000n);
    const queue = new DeadlineQueue(clock);
    const expired: string[] = [];
    queue.add(entry('a', expired), 10);
    clock.advanceMs(4);
    queue.add(entry('b', expired), 10);
    clock.set(0n); // back by a second: 'a' has 6 ms left, 'b' 10
    clock.advanceMs(6);
    expect(expired).toEqual(['a']);
    clock.advanceMs(4);
    expect(expired).toEqual(['a', 'b']);
  });

  it('does not let a cancelled timer of 0 ms that still fires expire a later wait early', async () => {
    // The test clock runs a 0 ms timer as a microtask its cancel cannot stop.
    const clock = new TestClock(0n);
    const queue = new DeadlineQueue(clock);
    const expired: string[] = [];
    const now = entry('now', expired);
    queue.add(now, 0);
    queue.remove(now);
    queue.add(entry('later', expired), 10);
    await Promise.resolve();
    await Promise.resolve();
    expect(expired).toEqual([]);
    clock.advanceMs(9);
    expect(expired).toEqual([]);
    clock.advanceMs(1);
    expect(expired).toEqual(['later']);
    expect(clock.pendingSleeps).toBe(0);
  });

  it('ignores a fire its cancel came too late for on a clock that only sleeps', async () => {
    // A clock without timer(): the queue's timer is a sleep, and once that sleep has resolved
    // its fire is already queued; cancelling then cannot stop it.
    const inner = new TestClock(0n);
    const clock: Clock = { nowMicros: () => inner.nowMicros(), sleep: (ms, signal) => inner.sleep(ms, signal) };
    const queue = new DeadlineQueue(clock);
    const expired: string[] = [];
    const first = entry('first', expired);
    queue.add(first, 5);
    inner.advanceMs(5); // the sleep resolves; its fire waits for a microtask
    queue.remove(first); // e.g. the reply came in the same turn
    queue.add(entry('second', expired), 100);
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(expired).toEqual([]);
    inner.advanceMs(99);
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(expired).toEqual([]);
    inner.advanceMs(1);
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(expired).toEqual(['second']);
  });

  it('ends every entry left with the clock\'s error when its timer cannot be armed again', () => {
    const inner = new TestClock(0n);
    const clock = timerBreaksAfterFirstArm(inner);
    const queue = new DeadlineQueue(clock);
    const expired: string[] = [];
    queue.add(entry('a', expired), 10);
    queue.add(entry('b', expired), 20);
    queue.add(entry('c', expired), 30);
    queue.add(entry('never', expired), Number.MAX_VALUE);
    inner.advanceMs(10);
    // 'a' timed out; nothing could time out 'b' and 'c' any more, so they end now; a deadline of
    // Infinity never needed a timer.
    expect(expired).toEqual(['a', 'b!timer broke', 'c!timer broke']);
    expect(queue.size).toBe(1);
  });

  it('lets an expiring entry remove or add others, and expires many equal timeouts and timeouts of 0 together', async () => {
    const clock = new TestClock(0n);
    const queue = new DeadlineQueue(clock);
    const expired: string[] = [];
    const equal = Array.from({ length: 100 }, (_, i) => entry(`e${i}`, expired));
    const sameTime = entry('same-time', expired);
    const later = entry('later', expired);
    const added = entry('added', expired);
    const first: Timed = {
      deadline: 0,
      slot: -1,
      expire: () => {
        expired.push('first');
        // Its owner reacts synchronously: one due now and one due later leave, one is added.
        queue.remove(sameTime);
        queue.remove(later);
        queue.add(added, 5);
      },
      fail: () => expired.push('first!'),
    };
    queue.add(first, 10);
    queue.add(sameTime, 10);
    for (const e of equal) queue.add(e, 10);
    queue.add(later, 12);
    clock.advanceMs(10);
    expect(expired[0]).toBe('first');
    expect(expired.slice(1).sort()).toEqual(equal.map((_, i) => `e${i}`).sort());
    expect(queue.size).toBe(1);
    clock.advanceMs(4);
    expect(expired).not.toContain('added');
    clock.advanceMs(1);
    expect(expired.at(-1)).toBe('added');
    expect(expired).not.toContain('later');
    expect(expired).not.toContain('same-time');
    expect(clock.pendingSleeps).toBe(0);
    // Timeouts of 0 expire on the next turn, together, and leave nothing armed.
    queue.add(entry('z1', expired), 0);
    queue.add(entry('z2', expired), 0);
    await Promise.resolve();
    await Promise.resolve();
    expect(expired.slice(-2)).toEqual(['z1', 'z2']);
    expect(queue.size).toBe(0);
    expect(clock.pendingSleeps).toBe(0);
  });

  it('still expires the next entry on time when an expiring entry adds a later one', () => {
    const clock = new TestClock(0n);
    const queue = new DeadlineQueue(clock);
    const expired: string[] = [];
    const added = entry('added', expired);
    queue.add({ deadline: 0, slot: -1, expire: () => (expired.push('first'), queue.add(added, 40)), fail: () => undefined }, 10);
    queue.add(entry('next', expired), 20);
    clock.advanceMs(10);
    expect(expired).toEqual(['first']);
    clock.advanceMs(10);
    expect(expired).toEqual(['first', 'next']);
    clock.advanceMs(30);
    expect(expired).toEqual(['first', 'next', 'added']);
    expect(clock.pendingSleeps).toBe(0);
  });

  it('keeps a timeout too large to add to the clock finite', () => {
    const clock = new TestClock(0n);
    const queue = new DeadlineQueue(clock);
    const expired: string[] = [];
    queue.add(entry('never', expired), Number.MAX_VALUE);
    queue.add(entry('soon', expired), 5);
    clock.advanceMs(5);
    expect(expired).toEqual(['soon']);
    expect(queue.size).toBe(1);
  });
});

describe('reply waits on one hub timer', () => {
  it('times each wait out after its own timeout, and a settled wait leaves no timer armed', async () => {
    const clock = new TestClock(10n);
    const log = new MemoryLog();
    const laser = AgdxClient.from(log, { stream: 'demo', clock });
    await laser.bootstrap(1);
    const hub = laser.replies(AgentTopic.Sessions);
    const conversation = ConversationId.new();
    const outcomes: string[] = [];
    const wait = async (name: string, timeoutMs: number) => {
      const pending = await hub.expect({ correlation: MintUlid.mint(CorrelationId), conversation, timeoutMs, timeoutMessage: name });
      pending.reply.then(
        () => outcomes.push(`${name}:answered`),
        (error: unknown) => outcomes.push(error instanceof TimeoutError ? `${name}:${error.message}` : `${name}:other`),
      );
      return pending;
    };
    const slow = await wait('slow', 300);
    await wait('fast', 100);
    const cancelled = await wait('cancelled', 50);
    await wait('middle', 200);
    cancelled.cancel();
    clock.advanceMs(100);
    await new Promise((r) => setTimeout(r, 1));
    expect(outcomes).toEqual(['cancelled:other', 'fast:fast']);
    clock.advanceMs(100);
    await new Promise((r) => setTimeout(r, 1));
    expect(outcomes).toEqual(['cancelled:other', 'fast:fast', 'middle:middle']);
    slow.cancel();
    await new Promise((r) => setTimeout(r, 1));
    expect(hub.pending).toBe(0);
    expect(clock.pendingSleeps).toBe(0);
    await laser.close();
  });

  it('leaves no wait registered when the clock\'s timer throws at registration', async () => {
    const inner = new TestClock(10n);
    let broken = false;
    const clock: Clock = {
      nowMicros: () => inner.nowMicros(),
      sleep: (ms, signal) => inner.sleep(ms, signal),
      timer: (ms, fire) => {
        if (broken) throw new Error('timer broke');
        return inner.timer(ms, fire);
      },
    };
    const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo', clock });
    await laser.bootstrap(1);
    const hub = laser.replies(AgentTopic.Sessions);
    const conversation = ConversationId.new();
    broken = true;
    await expect(hub.expect({ correlation: MintUlid.mint(CorrelationId), conversation, timeoutMs: 100 })).rejects.toThrow('timer broke');
    expect(hub.pending).toBe(0);
    // Once the readers run, registration takes the synchronous path: the same holds there.
    broken = false;
    const first = await hub.expect({ correlation: MintUlid.mint(CorrelationId), conversation, timeoutMs: 100 });
    broken = true;
    await expect(hub.expect({ correlation: MintUlid.mint(CorrelationId), conversation, timeoutMs: 5 })).rejects.toThrow('timer broke');
    expect(hub.pending).toBe(1);
    first.cancel();
    expect(hub.pending).toBe(0);
    await laser.close();
  });

  it('ends a wait whose timeout cannot be armed again instead of leaving it pending for good', async () => {
    const inner = new TestClock(10n);
    const clock = timerBreaksAfterFirstArm(inner);
    const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo', clock });
    await laser.bootstrap(1);
    const hub = laser.replies(AgentTopic.Sessions);
    const conversation = ConversationId.new();
    const fast = await hub.expect({ correlation: MintUlid.mint(CorrelationId), conversation, timeoutMs: 10 });
    const slow = await hub.expect({ correlation: MintUlid.mint(CorrelationId), conversation, timeoutMs: 20 });
    inner.advanceMs(10);
    await expect(fast.reply).rejects.toBeInstanceOf(TimeoutError);
    await expect(slow.reply).rejects.toThrow('timer broke');
    expect(hub.pending).toBe(0);
    await laser.close();
  });

  it('refuses a timeout that is not a finite non-negative number before registering; 0 times out on the next turn; a huge one waits', async () => {
    const clock = new TestClock(10n);
    const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo', clock });
    await laser.bootstrap(1);
    const hub = laser.replies(AgentTopic.Sessions);
    const conversation = ConversationId.new();
    const options = (timeoutMs: number) => ({ correlation: MintUlid.mint(CorrelationId), conversation, timeoutMs });
    for (const bad of [Number.NaN, Infinity, -1, -Infinity]) {
      let registering: Promise<unknown> | undefined;
      expect(() => (registering = hub.expect(options(bad)))).not.toThrow();
      await expect(registering).rejects.toBeInstanceOf(InvalidError);
      const request = laser.agdx(AgentTopic.Sessions, 'me', conversation).command(MintUlid.mint(CorrelationId), new Uint8Array(1));
      await expect(laser.request(request, { replyTopic: AgentTopic.Sessions, timeoutMs: bad })).rejects.toBeInstanceOf(InvalidError);
      expect(hub.pending).toBe(0);
    }
    const huge = await hub.expect(options(1e300));
    const largest = await hub.expect(options(Number.MAX_VALUE));
    const zero = await hub.expect(options(0));
    await expect(zero.reply).rejects.toBeInstanceOf(TimeoutError);
    clock.advanceMs(1e12);
    await new Promise((r) => setTimeout(r, 1));
    expect(hub.pending).toBe(2);
    huge.cancel();
    largest.cancel();
    expect(hub.pending).toBe(0);
    expect(clock.pendingSleeps).toBe(0);
    await laser.close();
  });
});
