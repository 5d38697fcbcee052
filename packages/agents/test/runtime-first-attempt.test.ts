/**
 * A plain record's first handler attempt chains on the handler's promise outside the retry loop
 * (record-pipeline.ts). Whatever the handler returns (a promise, a thenable, a plain value, a
 * synchronous throw, a failed answer), attempt 0 must count exactly as one in the loop did:
 * retried with the next attempt number, or dead-lettered with the same reason and attempt count.
 */
import { AgdxClient, Agent, AgentTopic, type AgentHandler } from '@agdx/agents';
import { TransportFailureError, type AppendRequest } from '@agdx/transport';
import { ContentType, DeadLetterReason, InvalidError } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { deadLetters, eventually, harness, readAll, STREAM } from './support-runtime/harness.js';
import { overriding } from './support-runtime/overriding.js';
import { command } from './support-runtime/scenarios.js';

/** Runs `handler` on one record with `maxAttempts`; resolves with the attempts seen and the agent's stats once `done` holds. */
async function run(handler: AgentHandler['handle'], maxAttempts: number, done: 'handled' | 'dead-lettered'): Promise<{ attempts: number[]; letters: Awaited<ReturnType<typeof deadLetters>> }> {
  const h = await harness();
  const attempts: number[] = [];
  await using agent = Agent.builder()
    .id('first-attempt')
    .listenOn(AgentTopic.Sessions)
    .retry({ maxAttempts, baseDelayMs: 1 })
    .handler((message, ctx) => {
      attempts.push(ctx.attempt);
      return handler(message, ctx);
    })
    .spawn(h.laser);
  await agent.ready();
  await h.laser.publish(AgentTopic.Sessions, command('one'), ContentType.raw);
  if (done === 'handled') await eventually(() => agent.stats.handled === 1, 5_000, 'handled');
  else await eventually(async () => (await deadLetters(h.log)).length === 1, 5_000, 'a dead letter');
  return { attempts, letters: await deadLetters(h.log) };
}

/** A thenable that is not a Promise, settling on a later macrotask. */
function thenable(fail: unknown): PromiseLike<void> {
  return {
    then<A = void, B = never>(onFulfilled?: ((value: void) => A | PromiseLike<A>) | null, onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): PromiseLike<A | B> {
      return new Promise<void>((resolve, reject) => setTimeout(() => (fail === undefined ? resolve() : reject(fail)), 1)).then(onFulfilled, onRejected);
    },
  };
}

describe('a plain record\'s first handler attempt', () => {
  it('a thenable that rejects is retried, one that resolves handles the record', async () => {
    const { attempts, letters } = await run((_m, ctx) => thenable(ctx.attempt === 0 ? new Error('later') : undefined) as Promise<void>, 3, 'handled');
    expect(attempts).toEqual([0, 1]);
    expect(letters).toHaveLength(0);
  });

  it('a plain (non-promise) return value handles the record at once', async () => {
    const { attempts } = await run((() => 42) as unknown as AgentHandler['handle'], 3, 'handled');
    expect(attempts).toEqual([0]);
  });

  it('a non-retryable error thrown synchronously on attempt 0 is dead-lettered Rejected after one attempt', async () => {
    const { attempts, letters } = await run(() => {
      throw new InvalidError('bad request');
    }, 5, 'dead-lettered');
    expect(attempts).toEqual([0]);
    expect(letters[0]?.reason).toBe(DeadLetterReason.Rejected);
    expect(letters[0]?.attempts).toBe(1);
    expect(letters[0]?.detail).toContain('bad request');
  });

  it('a non-Error rejection on every attempt is dead-lettered RetryExhausted, counting attempt 0; with one attempt allowed, after it', async () => {
    for (const maxAttempts of [1, 2]) {
      const { attempts, letters } = await run(() => Promise.reject('a string, not an Error'), maxAttempts, 'dead-lettered');
      expect(attempts).toEqual(Array.from({ length: maxAttempts }, (_, i) => i));
      expect(letters[0]?.reason).toBe(DeadLetterReason.RetryExhausted);
      expect(letters[0]?.attempts).toBe(maxAttempts);
      expect(letters[0]?.detail).toContain('a string, not an Error');
    }
  });

  it('an answer that fails on attempt 0 (its append is refused) fails the attempt: retried, answered once, handled', async () => {
    const h = await harness();
    let refused = 0;
    const transport = overriding(h.log, {
      append: (request: AppendRequest) => {
        if (request.topic === AgentTopic.Responses && refused === 0) {
          refused++;
          return Promise.reject(new TransportFailureError('the log went away'));
        }
        return h.log.append(request);
      },
    });
    const client = AgdxClient.from(transport, { stream: STREAM });
    const attempts: number[] = [];
    await using agent = Agent.builder()
      .id('answers')
      .listenOn(AgentTopic.Sessions)
      .respondOn(AgentTopic.Responses)
      .retry({ maxAttempts: 3, baseDelayMs: 1 })
      .handler((_m, ctx) => {
        attempts.push(ctx.attempt);
        // Not awaited: the runtime tracks the answer and fails the attempt when it fails.
        void ctx.respond(new TextEncoder().encode(`answer ${ctx.attempt}`)).catch(() => undefined);
      })
      .spawn(client);
    await agent.ready();
    await h.laser.publish(AgentTopic.Sessions, command('ask'), ContentType.raw);
    await eventually(() => agent.stats.handled === 1, 5_000, 'handled after the failed answer');
    expect(refused).toBe(1);
    expect(attempts).toEqual([0, 1]);
    const replies = await readAll(h.log, AgentTopic.Responses);
    expect(replies.map((r) => new TextDecoder().decode(r.payload).includes('answer 1'))).toEqual([true]);
    expect(await deadLetters(h.log)).toHaveLength(0);
  });
});
