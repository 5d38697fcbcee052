import { describe, expect, it } from 'vitest';
import { CancelledError, parseStreamScopedName, streamScopedName, SystemClock, TestClock } from '@agdx/agents';
import { AgdxError, InvalidError } from '@agdx/wire';

const U64_MAX = (1n << 64n) - 1n;

describe('TestClock', () => {
  it('counts epoch microseconds as u64 and wraps at the ceiling', () => {
    const clock = new TestClock(U64_MAX - 5n);
    clock.advance(5n);
    expect(clock.nowMicros()).toBe(U64_MAX);
    clock.advance(1n);
    expect(clock.nowMicros()).toBe(0n);
    clock.advance(10n);
    expect(clock.nowMicros()).toBe(10n);
  });

  it('rejects starts outside the u64 range and bad advances', () => {
    expect(() => new TestClock(-1n)).toThrow(InvalidError);
    expect(() => new TestClock(U64_MAX + 1n)).toThrow(InvalidError);
    expect(() => new TestClock(1.5 as unknown as bigint)).toThrow(InvalidError);
    expect(() => new TestClock('0' as unknown as bigint)).toThrow(InvalidError);
    expect(new TestClock(U64_MAX).nowMicros()).toBe(U64_MAX);
    expect(() => new TestClock().advance(-1n)).toThrow(InvalidError);
  });

  it('resolves sleeps only once advanced past them, across a wrap', async () => {
    const clock = new TestClock(U64_MAX - 500n);
    let woke = false;
    const sleep = clock.sleep(1).then(() => {
      woke = true;
    });
    expect(clock.pendingSleeps).toBe(1);
    clock.advance(999n);
    await Promise.resolve();
    expect(woke).toBe(false);
    clock.advance(1n);
    await sleep;
    expect(woke).toBe(true);
    expect(clock.nowMicros()).toBe(499n);
  });

  it('rejects an aborted sleep with CancelledError', async () => {
    const clock = new TestClock(0n);
    const controller = new AbortController();
    const sleep = clock.sleep(10, controller.signal);
    controller.abort();
    await expect(sleep).rejects.toBeInstanceOf(CancelledError);
    expect(clock.pendingSleeps).toBe(0);
    await expect(clock.sleep(-1)).rejects.toThrow(InvalidError);
  });
});

describe('Clock.timer', () => {
  it('TestClock fires timers when advanced past them, and cancels', async () => {
    const clock = new TestClock(0n);
    const fired: string[] = [];
    clock.timer(5, () => fired.push('a'));
    const cancel = clock.timer(5, () => fired.push('b'));
    cancel();
    clock.timer(0, () => fired.push('now'));
    await Promise.resolve();
    expect(fired).toEqual(['now']);
    clock.advanceMs(5);
    expect(fired).toEqual(['now', 'a']);
    expect(clock.pendingSleeps).toBe(0);
  });

  it('SystemClock fires and cancels timers', async () => {
    const fired: string[] = [];
    const cancel = SystemClock.instance.timer(1, () => fired.push('cancelled'));
    cancel();
    await new Promise<void>((resolve) => SystemClock.instance.timer(2, resolve));
    expect(fired).toEqual([]);
    expect(() => SystemClock.instance.timer(-1, () => undefined)).toThrow(InvalidError);
  });
});

describe('SystemClock', () => {
  it('reports epoch microseconds near Date.now()', () => {
    const now = SystemClock.instance.nowMicros();
    expect(typeof now).toBe('bigint');
    const ms = Number(now / 1000n);
    expect(Math.abs(ms - Date.now())).toBeLessThan(1000);
  });

  it('sleeps and cancels', async () => {
    await SystemClock.instance.sleep(1);
    const c = new AbortController();
    const p = SystemClock.instance.sleep(10_000, c.signal);
    c.abort();
    await expect(p).rejects.toSatisfy((e) => AgdxError.is(e, 'cancelled'));
  });
});

describe('stream-scoped names', () => {
  it('scopes, passes scoped names through and parses back', () => {
    expect(streamScopedName('tenant-a', 'agent.keys')).toBe('stream:tenant-a/agent.keys');
    expect(streamScopedName('other', 'stream:tenant-a/agent.keys')).toBe('stream:tenant-a/agent.keys');
    expect(parseStreamScopedName('stream:tenant-a/kv/ns')).toEqual({ stream: 'tenant-a', local: 'kv/ns' });
    expect(parseStreamScopedName('agent.keys')).toBeUndefined();
    expect(parseStreamScopedName('stream:/x')).toBeUndefined();
    expect(parseStreamScopedName('stream:a/')).toBeUndefined();
    expect(() => streamScopedName('', 'x')).toThrow(InvalidError);
    expect(() => streamScopedName('a/b', 'x')).toThrow(InvalidError);
    expect(() => streamScopedName('a', '')).toThrow(InvalidError);
  });
});
