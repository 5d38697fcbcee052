/**
 * An error body is checked against what readers decode before it is published: one they could
 * not read would fail its requester with a bare rejection and no message. Through the send
 * builders, chunk streams and a requestInput round trip.
 */
import { describe, expect, it } from 'vitest';
import { AgdxClient, AgentTopic, RejectedError, readAgentMessage } from '@agdx/agents';
import { AgdxError, ConversationId, CorrelationId, decodeAgentErrorBody, MintUlid, type AgentErrorBody } from '@agdx/wire';
import { MemoryLog } from '@agdx/transport';
import { nextRecord, readAll } from './support-client/client.js';

const MIB = 1024 * 1024;

const unreadable: [string, unknown][] = [
  ['code 256', { code: 256, retryable: false }],
  ['code -1', { code: -1, retryable: false }],
  ['code 1.5', { code: 1.5, retryable: false }],
  ['code NaN', { code: Number.NaN, retryable: false }],
  ['message not text', { code: 1, message: 5, retryable: false }],
  ['message over 1 MiB', { code: 1, message: 'x'.repeat(MIB + 1), retryable: false }],
  ['retryable not a boolean', { code: 1, retryable: 'yes' }],
  ['detail not a Map', { code: 1, retryable: false, detail: { a: 1 } }],
];

async function setup(): Promise<AgdxClient> {
  const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
  await laser.bootstrap(1);
  return laser;
}

function refusal(attempt: () => unknown): AgdxError {
  try {
    attempt();
  } catch (error) {
    if (AgdxError.is(error)) return error;
    throw new Error(`untyped refusal: ${String(error)}`);
  }
  throw new Error('accepted');
}

describe('error bodies', () => {
  it('fail() refuses a body readers could not decode, with the field named, before anything is published', async () => {
    const laser = await setup();
    const send = laser.agdx(AgentTopic.Sessions, 'worker', ConversationId.new());
    for (const [name, body] of unreadable) {
      const error = refusal(() => send.fail(MintUlid.mint(CorrelationId), body as AgentErrorBody));
      expect(error.kind, name).toBe('invalid');
    }
    expect(refusal(() => send.fail(MintUlid.mint(CorrelationId), { code: 300, retryable: false })).context).toMatchObject({ field: 'code' });
    expect(await readAll(laser.transport, 'demo', AgentTopic.Sessions)).toHaveLength(0);
    // The bounds themselves are readable.
    const edge: AgentErrorBody = { code: 255, message: 'x'.repeat(MIB - 64), retryable: true, detail: new Map([['k', 'v']]) };
    const receipt = await send.fail(MintUlid.mint(CorrelationId), edge).sendReceipt();
    expect(decodeAgentErrorBody(receipt.envelope.body)).toEqual(edge);
  });

  it('a chunk stream\'s fail() refuses such a body and stays open to be ended properly', async () => {
    const laser = await setup();
    const w = laser.agdx(AgentTopic.Streams, 'writer', ConversationId.new()).stream(MintUlid.mint(CorrelationId), 'chat');
    await w.write(new Uint8Array([1]));
    for (const [name, body] of unreadable) await expect(w.fail(body as AgentErrorBody), name).rejects.toMatchObject({ kind: 'invalid' });
    expect(w.terminal).toBe(false);
    await w.fail({ code: 6, message: 'tool crashed', retryable: false });
    const records = await readAll(laser.transport, 'demo', AgentTopic.Streams);
    const last = readAgentMessage(records.at(-1)!, { stream: 'demo', topic: AgentTopic.Streams }).envelope!;
    expect([records.length, last.kind, last.sequence]).toEqual([2, 'error', 1n]);
  });

  it('an approver\'s rejection reaches requestInput with its message', async () => {
    const laser = await setup();
    const conversation = ConversationId.new();
    const asking = laser.agdx(AgentTopic.Sessions, 'orchestrator', conversation).requestInput(AgentTopic.Sessions, new Uint8Array([1]), 60_000, { target: 'approver' });
    const prompt = await nextRecord(laser.transport, 'demo', AgentTopic.Sessions, (r) => readAgentMessage(r, { stream: 'demo', topic: AgentTopic.Sessions }).envelope?.kind === 'command');
    const correlation = readAgentMessage(prompt, { stream: 'demo', topic: AgentTopic.Sessions }).envelope!.correlation!;
    const approver = laser.agdx(AgentTopic.Sessions, 'approver', conversation);
    expect(() => approver.fail(correlation, { code: 300, message: 'not this one', retryable: false })).toThrow(/code/);
    await approver.fail(correlation, { code: 3, message: 'not this one', retryable: false }).withTarget('orchestrator').send();
    await expect(asking).rejects.toThrow(RejectedError);
    await expect(asking).rejects.toThrow('not this one');
  });
});
