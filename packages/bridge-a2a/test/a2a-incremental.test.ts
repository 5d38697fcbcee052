import { AgdxClient, AgentTopic, LayoutMismatchError, SHARED_LAYOUT, type StreamLayout } from '@agdx/agents';
import { A2aBridge } from '@agdx/bridge-a2a';
import { countingTransport } from '@agdx/bridge-testing';
import { MemoryLog, partitionForKey, type LogTransport } from '@agdx/transport';
import { ConversationId, CorrelationId, TaskState } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { pendingTask } from '../src/task.js';
import { TaskReads } from '../src/task-reads.js';

const STREAM = 'a2a-reads';
const GATEWAY = 'a2a-gateway';
const WORKER = 'worker';
const text = new TextEncoder();
const PER_AGENT_PARTITION: StreamLayout = { kind: 'perAgentPartition', partitions: new Map([[GATEWAY, 1], [WORKER, 0]]) };

async function clientOn(transport: LogTransport, layout: StreamLayout, partitions = 4): Promise<AgdxClient> {
  const laser = AgdxClient.from(transport, { stream: STREAM, layout });
  await laser.bootstrap(partitions);
  return laser;
}

/** A reply from the worker to the gateway on the lane, where every layout routes it. */
function reply(laser: AgdxClient, task: ConversationId, body: string, state: 'InputRequired' | 'Completed' | 'Failed'): Promise<unknown> {
  return laser.agdx(AgentTopic.Sessions, WORKER, task).respond(CorrelationId.fromBytes(task.toBytes()), text.encode(body)).withTarget(GATEWAY).withTaskState(state).send();
}

/** Replies of other tasks, interleaved on the same topic. */
async function noise(laser: AgdxClient, count: number): Promise<void> {
  for (let i = 0; i < count; i++) await reply(laser, ConversationId.new(), 'other', 'Completed');
}

/** A new conversation id whose partition among `partitions` is `partition`. */
async function idOnPartition(partition: number, partitions: number): Promise<ConversationId> {
  for (let i = 0; i < 1000; i++) {
    const id = ConversationId.new();
    if ((await partitionForKey(id.toString(), partitions)) === partition) return id;
  }
  throw new Error('no id found');
}

describe.each([
  ['shared', SHARED_LAYOUT],
  ['perAgentPartition', PER_AGENT_PARTITION],
] as const)('GetTask reads incrementally (%s layout)', (_name, layout) => {
  function bridgeOn(laser: AgdxClient): A2aBridge {
    return new A2aBridge(laser, GATEWAY, AgentTopic.Sessions, AgentTopic.Sessions);
  }

  it('a repeated GetTask reads only the records appended since the previous one', async () => {
    const counting = countingTransport(new MemoryLog());
    const laser = await clientOn(counting.transport, layout);
    const bridge = bridgeOn(laser);
    const task = ConversationId.new();
    await noise(laser, 40);
    await reply(laser, task, 'which file?', 'InputRequired');
    await noise(laser, 40);

    counting.reset();
    const first = await bridge.task(task);
    expect(first.state).toEqual({ kind: 'known', name: 'InputRequired' });
    expect(counting.records()).toBeGreaterThan(0);

    counting.reset();
    expect(await bridge.task(task)).toEqual(first);
    expect(counting.records()).toBe(0);

    await reply(laser, task, 'done', 'Completed');
    counting.reset();
    const done = await bridge.task(task);
    expect(counting.records()).toBe(1);
    expect(done).toEqual({ id: task.toString(), state: { kind: 'known', name: 'Completed' }, artifacts: [{ text: 'done' }] });
    expect(await bridgeOn(laser).task(task)).toEqual(done);

    // the first terminal wins: a later one is read once, as every new record is, and changes nothing
    await reply(laser, task, 'late', 'Failed');
    counting.reset();
    expect(await bridge.task(task)).toEqual(done);
    expect(counting.records()).toBe(1);
    counting.reset();
    expect(await bridge.task(task)).toEqual(done);
    expect(counting.records()).toBe(0);
  });

  it('starts over when the reply topic is deleted and recreated', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log, layout);
    const bridge = bridgeOn(laser);
    const task = ConversationId.new();
    await reply(laser, task, 'done', 'Completed');
    expect((await bridge.task(task)).state).toEqual({ kind: 'known', name: 'Completed' });

    await log.deleteTopic({ stream: STREAM, topic: AgentTopic.Sessions });
    await laser.bootstrap(4);
    expect((await bridge.task(task)).state).toEqual({ kind: 'known', name: 'Working' });
    await noise(laser, 3);
    await reply(laser, task, 'broke', 'Failed');
    const again = await bridge.task(task);
    expect(again).toEqual({ id: task.toString(), state: { kind: 'known', name: 'Failed' }, artifacts: [{ text: 'broke' }] });
  });

  it('starts over when the topic comes back with another partition count', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log, layout);
    const bridge = bridgeOn(laser);
    const task = ConversationId.new();
    await reply(laser, task, 'wait', 'InputRequired');
    expect((await bridge.task(task)).state).toEqual({ kind: 'known', name: 'InputRequired' });
    await log.deleteTopic({ stream: STREAM, topic: AgentTopic.Sessions });
    await log.ensureTopic({ stream: STREAM, topic: AgentTopic.Sessions }, { partitions: 2 });
    await reply(laser, task, 'done', 'Completed');
    expect((await bridge.task(task)).state).toEqual({ kind: 'known', name: 'Completed' });
  });

  it('keeps CancelTask and GetTask in one story across kept reads', async () => {
    const laser = await clientOn(new MemoryLog(), layout);
    const bridge = bridgeOn(laser);
    const task = ConversationId.new();
    await reply(laser, task, 'wait', 'InputRequired');
    expect((await bridge.task(task)).state).toEqual({ kind: 'known', name: 'InputRequired' });
    expect((await bridge.cancel(task)).state).toEqual({ kind: 'known', name: 'Canceled' });
    expect((await bridge.task(task)).state).toEqual({ kind: 'known', name: 'Canceled' });
    await reply(laser, task, 'too late', 'Completed');
    expect((await bridge.task(task)).state).toEqual({ kind: 'known', name: 'Canceled' });
  });
});

describe('GetTask on a log written with another layout', () => {
  it('a shared-layout bridge says the log was written per agent partition instead of reading Working', async () => {
    const log = new MemoryLog();
    const writer = await clientOn(log, PER_AGENT_PARTITION, 2);
    // one task homed on each partition: the writer puts every command on the worker's partition and every reply on the gateway's
    const tasks = [await idOnPartition(0, 2), await idOnPartition(1, 2)];
    for (const task of tasks) {
      await writer.agdx(AgentTopic.Sessions, GATEWAY, task).command(CorrelationId.fromBytes(task.toBytes()), text.encode('{}')).withTarget(WORKER).send();
      await reply(writer, task, 'done', 'Completed');
    }
    const reader = new A2aBridge(AgdxClient.from(log, { stream: STREAM }), GATEWAY, AgentTopic.Sessions, AgentTopic.Sessions);
    for (const task of tasks) {
      const error = await reader.task(task).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LayoutMismatchError);
      expect((error as LayoutMismatchError).kind).toBe('layout-mismatch');
      // the refusal is not forgotten: the next call fails the same way
      expect(await reader.task(task).catch((e: unknown) => e)).toBeInstanceOf(LayoutMismatchError);
    }
    // the writer's own layout reads them
    const right = new A2aBridge(writer, GATEWAY, AgentTopic.Sessions, AgentTopic.Sessions);
    for (const task of tasks) expect((await right.task(task)).state).toEqual({ kind: 'known', name: 'Completed' });
  });

  it('a shared-layout bridge on a stream declared with a topic per agent names both layouts instead of reading Working', async () => {
    const log = new MemoryLog();
    const byTopic: StreamLayout = { kind: 'perAgentTopic', topics: new Map([[GATEWAY, 'agent.gateway'], [WORKER, 'agent.worker']]) };
    const writer = await clientOn(log, byTopic, 2);
    const task = ConversationId.new();
    await writer.agdx(AgentTopic.Sessions, GATEWAY, task).command(CorrelationId.fromBytes(task.toBytes()), text.encode('{}')).withTarget(WORKER).send();
    await reply(writer, task, 'done', 'Completed');
    const reader = new A2aBridge(AgdxClient.from(log, { stream: STREAM }), GATEWAY, AgentTopic.Sessions, AgentTopic.Sessions);
    const error = await reader.task(task).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LayoutMismatchError);
    expect((error as LayoutMismatchError).message).toMatch(/declares the perAgentTopic \(a2a-gateway -> agent\.gateway, worker -> agent\.worker\) layout, but this reader uses the shared layout/);
    expect((error as LayoutMismatchError).context).toMatchObject({ declaredLayout: 'perAgentTopic', readerLayout: 'shared' });
    expect((await new A2aBridge(writer, GATEWAY, AgentTopic.Sessions, AgentTopic.Sessions).task(task)).state).toEqual({ kind: 'known', name: 'Completed' });
  });

  it('raises no alarm on an empty shared log, nor on a busy one', async () => {
    const log = new MemoryLog();
    const laser = await clientOn(log, SHARED_LAYOUT, 2);
    const bridge = new A2aBridge(laser, GATEWAY, AgentTopic.Sessions, AgentTopic.Sessions);
    const task = ConversationId.new();
    expect((await bridge.task(task)).state).toEqual({ kind: 'known', name: 'Working' });
    for (let i = 0; i < 20; i++) {
      const other = ConversationId.new();
      await laser.agdx(AgentTopic.Sessions, GATEWAY, other).command(CorrelationId.fromBytes(other.toBytes()), text.encode('{}')).withTarget(WORKER).send();
      await reply(laser, other, 'done', 'Completed');
    }
    expect((await bridge.task(task)).state).toEqual({ kind: 'known', name: 'Working' });
    await reply(laser, task, 'mine', 'Completed');
    expect((await bridge.task(task)).state).toEqual({ kind: 'known', name: 'Completed' });
  });
});

describe('TaskReads limits', () => {
  async function partitionOf(records: number): Promise<{ log: MemoryLog; reads: () => number }> {
    const log = new MemoryLog();
    await log.ensureStream('s');
    await log.ensureTopic({ stream: 's', topic: 't' }, { partitions: 1 });
    for (let i = 0; i < records; i++) await log.append({ stream: 's', topic: 't', records: [{ payload: new Uint8Array([i]) }], routing: { partition: 0 } });
    let reads = 0;
    const original = log.read.bind(log);
    log.read = async (request) => {
      reads += 1;
      return original(request);
    };
    return { log, reads: () => reads };
  }

  const address = [{ stream: 's', topic: 't', partition: 0 }];

  it('looks no deeper than passes × records per partition from the start, however often it is asked', async () => {
    const { log } = await partitionOf(10);
    const reads = new TaskReads({ passes: 2, recordsPerPartition: 3 });
    // offset 2 asks for input, offset 8 completes: 8 is beyond the 6-record depth
    const judge = async (record: { offset: bigint }) =>
      record.offset === 2n
        ? { found: pendingTask('t', TaskState.InputRequired), record: undefined }
        : record.offset === 8n
          ? { found: pendingTask('t', TaskState.Completed), record: undefined }
          : undefined;
    for (let call = 0; call < 3; call++) expect((await reads.read('t', log, address, judge))?.state).toEqual({ kind: 'known', name: 'InputRequired' });
  });

  it('reads at most `passes` batches of `recordsPerPartition` records per partition', async () => {
    const { log, reads: count } = await partitionOf(10);
    const reads = new TaskReads({ passes: 2, recordsPerPartition: 2 });
    const seen: bigint[] = [];
    const judge = async (record: { offset: bigint }) => {
      seen.push(record.offset);
      return undefined;
    };
    await reads.read('t', log, address, judge);
    expect(count()).toBe(2);
    expect(seen).toEqual([0n, 1n, 2n, 3n]);
    // the depth is reached: later calls read nothing more
    await reads.read('t', log, address, judge);
    expect(count()).toBe(2);
  });

  it('keeps no state for a call whose judge throws, so the next call meets the same record', async () => {
    const { log } = await partitionOf(4);
    const reads = new TaskReads({ passes: 4, recordsPerPartition: 10 });
    let calls = 0;
    const judge = async (record: { offset: bigint }) => {
      calls += 1;
      if (record.offset === 2n) throw new Error('contradicts the layout');
      return undefined;
    };
    await expect(reads.read('t', log, address, judge)).rejects.toThrow('contradicts');
    calls = 0;
    await expect(reads.read('t', log, address, judge)).rejects.toThrow('contradicts');
    expect(calls).toBe(3);
  });
});
