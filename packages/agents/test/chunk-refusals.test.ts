/**
 * A chunk-stream record the writer refuses (invalid, or denied by the governor) publishes nothing
 * and costs the stream nothing: no sequence is skipped, so a reader sees no gap, and a refused
 * end leaves the stream open to be ended properly.
 */
import { describe, expect, it } from 'vitest';
import { AgdxClient, AgentTopic, PolicyBlockedError, readAgentMessage, type ActionGovernor } from '@agdx/agents';
import { ChunkAssembler, ConversationId, CorrelationId, decodeAgentErrorBody, InvalidError, MintUlid, type ChunkEvent, type TokenUsage } from '@agdx/wire';
import { MemoryLog } from '@agdx/transport';
import { readAll } from './support-client/client.js';

const enc = new TextEncoder();
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

/** A client whose governor denies while `gate.deny` says so. */
async function setup(gate?: { deny: (payload: string, operation: string | undefined) => boolean }): Promise<AgdxClient> {
  const governor: ActionGovernor | undefined =
    gate === undefined ? undefined : { check: (action) => (gate.deny(dec(action.payload), action.operation) ? { kind: 'deny', reason: 'not now' } : { kind: 'allow' }) };
  const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo', governor });
  await laser.bootstrap(1);
  return laser;
}

/** What a reader of the stream topic sees. */
async function read(laser: AgdxClient): Promise<{ sequences: (bigint | undefined)[]; events: ChunkEvent<TokenUsage>[] }> {
  const envelopes = (await readAll(laser.transport, 'demo', AgentTopic.Streams)).map((r) => readAgentMessage(r, { stream: 'demo', topic: AgentTopic.Streams }).envelope!);
  const assembler = new ChunkAssembler<TokenUsage>();
  return { sequences: envelopes.map((e) => e.sequence), events: envelopes.flatMap((e) => assembler.feed(e)) };
}

const bodies = (events: ChunkEvent<TokenUsage>[]): string[] => events.flatMap((e) => (e.kind === 'body' ? [dec(e.payload)] : []));

describe('refused chunk-stream records', () => {
  it('a chunk the governor denies takes no sequence: the chunks after it reach the reader', async () => {
    const laser = await setup({ deny: (payload) => payload === 'secret' });
    const w = laser.agdx(AgentTopic.Streams, 'writer', ConversationId.new()).stream(MintUlid.mint(CorrelationId), 'chat');
    await w.write(enc.encode('a'));
    await expect(w.write(enc.encode('secret'))).rejects.toBeInstanceOf(PolicyBlockedError);
    expect(w.nextSequence).toBe(1n);
    await w.write(enc.encode('b'));
    await w.finish('stop');
    const { sequences, events } = await read(laser);
    expect(sequences).toEqual([0n, 1n, 2n]);
    expect(bodies(events)).toEqual(['a', 'b']);
    expect(events.at(-1)).toMatchObject({ kind: 'finished', finishReason: 'stop', synthetic: false });
  });

  it('an opening chunk refused under a governor leaves the stream to open at sequence 0', async () => {
    const laser = await setup({ deny: () => false });
    const w = laser.agdx(AgentTopic.Streams, 'writer', ConversationId.new()).stream(MintUlid.mint(CorrelationId), 'chat').withTarget('caller');
    await expect(w.finish('x'.repeat(300))).rejects.toBeInstanceOf(InvalidError);
    expect(w.nextSequence).toBe(0n);
    await w.write(enc.encode('a'));
    await w.finish('stop');
    expect((await read(laser)).sequences).toEqual([0n, 1n]);
  });

  it('a refused finish leaves the stream open: it can still be finished, and nothing was published for the refusal', async () => {
    const laser = await setup();
    const w = laser.agdx(AgentTopic.Streams, 'writer', ConversationId.new()).stream(MintUlid.mint(CorrelationId), 'chat');
    await w.write(enc.encode('a'));
    await expect(w.finish('x'.repeat(300))).rejects.toThrow(/finish_reason/);
    expect(w.terminal).toBe(false);
    expect(w.nextSequence).toBe(1n);
    await w.write(enc.encode('b'));
    await w.finish('stop');
    expect(w.terminal).toBe(true);
    const { sequences, events } = await read(laser);
    expect(sequences).toEqual([0n, 1n, 2n]);
    expect(bodies(events)).toEqual(['a', 'b']);
    expect(events.at(-1)).toMatchObject({ kind: 'finished', finishReason: 'stop', synthetic: false });
  });

  it('a finish or a fail the governor denies leaves the stream open for the other end', async () => {
    const laser = await setup({ deny: (payload, operation) => operation === undefined && (payload === '' || payload.length > 1) });
    const w = laser.agdx(AgentTopic.Streams, 'writer', ConversationId.new()).stream(MintUlid.mint(CorrelationId), 'tool_args');
    await w.write(enc.encode('{'));
    // The empty terminal chunk, then the CBOR error body: both denied.
    await expect(w.finish('stop')).rejects.toBeInstanceOf(PolicyBlockedError);
    await expect(w.fail({ code: 6, message: 'tool crashed', retryable: false })).rejects.toBeInstanceOf(PolicyBlockedError);
    expect(w.terminal).toBe(false);
    expect(w.nextSequence).toBe(1n);
    await expect(w.write(enc.encode('}'))).resolves.toBeUndefined();
    expect(w.nextSequence).toBe(2n);
    const laser2 = await setup({ deny: (payload) => payload === '' });
    const v = laser2.agdx(AgentTopic.Streams, 'writer', ConversationId.new()).stream(MintUlid.mint(CorrelationId), 'chat');
    await v.write(enc.encode('a'));
    await expect(v.finish('stop')).rejects.toBeInstanceOf(PolicyBlockedError);
    await v.fail({ code: 6, message: 'no end allowed', retryable: false });
    const { sequences, events } = await read(laser2);
    expect(sequences).toEqual([0n, 1n]);
    const failed = events.at(-1);
    expect(failed?.kind).toBe('failed');
    if (failed?.kind === 'failed') expect(decodeAgentErrorBody(failed.body).message).toBe('no end allowed');
  });
});
