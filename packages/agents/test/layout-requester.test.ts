/**
 * A requester given another layout than the one the stream declares (`agdx.layout`) fails with
 * LayoutMismatchError before it sends anything, instead of waiting for a reply that lands where it
 * never looks: `request`, `replies(topic).expect/wait` and `awaitReply`. One `describeTopic` of
 * the declaration topic per wait (the declaration itself is read once), nothing per record, and a
 * stream without a declaration answers as before.
 */
import { AgdxClient, AgentTopic, declareLayout, LAYOUT_DECLARATION_TOPIC, LayoutMismatchError, TestClock, agentMessageBody, type StreamLayout } from '@agdx/agents';
import { MemoryLog, type LogTransport } from '@agdx/transport';
import { AgentId, ContentType, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { reply } from './support-client/replies.js';

const STREAM = 'layout-requester';
const enc = new TextEncoder();
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);
const shared: StreamLayout = { kind: 'shared' };
const byTopic: StreamLayout = { kind: 'perAgentTopic', topics: new Map([['worker', 'agent.worker'], ['requester', 'agent.requester']]) };

/** `inner` with a count of the calls that touch the declaration topic. */
function counting(inner: LogTransport): LogTransport & { readonly calls: { describe: number; read: number } } {
  const calls = { describe: 0, read: 0 };
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'calls') return calls;
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const topic = (args[0] as { topic?: unknown } | undefined)?.topic;
        if (topic === LAYOUT_DECLARATION_TOPIC && prop === 'describeTopic') calls.describe++;
        if (topic === LAYOUT_DECLARATION_TOPIC && prop === 'read') calls.read++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as LogTransport & { readonly calls: { describe: number; read: number } };
}

async function lane(log: MemoryLog): Promise<bigint[]> {
  return (await log.describeTopic({ stream: STREAM, topic: AgentTopic.Sessions })).partitions.map((p) => p.nextOffset);
}

/** Records on the worker's own topic of {@link byTopic}. */
async function workerRecords(log: MemoryLog): Promise<bigint> {
  return (await log.describeTopic({ stream: STREAM, topic: 'agent.worker' })).partitions.reduce((sum, p) => sum + p.nextOffset, 0n);
}

/** Waits (bounded) until `condition` holds. */
async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 5_000; tries++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  throw new Error('the condition never held');
}

/** A client on `log` with `layout` whose clock never moves: a wait it starts can only end by a reply or an error. */
const frozen = (log: LogTransport, layout: StreamLayout): AgdxClient => AgdxClient.from(log, { stream: STREAM, layout, clock: new TestClock(0n) });

async function refused(run: Promise<unknown>): Promise<LayoutMismatchError> {
  const error = await run.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(LayoutMismatchError);
  return error as LayoutMismatchError;
}

describe('a requester whose layout the stream declaration contradicts', () => {
  it('request() fails with LayoutMismatchError naming both layouts, and sends nothing', async () => {
    const log = new MemoryLog();
    await AgdxClient.from(log, { stream: STREAM, layout: byTopic }).bootstrap(4);
    const wrong = frozen(log, shared);
    const before = await lane(log);
    const request = wrong.agdx(AgentTopic.Sessions, 'requester', ConversationId.new()).command(MintUlid.mint(CorrelationId), enc.encode('hi')).withTarget('worker');
    // the clock is frozen: without the check this wait could only end at the test's own timeout
    const error = await refused(wrong.request(request, { replyTopic: AgentTopic.Sessions, timeoutMs: 1_000 }));
    expect(error.kind).toBe('layout-mismatch');
    expect(error.message).toContain('declares the perAgentTopic (requester -> agent.requester, worker -> agent.worker) layout, but this reader uses the shared layout');
    expect(error.context).toMatchObject({ stream: STREAM, declaredLayout: 'perAgentTopic', readerLayout: 'shared', declarationOffset: 0n });
    expect(await lane(log)).toEqual(before);
    expect(wrong.replies(AgentTopic.Sessions).pending).toBe(0);
  });

  it('replies(topic).expect, wait and awaitReply fail the same way, and leave no wait behind', async () => {
    const log = new MemoryLog();
    await AgdxClient.from(log, { stream: STREAM, layout: shared }).bootstrap(4);
    const wrong = frozen(log, byTopic);
    const wait = { correlation: MintUlid.mint(CorrelationId), conversation: ConversationId.new(), requester: 'requester', timeoutMs: 1_000 };
    const hub = wrong.replies(AgentTopic.Sessions);
    expect((await refused(hub.expect(wait))).context).toMatchObject({ declaredLayout: 'shared', readerLayout: 'perAgentTopic' });
    await refused(hub.wait(wait));
    await refused(wrong.awaitReply(AgentTopic.Sessions, wait));
    expect(hub.pending).toBe(0);
  });

  it('sees a declaration replaced while its hub is running, at the first wait after a second', async () => {
    const log = new MemoryLog();
    const transport = counting(log);
    const clock = new TestClock(0n);
    const laser = AgdxClient.from(transport, { stream: STREAM, clock });
    await laser.bootstrap(2);
    const conversation = ConversationId.new();
    const first = MintUlid.mint(CorrelationId);
    const hub = laser.replies(AgentTopic.Sessions);
    const pending = await hub.expect({ correlation: first, conversation, requester: 'requester', timeoutMs: 5_000 });
    await declareLayout(log, STREAM, byTopic, { replaceLayout: true });
    // a passed check holds for a second: a wait meanwhile describes nothing and is not refused
    const describes = transport.calls.describe;
    clock.advanceMs(999);
    const held = await hub.expect({ correlation: MintUlid.mint(CorrelationId), conversation, requester: 'requester', timeoutMs: 5_000 });
    expect(transport.calls.describe).toBe(describes);
    held.cancel();
    clock.advanceMs(1);
    await refused(hub.expect({ correlation: MintUlid.mint(CorrelationId), conversation, requester: 'requester', timeoutMs: 5_000 }));
    // a refusal is not held: the next wait is refused too
    await refused(hub.expect({ correlation: MintUlid.mint(CorrelationId), conversation, requester: 'requester', timeoutMs: 5_000 }));
    // a wait registered before the migration is not failed by it: its reply still answers it
    await laser.publish(AgentTopic.Sessions, reply(conversation, first, 'worker', 'before the migration'), ContentType.raw);
    expect(dec(agentMessageBody(await pending.reply))).toBe('before the migration');
  });
});

describe('a requester whose layout agrees, or a stream without a declaration', () => {
  it('gets its answer, with one describe of agdx.layout for the waits of a second and the declaration read once', async () => {
    const log = new MemoryLog();
    const transport = counting(log);
    const clock = new TestClock(0n);
    const laser = AgdxClient.from(transport, { stream: STREAM, layout: byTopic, clock });
    await laser.bootstrap(4);
    const answered: string[] = [];
    for (let i = 0; i < 3; i++) {
      const calls = { ...transport.calls };
      const conversation = ConversationId.new();
      const correlation = MintUlid.mint(CorrelationId);
      const request = laser.agdx(AgentTopic.Sessions, 'requester', conversation).command(correlation, enc.encode(`q${i}`)).withTarget('worker');
      const answer = laser.request(request, { replyTopic: AgentTopic.Sessions, timeoutMs: 10_000 });
      // the worker answers once the request is on the log (on its own topic under this layout)
      await until(async () => (await workerRecords(log)) === BigInt(i + 1));
      await laser.publish(AgentTopic.Sessions, reply(conversation, correlation, 'worker', `a${i}`, { target: AgentId.new('requester') }), ContentType.raw);
      answered.push(dec(agentMessageBody(await answer)));
      // the first wait checks the declaration (a describe, and a read of its one record); the
      // second is within the check's hold; the third, a second later, describes again
      expect(transport.calls.describe - calls.describe).toBe(i === 1 ? 0 : 1);
      expect(transport.calls.read - calls.read).toBe(i === 0 ? 1 : 0);
      clock.advanceMs(i === 0 ? 10 : 1_000);
    }
    expect(answered).toEqual(['a0', 'a1', 'a2']);
  });

  it('on a stream nobody declared a layout for, any layout waits as before', async () => {
    const log = new MemoryLog();
    await log.ensureStream(STREAM);
    await log.ensureTopic({ stream: STREAM, topic: AgentTopic.Sessions }, { partitions: 2 });
    const laser = AgdxClient.from(log, { stream: STREAM, layout: { kind: 'perAgentPartition', partitions: new Map([['requester', 1]]) } });
    const conversation = ConversationId.new();
    const correlation = MintUlid.mint(CorrelationId);
    const pending = await laser.replies(AgentTopic.Sessions).expect({ correlation, conversation, requester: 'requester', timeoutMs: 10_000 });
    await laser.publish(AgentTopic.Sessions, reply(conversation, correlation, 'worker', 'as before'), ContentType.raw);
    expect(dec(agentMessageBody(await pending.reply))).toBe('as before');
  });
});
