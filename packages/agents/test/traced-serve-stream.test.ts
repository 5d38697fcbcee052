import { describe, expect, it } from 'vitest';
import { MAX_STREAM_EVENT_TYPES, traceServeStream, type AgdxTelemetry, type ServeEvent } from '@agdx/agents';
import { AgentId } from '@agdx/wire';
import { recordingServeHook as recordingHook } from './support/recording-serve-hook.js';

const event = (): ServeEvent => ({ protocol: 'agui', method: 'run', agent: AgentId.new('ui') });

describe('traceServeStream', () => {
  it('runs the opening inside the span, counts events by type and ends once with the summary', async () => {
    const { hook, ended, running } = recordingHook();
    const trace = traceServeStream(hook, event);
    expect(await trace.run(async () => running())).toBe(true);
    expect(ended).toHaveLength(0);
    const before = performance.timeOrigin + performance.now();
    trace.sent('RUN_STARTED');
    trace.sent('TEXT_MESSAGE_CONTENT');
    trace.sent('TEXT_MESSAGE_CONTENT');
    trace.end('completed', undefined, 'thread-1');
    // Later reports (a cancel racing the last event) change nothing.
    trace.sent('RUN_FINISHED');
    trace.end('disconnected');
    expect(ended).toHaveLength(1);
    const [only] = ended;
    expect(only?.conversation).toBe('thread-1');
    expect(only?.failure).toBeUndefined();
    expect(only?.stream?.reason).toBe('completed');
    expect(only?.stream?.events).toBe(3);
    expect([...(only?.stream?.eventTypes ?? [])]).toEqual([['RUN_STARTED', 1], ['TEXT_MESSAGE_CONTENT', 2]]);
    expect(only?.stream?.firstEventAt).toBeGreaterThanOrEqual(before);
  });

  it('hands a failure over and reports no first event for a stream that sent none', () => {
    const { hook, ended } = recordingHook();
    traceServeStream(hook, event).end('failed', { code: -32000, message: 'no reply in time' });
    expect(ended[0]?.failure).toEqual({ code: -32000, message: 'no reply in time' });
    expect(ended[0]?.stream).toMatchObject({ reason: 'failed', events: 0, firstEventAt: undefined });
  });

  it('counts at most MAX_STREAM_EVENT_TYPES types by name and the rest as other', () => {
    const { hook, ended } = recordingHook();
    const trace = traceServeStream(hook, event);
    for (let i = 0; i < MAX_STREAM_EVENT_TYPES + 5; i++) trace.sent(`type-${i}`);
    trace.sent('type-0');
    trace.end('completed');
    const types = ended[0]?.stream?.eventTypes;
    expect(types?.size).toBe(MAX_STREAM_EVENT_TYPES + 1);
    expect(types?.get('other')).toBe(5);
    expect(types?.get('type-0')).toBe(2);
    expect(ended[0]?.stream?.events).toBe(MAX_STREAM_EVENT_TYPES + 6);
  });

  it('does nothing without a hook, without onServe, or when the hook throws, and the work still runs', async () => {
    const throwing = { onServe: () => { throw new Error('hook bug'); } } as unknown as AgdxTelemetry;
    const badEnd = { onServe: () => ({ run: <T>(work: () => Promise<T>) => work(), end: () => { throw new Error('end bug'); } }) } as unknown as AgdxTelemetry;
    const badRun = { onServe: () => ({ run: () => { throw new Error('run bug'); }, end: () => undefined }) } as unknown as AgdxTelemetry;
    for (const hook of [undefined, {} as AgdxTelemetry, throwing, badEnd, badRun]) {
      const trace = traceServeStream(hook, event);
      expect(await trace.run(() => Promise.resolve(7))).toBe(7);
      trace.sent('RUN_STARTED');
      expect(() => trace.end('completed')).not.toThrow();
    }
  });

  it('rethrows the opening’s own error unchanged', async () => {
    const { hook } = recordingHook();
    const boom = new Error('publish failed');
    await expect(traceServeStream(hook, event).run(() => Promise.reject(boom))).rejects.toBe(boom);
  });
});
