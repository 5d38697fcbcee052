/**
 * Copies of genuinely signed replies appended again to the bridge's reply topic by someone who
 * holds no agent key. A signature covers the task (correlation and conversation), so a copy only
 * ever speaks about the task it was signed for; within that task, GetTask takes the first
 * terminal reply and otherwise the latest non-terminal one by append time, and a copy's append
 * time is the copy's. So a copy of an earlier non-terminal reply would take the task back; a
 * record id counts once, in the index and in the per-task scan alike.
 */
import { AgdxClient, AgentTopic } from '@agdx/agents';
import { A2aBridge, createA2aHttpHandler } from '@agdx/bridge-a2a';
import { KeyRegistry, SigningKey } from '@agdx/sign';
import { MemoryLog, type LogRecord } from '@agdx/transport';
import { AgentEnvelope, ConversationId, CorrelationId, MintUlid, RecordId } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { COUNTED_REPLY_IDS, CountedReplies } from '../src/counted-replies.js';

const STREAM = 'a2a-replayed';
const GATEWAY = 'a2a-gateway';
const text = new TextEncoder();
const workerKey = SigningKey.fromBytes(new Uint8Array(32).fill(97));

async function setUp() {
  const registry = new KeyRegistry();
  registry.enroll('worker', workerKey);
  const log = new MemoryLog();
  const laser = AgdxClient.from(log, { stream: STREAM, verifier: registry });
  await laser.bootstrap(1);
  const bridge = new A2aBridge(laser, GATEWAY, AgentTopic.Sessions, AgentTopic.Sessions).forAgent('worker');
  /** The worker's signed reply on the task; returns the record it became. */
  const reply = async (task: ConversationId, body: string, state: 'InputRequired' | 'Completed'): Promise<LogRecord> => {
    const receipt = await laser
      .agdx(AgentTopic.Sessions, 'worker', task)
      .respond(CorrelationId.fromBytes(task.toBytes()), text.encode(body))
      .withTarget(GATEWAY)
      .withTaskState(state)
      .signedBy(workerKey)
      .sendReceipt();
    const [record] = await log.read({ stream: STREAM, topic: AgentTopic.Sessions, partition: receipt.position.partition, offset: receipt.position.offset, maxCount: 1 });
    return record as LogRecord;
  };
  const copy = (record: LogRecord, payload: Uint8Array = record.payload) => log.append({ stream: STREAM, topic: AgentTopic.Sessions, records: [{ headers: record.headers, payload }] });
  return { laser, bridge, reply, copy, log };
}

describe('GetTask with copies of signed replies', () => {
  it('a copy of a terminal reply changes nothing, and a copy cannot move to another task', async () => {
    const { bridge, reply, copy } = await setUp();
    const task = ConversationId.new();
    const other = ConversationId.new();
    const done = await reply(task, 'done', 'Completed');
    await reply(other, 'which file?', 'InputRequired');
    await copy(done);
    expect((await bridge.task(task)).artifacts).toEqual([{ text: 'done' }]);
    expect((await bridge.task(other)).state).toEqual({ kind: 'known', name: 'InputRequired' });
    // The same signed envelope edited into the other task no longer verifies, so it does not count.
    const moved = AgentEnvelope.fromFields({ ...AgentEnvelope.decode(done.payload), conversation: other, correlation: CorrelationId.fromBytes(other.toBytes()) });
    await copy(done, moved.encode());
    expect((await bridge.task(other)).state).toEqual({ kind: 'known', name: 'InputRequired' });
  });

  it('a copy of an earlier non-terminal reply, appended after a later one, does not take the task back', async () => {
    const { bridge, reply, copy } = await setUp();
    const task = ConversationId.new();
    const first = await reply(task, 'which file?', 'InputRequired');
    await reply(task, 'which line?', 'InputRequired');
    expect((await bridge.task(task)).artifacts).toEqual([{ text: 'which line?' }]);
    await copy(first);
    expect((await bridge.task(task)).artifacts).toEqual([{ text: 'which line?' }]);
    // A new genuine reply still moves it on, and a copy of the one before still does not.
    const third = await reply(task, 'which column?', 'InputRequired');
    expect((await bridge.task(task)).artifacts).toEqual([{ text: 'which column?' }]);
    await copy(first);
    await copy(third);
    expect((await bridge.task(task)).artifacts).toEqual([{ text: 'which column?' }]);
  });

  it('the same holds for a task read by its own scan (after the index dropped it) and on a fresh bridge', async () => {
    const { laser, bridge, reply, copy } = await setUp();
    const small = bridge.withTaskIndexLimit(1);
    const task = ConversationId.new();
    const first = await reply(task, 'which file?', 'InputRequired');
    await reply(task, 'which line?', 'InputRequired');
    await copy(first);
    // Other tasks push this one out of the one-task index: its GetTask scans its places.
    for (let i = 0; i < 3; i++) {
      const other = ConversationId.new();
      await reply(other, 'done', 'Completed');
      await small.task(other);
    }
    expect((await small.task(task)).artifacts).toEqual([{ text: 'which line?' }]);
    // A bridge that never read the task meets original and copy in one pass.
    const fresh = new A2aBridge(laser, GATEWAY, AgentTopic.Sessions, AgentTopic.Sessions).forAgent('worker');
    expect((await fresh.task(task)).artifacts).toEqual([{ text: 'which line?' }]);
  });

  it('without a verifier too: a record id counts once', async () => {
    const log = new MemoryLog();
    const laser = AgdxClient.from(log, { stream: STREAM });
    await laser.bootstrap(1);
    const bridge = new A2aBridge(laser, GATEWAY, AgentTopic.Sessions, AgentTopic.Sessions);
    const task = ConversationId.new();
    const send = (body: string) => laser.agdx(AgentTopic.Sessions, 'worker', task).respond(CorrelationId.fromBytes(task.toBytes()), text.encode(body)).withTarget(GATEWAY).withTaskState('InputRequired').sendReceipt();
    const first = await send('which file?');
    await send('which line?');
    const [record] = await log.read({ stream: STREAM, topic: AgentTopic.Sessions, partition: first.position.partition, offset: first.position.offset, maxCount: 1 });
    await log.append({ stream: STREAM, topic: AgentTopic.Sessions, records: [{ headers: record!.headers, payload: record!.payload }] });
    expect((await bridge.task(task)).artifacts).toEqual([{ text: 'which line?' }]);
  });
});

describe('SubscribeToTask on a fresh bridge with copies of signed replies', () => {
  /** A bridge in a process that took none of the task's replies as an answer yet. */
  function freshBridge(log: MemoryLog): A2aBridge {
    const registry = new KeyRegistry();
    registry.enroll('worker', workerKey);
    const client = AgdxClient.from(log, { stream: STREAM, verifier: registry });
    return new A2aBridge(client, GATEWAY, AgentTopic.Sessions, AgentTopic.Sessions).forAgent('worker');
  }

  it('does not end on a copy of an earlier reply appended while it waits; the next genuine reply ends it', async () => {
    const { reply, copy, log } = await setUp();
    const task = ConversationId.new();
    const first = await reply(task, 'which file?', 'InputRequired');
    const second = await reply(task, 'which line?', 'InputRequired');
    const fresh = freshBridge(log);
    const followed = await fresh.follow(task, { timeoutMs: 10_000 });
    expect(followed.task.artifacts).toEqual([{ text: 'which line?' }]);
    let ended: string | undefined;
    const final = followed.final.then((t) => {
      ended = JSON.stringify(t.artifacts);
      return t;
    });
    // Copies of both earlier replies: neither is news.
    await copy(first);
    await copy(second);
    // Let the reply readers meet the copies before anything else lands.
    await fresh.task(task);
    expect(ended).toBeUndefined();
    await reply(task, 'which column?', 'InputRequired');
    expect((await final).artifacts).toEqual([{ text: 'which column?' }]);
  });

  it('after a copy was passed over, a terminal reply still ends the wait', async () => {
    const { reply, copy, log } = await setUp();
    const task = ConversationId.new();
    const first = await reply(task, 'which file?', 'InputRequired');
    await reply(task, 'which line?', 'InputRequired');
    const fresh = freshBridge(log);
    const followed = await fresh.follow(task, { timeoutMs: 10_000 });
    await copy(first);
    await reply(task, 'done', 'Completed');
    const final = await followed.final;
    expect(final.state).toEqual({ kind: 'known', name: 'Completed' });
    expect(final.artifacts).toEqual([{ text: 'done' }]);
  });

  it('stops waiting when cancelled after it passed over a copy', async () => {
    const { reply, copy, log } = await setUp();
    const task = ConversationId.new();
    const first = await reply(task, 'which file?', 'InputRequired');
    await reply(task, 'which line?', 'InputRequired');
    const fresh = freshBridge(log);
    const followed = await fresh.follow(task, { timeoutMs: 10_000 });
    await copy(first);
    await fresh.task(task);
    followed.cancel();
    await expect(followed.final).rejects.toMatchObject({ kind: 'cancelled' });
  });

  it('over HTTP: the SubscribeToTask stream ends with the next genuine reply, not with a copy', async () => {
    const { reply, copy, log } = await setUp();
    const task = ConversationId.new();
    const first = await reply(task, 'which file?', 'InputRequired');
    await reply(task, 'which line?', 'InputRequired');
    const handler = createA2aHttpHandler(freshBridge(log));
    const response = await handler(
      new Request('http://h/', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'SubscribeToTask', params: { id: task.toString() } }),
      }),
    );
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = (await reader.read()).value ?? '';
    expect(text).toContain('which line?');
    await copy(first);
    await reply(task, 'which column?', 'InputRequired');
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      text += next.value;
    }
    const frames = text.split('\n\n').filter((f) => f.startsWith('data: ')).map((f) => JSON.stringify(JSON.parse(f.slice(6))));
    expect(frames.slice(1).join()).toContain('which column?');
    expect(frames.slice(1).join()).not.toContain('which file?');
  });

  it('times out on the original bound when only copies arrive', async () => {
    const { reply, copy, log } = await setUp();
    const task = ConversationId.new();
    const first = await reply(task, 'which file?', 'InputRequired');
    await reply(task, 'which line?', 'InputRequired');
    const fresh = freshBridge(log);
    const followed = await fresh.follow(task, { timeoutMs: 300 });
    await copy(first);
    await expect(followed.final).rejects.toMatchObject({ kind: 'timeout' });
  });
});

describe('CountedReplies', () => {
  it('knows the last COUNTED_REPLY_IDS record ids, forgets older ones, and its clones are independent', () => {
    const counted = new CountedReplies();
    const ids = Array.from({ length: COUNTED_REPLY_IDS + 1 }, () => MintUlid.mint(RecordId));
    expect(counted.isCopy(ids[0])).toBe(false);
    expect(counted.isCopy(undefined)).toBe(false);
    for (const id of ids.slice(0, COUNTED_REPLY_IDS)) counted.add(id);
    expect(ids.slice(0, COUNTED_REPLY_IDS).every((id) => counted.isCopy(RecordId.fromBytes(id.toBytes())))).toBe(true);
    const before = counted.clone();
    counted.add(ids[COUNTED_REPLY_IDS]);
    expect(counted.isCopy(ids[0])).toBe(false);
    expect(counted.isCopy(ids[COUNTED_REPLY_IDS])).toBe(true);
    expect(before.isCopy(ids[0])).toBe(true);
    expect(before.isCopy(ids[COUNTED_REPLY_IDS])).toBe(false);
  });
});
