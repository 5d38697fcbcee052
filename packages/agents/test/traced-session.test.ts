import { describe, expect, it } from 'vitest';
import { tracedSession, type AgdxTelemetry, type SessionEvent } from '@agdx/agents';
import { ConversationId } from '@agdx/wire';

const event = (): SessionEvent => ({ operation: 'append', conversation: ConversationId.new(), topic: 't' });

describe('tracedSession', () => {
  it('ends the span once, with the error of a failed operation, which is rethrown unchanged', async () => {
    const ends: unknown[] = [];
    const hook = { onSession: () => ({ end: (error?: unknown) => void ends.push(error) }) } as unknown as AgdxTelemetry;
    expect(await tracedSession(hook, event, () => Promise.resolve('ok'))).toBe('ok');
    const boom = new Error('topic missing');
    await expect(tracedSession(hook, event, () => Promise.reject(boom))).rejects.toBe(boom);
    expect(ends).toEqual([undefined, boom]);
  });

  it('runs plainly without a hook, without onSession, or when the hook throws', async () => {
    const run = () => Promise.resolve(1);
    expect(await tracedSession(undefined, event, run)).toBe(1);
    expect(await tracedSession({} as AgdxTelemetry, event, run)).toBe(1);
    const throwing = { onSession: () => { throw new Error('hook bug'); } } as unknown as AgdxTelemetry;
    expect(await tracedSession(throwing, event, run)).toBe(1);
    const badEnd = { onSession: () => ({ end: () => { throw new Error('end bug'); } }) } as unknown as AgdxTelemetry;
    expect(await tracedSession(badEnd, event, run)).toBe(1);
  });
});

describe('tracedSession headers', () => {
  it('hands the span’s headers to the operation, and none without a hook or when the getter throws', async () => {
    const pairs = [['traceparent', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01']] as const;
    const hook = { onSession: () => ({ headers: pairs, end: () => undefined }) } as unknown as AgdxTelemetry;
    expect(await tracedSession(hook, event, (headers) => Promise.resolve(headers))).toBe(pairs);
    expect(await tracedSession(undefined, event, (headers) => Promise.resolve(headers))).toBeUndefined();
    const throwing = {
      onSession: () => ({
        get headers(): never {
          throw new Error('getter bug');
        },
        end: () => undefined,
      }),
    } as unknown as AgdxTelemetry;
    expect(await tracedSession(throwing, event, (headers) => Promise.resolve(headers))).toBeUndefined();
  });
});
