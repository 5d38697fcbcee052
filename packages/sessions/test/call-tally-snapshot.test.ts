import { describe, expect, it } from 'vitest';
import { SESSIONS_TOPIC } from '@agdx/agents';
import { AgentId, CodecError, CorrelationId, MintUlid, type AgentEnvelope } from '@agdx/wire';
import { FoldSnapshotRejectedError, sessions } from '@agdx/sessions';
import { CallTally, MAX_TALLY_IDENTITIES_PER_SESSION, type CallIdentityBudget } from '../src/reads/call-tally.js';
import { encoder, setup } from './helpers.js';

const worker = AgentId.parse('worker');
const planner = AgentId.parse('planner');

function envelope(correlation: CorrelationId): AgentEnvelope {
  return { kind: 'command', correlation, source: planner } as unknown as AgentEnvelope;
}

describe('the call tally in a fold snapshot', () => {
  it('a session restored from a snapshot counts the later records of its open calls as a full fold does', async () => {
    const { laser } = await setup();
    const writer = sessions(laser);
    const session = writer.create('open-calls');
    const id = session.conversation;
    await session.lifecycle.begin({ agent: planner });
    const send = laser.agdx(SESSIONS_TOPIC, planner, id);
    // a model request and a tool call made before the snapshot, answered after it
    const request = MintUlid.mint(CorrelationId);
    await send.command(request, encoder.encode('{}')).withOperation('chat').send();
    const call = MintUlid.mint(CorrelationId);
    await send.command(call, encoder.encode('{}')).withOperation('execute_tool').withTool('search').send();
    // a chat stream opened before the snapshot and continued after it
    const streamed = MintUlid.mint(CorrelationId);
    const chat = laser.agdx(SESSIONS_TOPIC, worker, id).stream(streamed, 'chat');
    await chat.write(encoder.encode('first '));
    await writer.snapshot();

    await laser.agdx(SESSIONS_TOPIC, worker, id).respond(request, encoder.encode('{}')).withOperation('chat').send();
    await laser.agdx(SESSIONS_TOPIC, worker, id).respond(call, encoder.encode('{}')).withOperation('execute_tool').withTool('search').send();
    await chat.write(encoder.encode('second'));
    await chat.finish('stop');
    await send.command(MintUlid.mint(CorrelationId), encoder.encode('{}')).withOperation('chat').send();

    const errors: CodecError[] = [];
    const restored = sessions(laser, undefined, { onError: (e) => errors.push(e) });
    const full = sessions(laser, undefined, { snapshots: false });
    const info = await restored.get(id);
    expect((await restored.sources(id)).start.from).toBe('snapshot');
    expect(errors).toEqual([]);
    expect(info).toMatchObject({ modelCalls: 3n, toolCalls: 1n, status: 'active' });
    expect(info).toEqual(await full.get(id));
    expect(await restored.list()).toEqual(await full.list());
    // later chunks of the restored stream still show as model.stream
    expect(await restored.events(id)).toEqual(await full.events(id));
  });

  it('an ended session is restored with its counts only', () => {
    const tally = new CallTally();
    const a = MintUlid.mint(CorrelationId);
    tally.observe(envelope(a), 'model.request', 'p:0:0');
    tally.observe(envelope(MintUlid.mint(CorrelationId)), 'tool.call', 'p:0:1');
    const budget: CallIdentityBudget = { entries: 100, bytes: 10_000 };
    const image = tally.toImage(false, budget);
    expect(image).toEqual([1n, 1n, true, null, [], [], []]);
    expect(budget).toEqual({ entries: 100, bytes: 10_000 });
    const back = CallTally.fromImage(image);
    expect([back.modelCalls, back.toolCalls]).toEqual([1n, 1n]);
    // the documented limit: a late record of a call counted before is a new call
    back.observe(envelope(a), 'model.response', 'p:0:2');
    expect(back.modelCalls).toBe(2n);
  });

  it('keeps only the newest identities within the caps, and the counts whole', () => {
    const tally = new CallTally();
    const ids = Array.from({ length: MAX_TALLY_IDENTITIES_PER_SESSION + 10 }, () => MintUlid.mint(CorrelationId));
    ids.forEach((c, i) => tally.observe(envelope(c), 'model.request', `p:0:${i}`));
    const roomy = CallTally.fromImage(tally.toImage(true, { entries: 1000, bytes: 1_000_000 }));
    expect(roomy.modelCalls).toBe(BigInt(ids.length));
    // the newest identity is kept, the oldest is not
    roomy.observe(envelope(ids.at(-1) as CorrelationId), 'model.response', 'x');
    expect(roomy.modelCalls).toBe(BigInt(ids.length));
    roomy.observe(envelope(ids[0] as CorrelationId), 'model.response', 'y');
    expect(roomy.modelCalls).toBe(BigInt(ids.length) + 1n);
    // an exhausted budget keeps counts only
    const budget = { entries: 3, bytes: 1_000_000 };
    const tight = tally.toImage(true, budget) as unknown[];
    expect((tight[4] as unknown[]).length).toBe(3);
    expect(budget.entries).toBe(0);
    expect(tally.toImage(true, budget)).toEqual([BigInt(ids.length), 0n, true, null, [], [], []]);
  });

  it('refuses a malformed tally image', () => {
    for (const bad of [
      null,
      [1n, 0n, true, null, [], []],
      [-1n, 0n, true, null, [], [], []],
      [0n, 0n, true, null, ['a'], [], []],
      [2n, 0n, true, null, ['a', 'a'], [], []],
      [0n, 2n, true, null, [], ['t', 't'], []],
      [0n, 1n, true, null, [], ['t', 'u'], []],
      [0n, 0n, 'yes', null, [], [], []],
      [0n, 0n, true, 7n, [], [], []],
      [0n, 0n, true, null, [], [], [['c', 'chat'], ['c', 'chat']]],
      [0n, 0n, true, null, [], [], [['c']]],
      [0n, 0n, true, 'x'.repeat(2000), [], [], []],
      [99n, 0n, true, null, Array.from({ length: MAX_TALLY_IDENTITIES_PER_SESSION + 1 }, (_, i) => `i${i}`), [], []],
    ]) {
      expect(() => CallTally.fromImage(bad as never)).toThrow(CodecError);
    }
  });

  it('a snapshot with a malformed tally is rejected and the reader folds from the log', async () => {
    const { laser } = await setup();
    const writer = sessions(laser);
    const session = writer.create('bad-tally');
    await session.lifecycle.begin({ agent: planner });
    await laser.agdx(SESSIONS_TOPIC, planner, session.conversation).command(MintUlid.mint(CorrelationId), encoder.encode('{}')).withOperation('chat').send();
    const original = CallTally.prototype.toImage;
    CallTally.prototype.toImage = function () {
      return [0n, 0n, true, null, ['orphan'], [], []];
    };
    try {
      await writer.snapshot();
    } finally {
      CallTally.prototype.toImage = original;
    }
    const errors: CodecError[] = [];
    const reader = sessions(laser, undefined, { onError: (e) => errors.push(e) });
    expect(await reader.get(session.conversation)).toMatchObject({ modelCalls: 1n });
    const { start } = await reader.sources(session.conversation);
    expect(start.from).toBe('log');
    expect(errors.some((e) => e.cause instanceof FoldSnapshotRejectedError && e.cause.reason === 'corrupt')).toBe(true);
  });
});
