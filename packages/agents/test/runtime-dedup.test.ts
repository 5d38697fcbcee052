import { Agent, AgentTopic, LogProcessedKeyStore, processedKey, SlidingWindowKeyStore, type AgentHandle, type ProcessedKeyStore } from '@agdx/agents';
import { AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { eventually, harness, STREAM, type Harness } from './support-runtime/harness.js';

const text = new TextEncoder();

async function pay(h: Harness, key: string, amount: string): Promise<void> {
  await h.laser
    .agdx(AgentTopic.Commands, AgentId.new('shop'), ConversationId.new())
    .command(MintUlid.mint(CorrelationId), text.encode(amount))
    .withOperation('pay')
    .withIdempotencyKey(key)
    .send();
}

describe('processed-key stores', () => {
  it('the sliding window forgets the oldest keys beyond its capacity', () => {
    const window = new SlidingWindowKeyStore(2);
    window.add('a');
    window.add('b');
    window.add('a');
    window.add('c');
    expect([window.has('a'), window.has('b'), window.has('c')]).toEqual([true, false, true]);
    expect(window.size).toBe(2);
    expect(() => new SlidingWindowKeyStore(0)).toThrow('at least 1');
  });

  it('the sliding window keeps exactly the newest keys over many adds and re-adds', () => {
    const window = new SlidingWindowKeyStore(500);
    const model = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      // every third add re-adds a key added 300 adds before (still kept), which refreshes it
      const key = i % 3 === 2 ? `k${i - 300}` : `k${i}`;
      window.add(key);
      model.delete(key);
      model.add(key);
      if (model.size > 500) model.delete(model.values().next().value as string);
    }
    expect(window.size).toBe(500);
    const kept = Array.from({ length: 5000 }, (_, i) => `k${i}`).filter((k) => window.has(k));
    expect(kept.sort()).toEqual([...model].sort());
  });

  it('the log-backed store folds its namespace on open and ignores other namespaces', async () => {
    const h = await harness();
    const one = await LogProcessedKeyStore.open(h.log, { stream: STREAM, namespace: 'payer' });
    const other = await LogProcessedKeyStore.open(h.log, { stream: STREAM, namespace: 'refunder' });
    await one.add('k1');
    await one.add('k2');
    await one.add('k1');
    await other.add('k9');
    const reopened = await LogProcessedKeyStore.open(h.log.connect(), { stream: STREAM, namespace: 'payer' });
    expect([reopened.has('k1'), reopened.has('k2'), reopened.has('k9')]).toEqual([true, true, false]);
    expect(reopened.size).toBe(2);
    await other.add('k10');
    await one.add('k3');
    await reopened.refresh();
    expect(reopened.has('k3')).toBe(true);
    expect(reopened.has('k10')).toBe(false);
    expect(processedKey('payer', 'k1')).toBe('payer\u001fk1');
  });
});

describe('exactly-once effects (idempotency key + durable processed-key store)', () => {
  async function run(h: Harness, store: () => Promise<ProcessedKeyStore>, effects: Map<string, number>): Promise<void> {
    let crashed = false;
    let agent: AgentHandle | undefined;
    const spawn = async (): Promise<AgentHandle> =>
      Agent.builder()
        .id('payer')
        .listenOn(AgentTopic.Commands)
        .processedKeys(await store())
        .handler(async (message) => {
          const key = message.provenance.idempotencyKey ?? '';
          effects.set(key, (effects.get(key) ?? 0) + 1);
          if (key === 'order-2' && !crashed) {
            crashed = true;
            // The effect happened and the key is being recorded; the process dies before the commit.
            await agent?.abort();
          }
        })
        .spawn(h.connect());
    agent = await spawn();
    await agent.ready();
    await pay(h, 'order-1', '10');
    await pay(h, 'order-1', '10');
    await pay(h, 'order-2', '20');
    await eventually(() => crashed, 5_000, 'the crash');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const restarted = await spawn();
    await restarted.ready();
    await pay(h, 'order-3', '30');
    await eventually(() => (effects.get('order-3') ?? 0) === 1, 5_000, 'the next order');
    await restarted.shutdown();
  }

  it('with the log-backed store, a redelivery after a crash has no second effect', async () => {
    const h = await harness();
    const effects = new Map<string, number>();
    await run(h, () => LogProcessedKeyStore.open(h.log, { stream: STREAM, namespace: 'payer' }), effects);
    expect(Object.fromEntries(effects)).toEqual({ 'order-1': 1, 'order-2': 1, 'order-3': 1 });
  });

  it('with only the in-memory window, the restart repeats the effect (why the durable store exists)', async () => {
    const h = await harness();
    const effects = new Map<string, number>();
    await run(h, async () => new SlidingWindowKeyStore(), effects);
    expect(effects.get('order-2')).toBe(2);
  });
});
