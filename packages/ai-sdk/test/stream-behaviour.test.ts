import { AgentTopic } from '@agdx/agents';
import { recordModelStream, type ModelStreamPart } from '@agdx/ai-sdk';
import { AgdxError, AgentErrorCode, AgentId, ConversationId, CorrelationId, decodeAgentErrorBody, MintUlid } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { GatedLog } from './support/gated-log.js';
import { channels, envelopes, memoryClient } from './support/log.js';

const STEP_END = [
  { type: 'finish-step', finishReason: 'stop', usage: { inputTokens: 4, outputTokens: 5 }, response: { modelId: 'hand-made' } },
  { type: 'finish', finishReason: 'stop', totalUsage: { inputTokens: 4, outputTokens: 5 } },
];

function textStream(...deltas: string[]): ModelStreamPart[] {
  return [{ type: 'start' }, { type: 'text-start', id: 't' }, ...deltas.map((text) => ({ type: 'text-delta', id: 't', text })), { type: 'text-end', id: 't' }, ...STEP_END] as ModelStreamPart[];
}

/** A part stream that counts how far it was read and can stall forever after `stallAfter` parts. */
function counted(parts: readonly unknown[], stallAfter = Infinity): { source: AsyncIterable<ModelStreamPart>; pulled: () => number; returned: () => boolean } {
  let pulled = 0;
  let returned = false;
  const source: AsyncIterable<ModelStreamPart> = {
    [Symbol.asyncIterator]: () => ({
      next: async () => {
        if (pulled >= stallAfter) return new Promise<never>(() => undefined);
        if (pulled >= parts.length) return { done: true, value: undefined };
        pulled += 1;
        return { done: false, value: parts[pulled - 1] as ModelStreamPart };
      },
      return: async () => {
        returned = true;
        return { done: true, value: undefined };
      },
    }),
  };
  return { source, pulled: () => pulled, returned: () => returned };
}

async function target(log = new GatedLog()) {
  const { laser } = await memoryClient({}, log);
  const correlation = MintUlid.mint(CorrelationId);
  return { log, correlation, destination: { send: laser.agdx(AgentTopic.Streams, AgentId.new('writer'), ConversationId.new()), correlation } };
}

async function settle(): Promise<void> {
  for (let turn = 0; turn < 20; turn += 1) await new Promise((resolve) => setTimeout(resolve, 1));
}

describe('recordModelStream: back-pressure and endings', () => {
  it('reads no further while the log holds a write, and loses nothing once it catches up', async () => {
    const { log, destination } = await target();
    const stream = counted(textStream('a', 'b', 'c', 'd', 'e'));
    log.hold();
    const recording = recordModelStream(stream.source, destination);
    await settle();
    const heldAt = stream.pulled();
    const appendsHeld = log.appends;
    await settle();
    // Blocked on the first chunk: the model stream is not read ahead while the log is slow.
    expect(stream.pulled()).toBe(heldAt);
    expect(heldAt).toBeLessThanOrEqual(3);
    expect(log.appends).toBe(appendsHeld);
    log.release();
    const outcome = await recording;
    expect(outcome).toMatchObject({ status: 'finished', text: 'abcde', modelId: 'hand-made' });
    expect(channels(await envelopes(log, AgentTopic.Streams))).toMatchObject([{ purpose: 'chat', text: 'abcde', chunks: 6, finishReason: 'stop' }]);
  });

  it('closes the last step at finish when a hand-made stream has no finish-step part', async () => {
    const { log, destination } = await target();
    const parts = [{ type: 'text-delta', id: 't', text: 'no ' }, { type: 'text-delta', id: 't', text: 'steps' }, { type: 'finish', finishReason: 'stop', totalUsage: { inputTokens: 1, outputTokens: 2 } }];
    const outcome = await recordModelStream(counted(parts).source, destination);
    expect(outcome).toMatchObject({ status: 'finished', text: 'no steps', steps: 1, messages: [{ role: 'assistant', content: [{ type: 'text', text: 'no steps' }] }] });
    const all = await envelopes(log, AgentTopic.Streams);
    expect(channels(all)).toMatchObject([{ purpose: 'chat', text: 'no steps', finishReason: 'stop' }]);
    expect(new TextDecoder().decode(all.find((e) => e.kind === 'response')!.body)).toBe('no steps');
  });

  it('batches deltas into one append per buffer when asked', async () => {
    const { log, destination } = await target();
    // bootstrap's own appends (its layout declaration) are not the recording's
    const bootstrapped = log.appends;
    await recordModelStream(counted(textStream('a', 'b', 'c', 'd', 'e')).source, destination, { buffer: { maxChunks: 2, lingerMs: 60_000 } });
    const before = log.appends - bootstrapped;
    expect(channels(await envelopes(log, AgentTopic.Streams))).toMatchObject([{ text: 'abcde', chunks: 6 }]);
    // 5 deltas + terminal in batches of 2 = 3 appends, then the response.
    expect(before).toBe(4);
  });

  it('stops reading on its own signal and fails the open streams with Cancelled, even while the model stalls', async () => {
    const { log, destination } = await target();
    const stream = counted(textStream('a', 'b', 'c'), 3);
    const controller = new AbortController();
    const recording = recordModelStream(stream.source, destination, { signal: controller.signal });
    await settle();
    controller.abort();
    const outcome = await recording;
    expect(outcome).toMatchObject({ status: 'aborted', finishReason: 'cancelled' });
    const [chat] = channels(await envelopes(log, AgentTopic.Streams));
    expect(chat).toMatchObject({ purpose: 'chat', text: 'a' });
    expect(decodeAgentErrorBody(chat!.failed!)).toMatchObject({ code: AgentErrorCode.Cancelled });
    expect(stream.returned()).toBe(true);
  });

  it('cancels a stalled ReadableStream source on its signal and lets its lock go', async () => {
    const { log, destination } = await target();
    let cancelled = false;
    // A web stream read through its async iterator would queue the cancel behind the pending read.
    const source = new ReadableStream<ModelStreamPart>({
      start(controller) {
        for (const part of textStream('a').slice(0, 3)) controller.enqueue(part);
      },
      cancel() {
        cancelled = true;
      },
    });
    const controller = new AbortController();
    const recording = recordModelStream({ fullStream: source }, destination, { signal: controller.signal });
    await settle();
    controller.abort();
    expect(await recording).toMatchObject({ status: 'aborted', finishReason: 'cancelled' });
    expect(cancelled).toBe(true);
    expect(source.locked).toBe(false);
    const [chat] = channels(await envelopes(log, AgentTopic.Streams));
    expect(decodeAgentErrorBody(chat!.failed!)).toMatchObject({ code: AgentErrorCode.Cancelled });
  });

  it('lets go of a ReadableStream source once it has read it to its end, or it failed', async () => {
    const { destination } = await target();
    const finished = new ReadableStream<ModelStreamPart>({
      start(controller) {
        for (const part of textStream('a')) controller.enqueue(part);
        controller.close();
      },
    });
    expect(await recordModelStream({ fullStream: finished }, destination)).toMatchObject({ status: 'finished', text: 'a' });
    expect(finished.locked).toBe(false);
    const broken = new ReadableStream<ModelStreamPart>({
      start(controller) {
        controller.enqueue({ type: 'text-start', id: 't' } as ModelStreamPart);
        controller.error(new Error('connection reset'));
      },
    });
    expect(await recordModelStream(broken, destination)).toMatchObject({ status: 'failed' });
    expect(broken.locked).toBe(false);
  });

  it('still answers when the reported usage prices above u64, leaving the cost out', async () => {
    const { log, destination, correlation } = await target();
    const absurd = { inputTokens: Number.MAX_SAFE_INTEGER, outputTokens: Number.MAX_SAFE_INTEGER };
    const parts = [...textStream('a').slice(0, 4), { type: 'finish-step', finishReason: 'stop', usage: absurd }, { type: 'finish', finishReason: 'stop', totalUsage: absurd }];
    const outcome = await recordModelStream(counted(parts).source, destination, { price: { inputPerMillion: '5000', outputPerMillion: '5000' } });
    expect(outcome.status).toBe('finished');
    expect(outcome.usage).toEqual({ inputTokens: BigInt(Number.MAX_SAFE_INTEGER), outputTokens: BigInt(Number.MAX_SAFE_INTEGER) });
    const answer = (await envelopes(log, AgentTopic.Streams)).find((e) => e.kind === 'response' && e.correlation?.equals(correlation));
    expect(answer?.usage?.costMicros).toBeUndefined();
    expect(answer?.usage?.inputTokens).toBe(BigInt(Number.MAX_SAFE_INTEGER));
  });

  it('treats a stream that ends without its finish part as failed, never half-open', async () => {
    const { log, destination, correlation } = await target();
    const parts = textStream('a', 'b').slice(0, 4);
    const outcome = await recordModelStream(counted(parts).source, destination);
    expect(outcome.status).toBe('failed');
    expect((outcome.error as Error).message).toBe('the model stream ended before its finish part');
    const all = await envelopes(log, AgentTopic.Streams);
    expect(channels(all)[0]!.failed).toBeDefined();
    expect(all.filter((e) => e.kind === 'error' && e.correlation?.equals(correlation))).toHaveLength(1);
  });

  it('writes one error when the model fails before any stream opened', async () => {
    const { log, destination } = await target();
    const outcome = await recordModelStream(counted([{ type: 'start' }, { type: 'error', error: 'quota exhausted' }]).source, destination);
    expect(outcome).toMatchObject({ status: 'failed', error: 'quota exhausted' });
    const all = await envelopes(log, AgentTopic.Streams);
    expect(all.map((e) => e.kind)).toEqual(['error']);
    expect(decodeAgentErrorBody(all[0]!.body).message).toBe('the model call failed: quota exhausted');
  });

  it('reports a log that refuses writes, after stopping the model', async () => {
    const { log, destination } = await target();
    const stream = counted(textStream('a', 'b'));
    log.refuse = new Error('log is down');
    await expect(recordModelStream(stream.source, destination)).rejects.toThrow('log is down');
    expect(stream.returned()).toBe(true);
  });
});

describe('recordModelStream: limits and hostile parts', () => {
  it('splits a delta above 64 KiB into chunks cut between code points', async () => {
    const { log, destination } = await target();
    const big = 'é'.repeat(70_000);
    await recordModelStream(counted(textStream(big)).source, destination);
    const all = await envelopes(log, AgentTopic.Streams);
    const bodies = all.filter((e) => e.kind === 'chunk' && e.body.length > 0).map((e) => e.body);
    expect(bodies.length).toBe(3);
    expect(bodies.every((body) => body.length <= 64 * 1024)).toBe(true);
    for (const body of bodies) expect(() => new TextDecoder('utf-8', { fatal: true }).decode(body)).not.toThrow();
    expect(channels(all)[0]!.text).toBe(big);
  });

  it('survives parts of the wrong shape and still finishes', async () => {
    const { log, destination } = await target();
    const parts = [
      null,
      42,
      { type: 'text-delta', id: 7, text: { not: 'text' } },
      { type: 'tool-call' },
      { type: 'tool-result', toolCallId: 'x', output: 10n },
      { type: 'finish-step', finishReason: 17, usage: { inputTokens: -1, outputTokens: 1.5 }, response: 'nope' },
      { type: 'finish', finishReason: 'weird', totalUsage: 'none' },
    ];
    const outcome = await recordModelStream(counted(parts).source, destination);
    expect(outcome).toMatchObject({ status: 'finished', finishReason: 'other', usage: { inputTokens: 0n, outputTokens: 0n } });
    const all = await envelopes(log, AgentTopic.Streams);
    expect(all.find((e) => e.kind === 'response' && e.operation === 'execute_tool')!.body).toEqual(new TextEncoder().encode('"10"'));
    // No text was written, so the answer is the call's messages as JSON: the tool's output, kept.
    const answer = all.find((e) => e.kind === 'response' && e.operation === 'chat')!;
    expect(JSON.parse(new TextDecoder().decode(answer.body))).toEqual([{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'x', toolName: '', output: { type: 'json', value: '10' } }] }]);
  });

  it('reads a call id, tool name or model id longer than AGDX carries as missing, and still answers', async () => {
    const { log, destination, correlation } = await target();
    const longId = 'c'.repeat(5_000);
    const longTool = 't'.repeat(300);
    const parts = [
      { type: 'tool-input-start', id: 'a', toolName: longTool },
      { type: 'tool-input-delta', id: 'a', delta: '{}' },
      { type: 'tool-input-end', id: 'a' },
      { type: 'tool-call', toolCallId: 'a', toolName: longTool, input: {} },
      { type: 'tool-result', toolCallId: 'a', toolName: longTool, output: 1 },
      { type: 'tool-call', toolCallId: longId, toolName: 'search', input: {} },
      { type: 'tool-error', toolCallId: longId, toolName: 'search', error: 'down' },
      { type: 'finish-step', finishReason: 'tool-calls', usage: {}, response: { modelId: 'm'.repeat(100_000) } },
      { type: 'finish', finishReason: 'tool-calls', totalUsage: {} },
    ];
    const outcome = await recordModelStream(counted(parts).source, destination);
    expect(outcome).toMatchObject({ status: 'finished', finishReason: 'tool_calls', modelId: undefined });
    const all = await envelopes(log, AgentTopic.Streams);
    const toolRecords = all.filter((e) => e.operation === 'execute_tool');
    expect(toolRecords.map((e) => [e.kind, e.tool, e.metadata?.get('gen_ai.tool.call.id')])).toEqual([
      ['response', undefined, 'a'],
      ['error', 'search', ''],
    ]);
    const answer = all.find((e) => e.kind === 'response' && e.correlation?.equals(correlation))!;
    expect(answer.metadata?.get('gen_ai.response.model')).toBeUndefined();
  });

  it('refuses bad options before reading the model stream', async () => {
    const { destination } = await target();
    const stream = counted(textStream('a'));
    const refused = [
      recordModelStream(stream.source, destination, { price: { inputPerMillion: 'two', outputPerMillion: '1' } }),
      recordModelStream(stream.source, destination, { price: { inputPerMillion: 1e-9, outputPerMillion: '1' } }),
      recordModelStream(stream.source, destination, { request: [{ role: 'user', content: 'hi' }] }),
      recordModelStream(stream.source, destination, { buffer: { maxChunks: -1, lingerMs: 0 } }),
      recordModelStream(stream.source, destination, { provider: 'p'.repeat(2_000) }),
      recordModelStream(stream.source, { send: destination.send } as never),
      recordModelStream({} as never, destination),
    ];
    for (const attempt of refused) {
      const error = await attempt.then(() => undefined, (e: unknown) => e);
      expect(AgdxError.is(error, 'invalid')).toBe(true);
    }
    expect(stream.pulled()).toBe(0);
  });
});
