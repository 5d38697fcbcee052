import { describe, expect, test } from 'vitest';
import { AgentEnvelope, ChunkAssembler, reassembleChannel, type AssemblerRecord, type ChunkEvent, type TokenUsage } from '@agdx/wire';
import { fixtureBytes, fromHex, oracle, toHex } from './extras-support/fixtures.js';

const data = oracle('assembler');

function record(json: any): AssemblerRecord<any> {
  return {
    kind: json.kind,
    sequence: json.sequence === undefined ? undefined : BigInt(json.sequence),
    body: fromHex(json.body_hex ?? ''),
    last: json.last ?? false,
    finishReason: json.finish_reason,
    usage: json.usage,
  };
}

function eventToJson(event: ChunkEvent<any>): any {
  switch (event.kind) {
    case 'body':
      return { kind: 'body', sequence: event.sequence.toString(), payload_hex: toHex(event.payload) };
    case 'failed':
      return { kind: 'failed', body_hex: toHex(event.body) };
    case 'finished': {
      const out: any = { kind: 'finished' };
      if (event.finishReason !== undefined) out.finish_reason = event.finishReason;
      if (event.usage !== undefined) out.usage = event.usage;
      out.synthetic = event.synthetic;
      return out;
    }
  }
}

describe('ChunkAssembler (oracle/assembler.json)', () => {
  test.each(data.cases as any[])('$id $name', (c) => {
    const assembler = new ChunkAssembler<any>();
    let delivered = '';
    for (const step of c.steps) {
      if (step.op === 'feed') {
        const events = assembler.feed(record(step.record)).map(eventToJson);
        expect(events).toEqual(step.events);
        for (const e of events) if (e.kind === 'body') delivered += e.payload_hex;
      } else if (step.op === 'abandon') {
        const result = assembler.abandon();
        expect(result === undefined ? null : eventToJson(result)).toEqual(step.result);
      } else {
        throw new Error(`unhandled step ${step.op}`);
      }
    }
    expect(assembler.isFinished).toBe(c.final.is_finished);
    expect(assembler.duplicatesDropped.toString()).toBe(c.final.duplicates_dropped);
    expect(assembler.lateDropped.toString()).toBe(c.final.late_dropped);
    expect(delivered).toBe(c.final.delivered_hex);
  });
});

describe('opening deadline and reassembleChannel', () => {
  test('the opening deadline tells when to abandon', () => {
    const a = new ChunkAssembler();
    a.feed({ kind: 'chunk', sequence: 0n, body: Uint8Array.of(1), last: false, deadlineMicros: 100n });
    expect(a.openingDeadlinePassed(100n)).toBe(false);
    expect(a.openingDeadlinePassed(101n)).toBe(true);
    expect(a.abandon()).toEqual({ kind: 'finished', finishReason: 'abandoned', synthetic: true });
    expect(a.openingDeadlinePassed(1000n)).toBe(false);
  });

  test('filters one channel and sorts by sequence', () => {
    const conv = { toString: () => 'C1' };
    const other = { toString: () => 'C2' };
    const ch = { toString: () => 'CH' };
    const mk = (seq: bigint, body: number, last = false, conversation = conv) => ({
      kind: 'chunk',
      conversation,
      channel: ch,
      sequence: seq,
      body: Uint8Array.of(body),
      last,
    });
    const result = reassembleChannel([mk(2n, 3, true), mk(0n, 1), mk(0n, 9, false, other), mk(1n, 2), mk(1n, 2)], conv, ch);
    expect(Array.from(result.payload)).toEqual([1, 2, 3]);
    expect(result.finished).toBe(true);
    expect(result.duplicatesDropped).toBe(1n);
  });
});

describe('with real envelopes (upstream chunk fixtures)', () => {
  const open = AgentEnvelope.decode(fixtureBytes('upstream/agent_chunk_open.bin'));
  const middle = AgentEnvelope.decode(fixtureBytes('upstream/agent_chunk.bin'));
  const terminal = AgentEnvelope.decode(fixtureBytes('upstream/agent_chunk_terminal.bin'));

  test('AgentEnvelope feeds the assembler directly; a skipped sequence is a gap', () => {
    const a = new ChunkAssembler<TokenUsage>();
    expect(a.feed(open)).toEqual([{ kind: 'body', sequence: 0n, payload: open.body }]);
    expect(a.openingDeadlinePassed(open.deadlineMicros! + 1n)).toBe(true);
    expect(a.feed(middle)).toEqual([{ kind: 'finished', finishReason: 'gap', synthetic: true }]);
    expect(a.feed(terminal)).toEqual([]);
    expect(a.lateDropped).toBe(1n);
  });

  test('usage rides once, on the terminal chunk', () => {
    const a = new ChunkAssembler<TokenUsage>();
    const events = [open, middle, terminal].flatMap((e, i) => a.feed({ ...e, kind: e.kind, sequence: BigInt(i), body: e.body, last: e.last, finishReason: e.finishReason, usage: e.usage }));
    const finished = events.filter((e) => e.kind === 'finished');
    expect(finished).toEqual([{ kind: 'finished', finishReason: 'stop', usage: terminal.usage, synthetic: false }]);
  });

  test('reassembleChannel takes envelopes and their ids', () => {
    const result = reassembleChannel<TokenUsage>([terminal, open], open.conversation, open.channel!);
    expect(result.events[0]).toEqual({ kind: 'body', sequence: 0n, payload: open.body });
    expect(result.events[1]).toEqual({ kind: 'finished', finishReason: 'gap', synthetic: true });
  });
});
