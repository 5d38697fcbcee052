/** Chunk writer → MemoryLog → ChunkAssembler round trips, unbuffered and buffered. */
import { describe, expect, it } from 'vitest';
import { AgdxClient, AgentTopic, MAX_CHUNK_BODY_BYTES, readAgentMessage, TestClock } from '@agdx/agents';
import { AgentId, ChunkAssembler, ConversationId, CorrelationId, decodeAgentErrorBody, InvalidError, MintUlid, type TokenUsage } from '@agdx/wire';
import { readAll } from './support-client/client.js';
import { recordingTransport } from './support-client/recording-transport.js';

const enc = new TextEncoder();
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

async function setup(clock?: TestClock): Promise<{ laser: AgdxClient; transport: ReturnType<typeof recordingTransport> }> {
  const transport = recordingTransport();
  const laser = AgdxClient.from(transport, { stream: 'demo', clock });
  await laser.bootstrap(2);
  return { laser, transport };
}

async function assemble(laser: AgdxClient) {
  const records = await readAll(laser.transport, 'demo', AgentTopic.Streams);
  const assembler = new ChunkAssembler<TokenUsage>();
  const events = records.flatMap((r) => assembler.feed(readAgentMessage(r, { stream: 'demo', topic: AgentTopic.Streams }).envelope!));
  return { records, assembler, events };
}

describe('chunk writer round trip', () => {
  it('unbuffered: one append per chunk; the assembler delivers every body in order with the usage on the terminal', async () => {
    const { laser, transport } = await setup();
    const before = transport.appends.length;
    const w = laser.agdx(AgentTopic.Streams, AgentId.new('writer'), ConversationId.new()).stream(MintUlid.mint(CorrelationId), 'reasoning');
    const parts = Array.from({ length: 20 }, (_, i) => `part-${i} `);
    for (const p of parts) await w.write(enc.encode(p));
    const usage: TokenUsage = { inputTokens: 5n, outputTokens: 20n };
    await w.finish('stop', usage);
    expect(transport.appends.length - before).toBe(21);
    const { events, assembler } = await assemble(laser);
    expect(events.filter((e) => e.kind === 'body').map((e) => (e.kind === 'body' ? dec(e.payload) : '')).join('')).toBe(parts.join(''));
    expect(events.at(-1)).toEqual({ kind: 'finished', finishReason: 'stop', usage, synthetic: false });
    expect(assembler.isFinished).toBe(true);
    expect(assembler.duplicatesDropped).toBe(0n);
  });

  it('buffered: a flush of many chunks is ONE append; finish flushes the rest with the terminal', async () => {
    const { laser, transport } = await setup();
    const before = transport.appends.length;
    const w = laser.agdx(AgentTopic.Streams, 'writer', ConversationId.new()).stream(MintUlid.mint(CorrelationId), 'chat').buffered(8, 1e9);
    for (let i = 0; i < 20; i++) await w.write(enc.encode(`${i},`));
    expect(transport.appends.length - before).toBe(2); // 8 + 8, 4 pending
    expect(w.pendingChunks).toBe(4);
    await w.finish('length');
    const batches = transport.appends.slice(before).map((a) => a.request.records.length);
    expect(batches).toEqual([8, 8, 5]);
    const { events } = await assemble(laser);
    expect(events.filter((e) => e.kind === 'body')).toHaveLength(20);
    expect(events.at(-1)).toMatchObject({ kind: 'finished', finishReason: 'length', synthetic: false });
  });

  it('buffered linger is read on the client clock, checked on writes only', async () => {
    const clock = new TestClock(1_000_000n);
    const { laser, transport } = await setup(clock);
    const before = transport.appends.length;
    const w = laser.agdx(AgentTopic.Streams, 'writer', ConversationId.new()).stream(MintUlid.mint(CorrelationId), 'chat').buffered(100, 20);
    await w.write(enc.encode('a'));
    clock.advanceMs(19);
    await w.write(enc.encode('b'));
    expect(transport.appends.length - before).toBe(0);
    clock.advanceMs(50); // an idle writer keeps its chunks...
    expect(transport.appends.length - before).toBe(0);
    await w.write(enc.encode('c')); // ...until the next write sees the linger passed
    expect(transport.appends.length - before).toBe(1);
    await w.flush();
    await w.flush(); // nothing pending: no append
    expect(transport.appends.length - before).toBe(1);
    await w.finish();
    expect(transport.appends.length - before).toBe(2);
  });

  it('fail() ends the stream with an error naming the channel; the assembler reports it', async () => {
    const { laser } = await setup();
    const w = laser.agdx(AgentTopic.Streams, 'writer', ConversationId.new()).stream(MintUlid.mint(CorrelationId), 'tool_args').withTarget('caller').buffered(4, 1e9);
    await w.write(enc.encode('{"a":'));
    await w.fail({ code: 6, message: 'tool crashed', retryable: true });
    const { records, events } = await assemble(laser);
    expect(records).toHaveLength(2);
    const error = readAgentMessage(records[1]!, { stream: 'demo', topic: AgentTopic.Streams });
    expect(error.envelope?.kind).toBe('error');
    expect(error.envelope?.channel?.equals(w.channel)).toBe(true);
    expect(error.envelope?.sequence).toBe(1n);
    expect(error.contentType).toBe(3);
    expect(events.at(-1)?.kind).toBe('failed');
    const failed = events.at(-1);
    if (failed?.kind === 'failed') expect(decodeAgentErrorBody(failed.body).message).toBe('tool crashed');
  });

  it('enforces 64 KiB chunks, a single terminal, and validates the opening chunk', async () => {
    const { laser } = await setup();
    const send = laser.agdx(AgentTopic.Streams, 'writer', ConversationId.new());
    const w = send.stream(MintUlid.mint(CorrelationId), 'chat');
    await expect(w.write(new Uint8Array(MAX_CHUNK_BODY_BYTES + 1))).rejects.toThrow('chunk body is 65537B, exceeds cap 65536B');
    await w.write(new Uint8Array(MAX_CHUNK_BODY_BYTES));
    await w.finish('stop');
    await expect(w.finish('stop')).rejects.toThrow('an AGDX stream is already terminal');
    await expect(w.fail({ code: 7, retryable: false })).rejects.toThrow(InvalidError);
    await expect(w.write(new Uint8Array(1))).rejects.toThrow('an AGDX stream is already terminal');
    const bad = send.stream(MintUlid.mint(CorrelationId), 'summarize');
    await expect(bad.write(new Uint8Array(1))).rejects.toThrow(/operation/);
    expect(bad.nextSequence).toBe(0n);
    expect(() => send.stream(MintUlid.mint(CorrelationId), 'chat').buffered(-1, 0)).toThrow('buffered() maxChunks must be a non-negative integer');
    expect(() => send.stream(MintUlid.mint(CorrelationId), 'chat').buffered(1, Number.NaN)).toThrow('buffered() lingerMs must be a non-negative finite number');
  });

  it('never signs chunks and carries the purpose and deadline on the opening chunk only', async () => {
    const { laser } = await setup();
    const w = laser
      .agdx(AgentTopic.Streams, 'writer', ConversationId.new())
      .stream(MintUlid.mint(CorrelationId), 'chat')
      .withDeadlineMicros(1_900_000_000_000_000n)
      .contentType('json')
      .buffered(0, 0);
    await w.write(enc.encode('1'));
    await w.write(enc.encode('2'));
    await w.finish('stop');
    const { records } = await assemble(laser);
    const envs = records.map((r) => readAgentMessage(r, { stream: 'demo', topic: AgentTopic.Streams }));
    expect(envs.map((m) => m.envelope?.operation)).toEqual(['chat', undefined, undefined]);
    expect(envs.map((m) => m.envelope?.deadlineMicros)).toEqual([1_900_000_000_000_000n, undefined, undefined]);
    expect(envs.every((m) => m.envelope?.signature === undefined && m.contentType === 1)).toBe(true);
  });
});

describe('tool argument streams', () => {
  it('withTool names the tool on the opening chunk only, next to the purpose', async () => {
    const { laser } = await setup();
    const w = laser.agdx(AgentTopic.Streams, 'writer', ConversationId.new()).stream(MintUlid.mint(CorrelationId), 'tool_args').withTool('search');
    await w.write(enc.encode('{"q":'));
    await w.write(enc.encode('"weather"}'));
    await w.finish();
    const records = await readAll(laser.transport, 'demo', AgentTopic.Streams);
    const envelopes = records.map((r) => readAgentMessage(r, { stream: 'demo', topic: AgentTopic.Streams }).envelope!);
    expect(envelopes.map((e) => [e.sequence, e.operation, e.tool])).toEqual([
      [0n, 'tool_args', 'search'],
      [1n, undefined, undefined],
      [2n, undefined, undefined],
    ]);
    await expect(async () => w.withTool('late')).rejects.toThrow(InvalidError);
  });
});

describe('stored payloads stay intact', () => {
  it('interleaved streams and sends across many pooled slabs read back byte for byte', async () => {
    const { laser } = await setup();
    const conversation = ConversationId.new();
    const writers = [0, 1, 2].map(() => laser.agdx(AgentTopic.Streams, AgentId.new('writer'), conversation).stream(MintUlid.mint(CorrelationId), 'chat').buffered(7, 1e9));
    const sent: string[][] = [[], [], []];
    // Bodies from 1 byte to past the pooling limit, so small and large payloads interleave over
    // far more than one slab's worth of records.
    for (let i = 0; i < 600; i++) {
      const text = `${i}:`.padEnd(1 + ((i * 37) % 1500), String.fromCharCode(97 + (i % 26)));
      sent[i % 3]!.push(text);
      await writers[i % 3]!.write(enc.encode(text));
      if (i % 50 === 0) await laser.agdx(AgentTopic.Sessions, AgentId.new('planner'), conversation).command(MintUlid.mint(CorrelationId), enc.encode(text)).send();
    }
    for (const w of writers) await w.finish('stop');
    const records = await readAll(laser.transport, 'demo', AgentTopic.Streams);
    const byChannel = new Map<string, string[]>();
    for (const r of records) {
      const envelope = readAgentMessage(r, { stream: 'demo', topic: AgentTopic.Streams }).envelope!;
      if (envelope.body.length === 0) continue;
      const key = envelope.channel!.toString();
      byChannel.set(key, [...(byChannel.get(key) ?? []), dec(envelope.body)]);
    }
    expect([...byChannel.values()].sort((a, b) => a[0]!.localeCompare(b[0]!))).toEqual(sent);
  });
});
