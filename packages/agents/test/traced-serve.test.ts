import { describe, expect, it } from 'vitest';
import { tracedServe, type AgdxTelemetry, type ServeEvent } from '@agdx/agents';
import { AgentId } from '@agdx/wire';
import { recordingServeHook as recordingHook } from './support/recording-serve-hook.js';

const event = (): ServeEvent => ({ protocol: 'a2a', method: 'SendMessage', agent: AgentId.new('gateway') });

describe('tracedServe', () => {
  it('runs the call inside the serve span and reports the outcome the answer gives', async () => {
    const { hook, ended, running } = recordingHook();
    let ranInside = false;
    const answer = await tracedServe(hook, event, async () => {
      ranInside = running() && ended.length === 0;
      return { error: { code: -32000, message: 'invalid request' } };
    }, (a) => ({ failure: a.error, conversation: 'task-1' }));
    expect(answer.error.code).toBe(-32000);
    expect(ranInside).toBe(true);
    expect(ended).toEqual([{ failure: { code: -32000, message: 'invalid request' }, conversation: 'task-1' }]);
  });

  it('ends the span failed and rethrows the call’s own error unchanged', async () => {
    const { hook, ended } = recordingHook();
    const boom = new Error('log down');
    await expect(tracedServe(hook, event, () => Promise.reject(boom), () => ({}))).rejects.toBe(boom);
    expect(ended).toEqual([{ failure: { message: 'log down' }, conversation: undefined }]);
  });

  it('serves plainly without a hook, without onServe, or when the hook throws', async () => {
    const serve = () => Promise.resolve(42);
    expect(await tracedServe(undefined, event, serve, () => ({}))).toBe(42);
    expect(await tracedServe({} as AgdxTelemetry, event, serve, () => ({}))).toBe(42);
    const throwing = { onServe: () => { throw new Error('hook bug'); } } as unknown as AgdxTelemetry;
    expect(await tracedServe(throwing, event, serve, () => ({}))).toBe(42);
    const badEnd = { onServe: () => ({ run: <T>(work: () => Promise<T>) => work(), end: () => { throw new Error('end bug'); } }) } as unknown as AgdxTelemetry;
    expect(await tracedServe(badEnd, event, serve, () => { throw new Error('outcome bug'); })).toBe(42);
  });
});
