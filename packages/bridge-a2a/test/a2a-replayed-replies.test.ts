/**
 * Copies of genuinely signed replies appended again to the bridge's reply topic by someone who
 * holds no agent key. A signature covers the task (correlation and conversation), so a copy only
 * ever speaks about the task it was signed for; within that task, GetTask takes the first
 * terminal reply and otherwise the latest non-terminal one by append time, and a copy's append
 * time is the copy's. These tests pin both, as the README's "What a signature does not cover"
 * describes.
 */
import { AgdxClient, AgentTopic } from '@agdx/agents';
import { A2aBridge } from '@agdx/bridge-a2a';
import { KeyRegistry, SigningKey } from '@agdx/sign';
import { MemoryLog, type LogRecord } from '@agdx/transport';
import { AgentEnvelope, ConversationId, CorrelationId } from '@agdx/wire';
import { describe, expect, it } from 'vitest';

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
  return { bridge, reply, copy };
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

  it('a copy of an earlier non-terminal reply, appended after a later one, is what GetTask reports (not covered by the signature)', async () => {
    const { bridge, reply, copy } = await setUp();
    const task = ConversationId.new();
    const first = await reply(task, 'which file?', 'InputRequired');
    await reply(task, 'which line?', 'InputRequired');
    expect((await bridge.task(task)).artifacts).toEqual([{ text: 'which line?' }]);
    await copy(first);
    const now = await bridge.task(task);
    expect(now.state).toEqual({ kind: 'known', name: 'InputRequired' });
    expect(now.artifacts).toEqual([{ text: 'which file?' }]);
  });
});
