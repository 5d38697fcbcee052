/**
 * A request's timeout (and its signal) bound the whole call, the append of the request included:
 * over a log whose append hangs, `request()` and `requestInput()` still end with TimeoutError on
 * time, and a reply that arrives before the append is acknowledged answers the call.
 */
import { describe, expect, it } from 'vitest';
import { AgdxClient, AgentTopic, CancelledError, TestClock, TimeoutError, agentMessageBody } from '@agdx/agents';
import { ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { MAX_PAYLOAD_BYTES, MemoryLog, type AppendRequest, type AppendResult, type LogTransport } from '@agdx/transport';

/** A MemoryLog whose appends of commands are held (stored only on `release`, acknowledged as `ack` says). */
function holdingLog(): { transport: LogTransport; release: () => void; stored: Promise<void> } {
  const inner = new MemoryLog();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let stored!: () => void;
  const storedCommand = new Promise<void>((resolve) => (stored = resolve));
  const transport = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'append') {
        return async (request: AppendRequest): Promise<AppendResult> => {
          if (request.topic !== AgentTopic.Commands) return target.append(request);
          await released;
          const result = await target.append(request);
          stored();
          // Stored, but the acknowledgment never comes.
          return new Promise<AppendResult>(() => result);
        };
      }
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as LogTransport;
  return { transport, release, stored: storedCommand };
}

async function settles(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}

/** Lets the reply hub and the timers of a TestClock run. */
const turn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe('a request over an append that is never acknowledged', () => {
  it('request() ends with TimeoutError when its timeout passes, however long the append takes', async () => {
    const clock = new TestClock(1_000_000n);
    const { transport } = holdingLog();
    const laser = AgdxClient.from(transport, { stream: 'demo', clock });
    await laser.bootstrap(1);
    const request = laser.agdx(AgentTopic.Commands, 'me', ConversationId.new()).command(MintUlid.mint(CorrelationId), new Uint8Array([1]));
    const outcome = settles(laser.request(request, { replyTopic: AgentTopic.Responses, timeoutMs: 100 }));
    await turn();
    clock.advanceMs(100);
    expect(await outcome).toMatchObject({ error: expect.any(TimeoutError) });
    expect(laser.replies(AgentTopic.Responses).pending).toBe(0);
  });

  it('requestInput() and a signal end the same way', async () => {
    const clock = new TestClock(1_000_000n);
    const { transport } = holdingLog();
    const laser = AgdxClient.from(transport, { stream: 'demo', clock });
    await laser.bootstrap(1);
    const send = laser.agdx(AgentTopic.Commands, 'me', ConversationId.new());
    const timing = settles(send.requestInput(AgentTopic.Responses, new Uint8Array([1]), 100));
    const abort = new AbortController();
    const cancelling = settles(laser.request(send.command(MintUlid.mint(CorrelationId), new Uint8Array([2])), { replyTopic: AgentTopic.Responses, timeoutMs: 60_000, signal: abort.signal }));
    await turn();
    clock.advanceMs(100);
    abort.abort();
    expect(await timing).toMatchObject({ error: expect.any(TimeoutError) });
    expect(await cancelling).toMatchObject({ error: expect.any(CancelledError) });
  });

  it('a reply to the stored request answers it although the append is never acknowledged', async () => {
    const { transport, release, stored } = holdingLog();
    const laser = AgdxClient.from(transport, { stream: 'demo' });
    await laser.bootstrap(1);
    const conversation = ConversationId.new();
    const correlation = MintUlid.mint(CorrelationId);
    const asking = laser.request(laser.agdx(AgentTopic.Commands, 'me', conversation).command(correlation, new Uint8Array([1])), { replyTopic: AgentTopic.Responses, timeoutMs: 60_000 });
    release();
    await stored;
    await laser.agdx(AgentTopic.Responses, 'worker', conversation).respond(correlation, new Uint8Array([7])).withTarget('me').send();
    expect(agentMessageBody(await asking)[0]).toBe(7);
  });

  it('a send that fails first rejects the call with its own error, and the wait is released', async () => {
    const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
    await laser.bootstrap(1);
    const request = laser.agdx(AgentTopic.Commands, 'me', ConversationId.new()).command(MintUlid.mint(CorrelationId), new Uint8Array(MAX_PAYLOAD_BYTES));
    await expect(laser.request(request, { replyTopic: AgentTopic.Responses, timeoutMs: 60_000 })).rejects.toMatchObject({ kind: 'invalid', context: { field: 'body' } });
    expect(laser.replies(AgentTopic.Responses).pending).toBe(0);
  });
});
