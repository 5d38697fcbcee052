/**
 * Reading on a log whose waits poll (Iggy has no blocking read): the reply hub and the agent's
 * consumer loop pace their own reads instead of sleeping in `waitFor`. Held to the waking path:
 * the same exchange over a MemoryLog that declares `waitsByPolling` answers every request with its
 * own reply, never calls `waitFor`, and costs only a bounded number of reads while idle.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AgdxClient, Agent, AgentTopic, agentMessageBody } from '@agdx/agents';
import { MemoryLog, type LogTransport } from '@agdx/transport';
import { AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { PollPacer } from '../src/clock/poll-pacer.js';

const enc = new TextEncoder();
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

/** A MemoryLog connection that says its waits poll, counting reads and waits. */
function pollingLog(log: MemoryLog): LogTransport & { readonly calls: { read: number; waitFor: number } } {
  const calls = { read: 0, waitFor: 0 };
  return new Proxy(log, {
    get(target, prop, receiver) {
      if (prop === 'waitsByPolling') return true;
      if (prop === 'calls') return calls;
      if (prop === 'read' || prop === 'waitFor') calls[prop]++;
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as unknown as LogTransport & { readonly calls: { read: number; waitFor: number } };
}

const settledNow = async (p: Promise<unknown>): Promise<boolean> => {
  let settled = false;
  void p.then(() => (settled = true));
  await Promise.resolve();
  await Promise.resolve();
  return settled;
};

describe('PollPacer', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reads again at once inside the hot window (a bounded number of times), then pauses doubling up to the maximum', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const pacer = new PollPacer({ hotMs: 5, hotReads: 2, minMs: 2, maxMs: 8 });
    pacer.active();
    expect(await settledNow(pacer.idle())).toBe(true);
    expect(await settledNow(pacer.idle())).toBe(true);
    // Two empty reads used the hot window's allowance although its time has not passed.
    expect(await settledNow(pacer.idle())).toBe(false);
    pacer.active();
    expect(await settledNow(pacer.idle())).toBe(true);
    vi.advanceTimersByTime(5);
    const pauses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const due = pacer.idle();
      let waited = 0;
      while (!(await settledNow(due))) {
        vi.advanceTimersByTime(1);
        waited++;
        if (waited > 100) throw new Error('the pause never ended');
      }
      pauses.push(waited);
    }
    expect(pauses).toEqual([2, 4, 8, 8, 8]);
  });

  it('active() cuts a pause short and restarts from the shortest pause; an aborted signal ends a pause', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const pacer = new PollPacer({ hotMs: 0, hotReads: 0, minMs: 50, maxMs: 50 });
    const due = pacer.idle();
    expect(await settledNow(due)).toBe(false);
    pacer.active();
    expect(await settledNow(due)).toBe(true);
    const stop = new AbortController();
    const stopped = pacer.idle(stop.signal);
    expect(await settledNow(stopped)).toBe(false);
    stop.abort();
    expect(await settledNow(stopped)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('on a log whose waits poll', () => {
  it('every concurrent request gets its own reply, as on the waking log, with no waitFor and a bounded idle cost', async () => {
    const log = new MemoryLog();
    const requester = pollingLog(log);
    const responder = pollingLog(log);
    const laser = AgdxClient.from(requester, { stream: 'poll' });
    await laser.bootstrap(3);
    const agentClient = AgdxClient.from(responder, { stream: 'poll' });
    const agent = Agent.builder()
      .id('echo')
      .listenOn(AgentTopic.Commands)
      .respondOn(AgentTopic.Responses)
      .followControl(false)
      .heartbeats(false)
      .handler((message, ctx) => ctx.respond(enc.encode(`echo ${dec(message.envelope?.body ?? new Uint8Array())}`)))
      .spawn(agentClient);
    try {
      await agent.ready();
      const planner = AgentId.new('planner');
      const ask = async (i: number): Promise<string> => {
        // Conversations spread the requests over the three partitions of each topic.
        const request = laser.agdx(AgentTopic.Commands, planner, ConversationId.new()).command(MintUlid.mint(CorrelationId), enc.encode(`q${i}`)).withTarget('echo');
        return dec(agentMessageBody(await laser.request(request, { replyTopic: AgentTopic.Responses, timeoutMs: 10_000 })));
      };
      const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => ask(i)));
      expect(answers).toEqual(Array.from({ length: 60 }, (_, i) => `echo q${i}`));
      // One at a time too: each reply is found although the readers went idle in between.
      for (let i = 0; i < 3; i++) {
        expect(await ask(100 + i)).toBe(`echo q${100 + i}`);
        await new Promise((r) => setTimeout(r, 80));
      }
      expect(requester.calls.waitFor + responder.calls.waitFor).toBe(0);

      // Idle: after the hot window the agent backs off (pauses up to 100 ms, assignment reused) and
      // the hub's readers stop once no wait is pending, so 600 ms cost a bounded number of reads.
      await new Promise((r) => setTimeout(r, 300));
      const before = requester.calls.read + responder.calls.read;
      await new Promise((r) => setTimeout(r, 600));
      expect(requester.calls.read + responder.calls.read - before).toBeLessThanOrEqual(3 * 20);
    } finally {
      await agent.shutdown();
      await agentClient.close();
      await laser.close();
    }
  });
});

describe('PendingReply.sent()', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('makes the reply reader, paused after its hot reads, look again at once', async () => {
    // Timers and the clock are frozen: a paused reader would never read again on its own.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const log = new MemoryLog();
    const requester = pollingLog(log);
    const laser = AgdxClient.from(requester, { stream: 'sent' });
    try {
      await laser.bootstrap(1);
      const conversation = ConversationId.new();
      const correlation = MintUlid.mint(CorrelationId);
      const pending = await laser.replies(AgentTopic.Responses).expect({ correlation, conversation, timeoutMs: 60_000 });
      const settle = async (): Promise<number> => {
        // Let the reader run until it stops reading (its hot reads spent, it sits in a pause).
        let reads = -1;
        for (let i = 0; i < 1000 && reads !== requester.calls.read; i++) {
          reads = requester.calls.read;
          // setImmediate is not faked: several turns of the event loop per check.
          for (let k = 0; k < 5; k++) await new Promise((resolve) => setImmediate(resolve));
        }
        return requester.calls.read;
      };
      const paused = await settle();
      expect(paused).toBeGreaterThan(1);
      // The answer lands while the reader is paused: without a wake-up it is not seen.
      await laser.agdx(AgentTopic.Responses, AgentId.new('echo'), conversation).respond(correlation, enc.encode('answer')).send();
      expect(await settle()).toBe(paused);
      expect(await settledNow(pending.reply)).toBe(false);
      pending.sent();
      await settle();
      expect(requester.calls.read).toBeGreaterThan(paused);
      expect(dec(agentMessageBody(await pending.reply))).toBe('answer');
      pending.sent(); // after the reply: a no-op
    } finally {
      await laser.close();
    }
  });
});
