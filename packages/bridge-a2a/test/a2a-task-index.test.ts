import { AgdxClient, AgentTopic, type Verifier } from '@agdx/agents';
import { KeyRegistry, SigningKey } from '@agdx/sign';
import { A2aBridge, TASK_INDEX_LIMIT } from '@agdx/bridge-a2a';
import { countingTransport } from '@agdx/bridge-testing';
import { MemoryLog, partitionForKey, type LogTransport } from '@agdx/transport';
import { ConversationId, CorrelationId, InvalidError, TaskState } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { EvictedIds } from '../src/evicted-ids.js';
import { TaskIndex } from '../src/task-index.js';
import { pendingTask } from '../src/task.js';

const STREAM = 'a2a-index';
const GATEWAY = 'a2a-gateway';
const WORKER = 'worker';
const PARTITIONS = 4;
const text = new TextEncoder();

async function setUp(): Promise<{ laser: AgdxClient; counting: ReturnType<typeof countingTransport>; log: MemoryLog }> {
  const log = new MemoryLog();
  const counting = countingTransport(log);
  const laser = AgdxClient.from(counting.transport, { stream: STREAM });
  await laser.bootstrap(PARTITIONS);
  return { laser, counting, log };
}

function bridgeOn(laser: AgdxClient): A2aBridge {
  return new A2aBridge(laser, GATEWAY, AgentTopic.Sessions, AgentTopic.Sessions);
}

function reply(laser: AgdxClient, task: ConversationId, body: string, state: 'InputRequired' | 'Completed' | 'Failed'): Promise<unknown> {
  return laser.agdx(AgentTopic.Sessions, WORKER, task).respond(CorrelationId.fromBytes(task.toBytes()), text.encode(body)).withTarget(GATEWAY).withTaskState(state).send();
}

async function completed(laser: AgdxClient, count: number): Promise<ConversationId[]> {
  const ids: ConversationId[] = [];
  for (let i = 0; i < count; i++) {
    const id = ConversationId.new();
    await reply(laser, id, `answer ${i}`, 'Completed');
    ids.push(id);
  }
  return ids;
}

async function idOnPartition(partition: number): Promise<ConversationId> {
  for (let i = 0; i < 1000; i++) {
    const id = ConversationId.new();
    if ((await partitionForKey(id.toString(), PARTITIONS)) === partition) return id;
  }
  throw new Error('no id found');
}

/** Asks one unknown id per partition, so the index has read every partition of the lane. */
async function warm(bridge: A2aBridge): Promise<void> {
  for (let p = 0; p < PARTITIONS; p++) await bridge.task(await idOnPartition(p));
}

const COMPLETED = { kind: 'known', name: 'Completed' };

describe('GetTask reply index', () => {
  it('answers an unknown id without reading old records once the index is current', async () => {
    const { laser, counting } = await setUp();
    await completed(laser, 200);
    const bridge = bridgeOn(laser);
    counting.reset();
    await warm(bridge);
    // the first lookups read each partition once: every record of the lane, plus the stream's
    // layout declaration (checked once per client)
    expect(counting.records()).toBeGreaterThanOrEqual(200);
    expect(counting.records()).toBeLessThanOrEqual(201);
    for (let i = 0; i < 50; i++) {
      counting.reset();
      expect(await bridge.task(ConversationId.new())).toEqual(expect.objectContaining({ state: { kind: 'known', name: 'Working' } }));
      expect(counting.records()).toBe(0);
    }
  });

  it('reads only the N records appended since, for a lookup of any task', async () => {
    const { laser, counting } = await setUp();
    const old = await completed(laser, 100);
    const bridge = bridgeOn(laser);
    await warm(bridge);
    const added = await completed(laser, 40);
    // every partition's new records, once, whichever tasks are asked
    let read = 0;
    for (let p = 0; p < PARTITIONS; p++) {
      counting.reset();
      await bridge.task(await idOnPartition(p));
      read += counting.records();
    }
    expect(read).toBe(40);
    for (const id of [...old.slice(0, 5), ...added.slice(-5)]) {
      counting.reset();
      const task = await bridge.task(id);
      expect(task.state).toEqual(COMPLETED);
      // a kept reply is read back: one record at most, never a scan
      expect(counting.records()).toBeLessThanOrEqual(1);
    }
  });

  it('still answers a task it dropped to stay under its cap, by scanning for it', async () => {
    const { laser, counting } = await setUp();
    const bridge = bridgeOn(laser).withTaskIndexLimit(5);
    const [first, ...rest] = await completed(laser, 30);
    await warm(bridge);
    // a later terminal of the dropped task must not win over its first one
    await reply(laser, first!, 'late', 'Failed');
    counting.reset();
    expect(await bridge.task(first!)).toEqual({ id: first!.toString(), state: COMPLETED, artifacts: [{ text: 'answer 0' }] });
    expect(counting.records()).toBeGreaterThan(1);
    for (const [i, id] of rest.entries()) expect((await bridge.task(id)).artifacts).toEqual([{ text: `answer ${i + 1}` }]);
  });

  it('a dropped task that asks for input, then completes, reads Completed', async () => {
    const { laser } = await setUp();
    const bridge = bridgeOn(laser).withTaskIndexLimit(3);
    const task = ConversationId.new();
    await reply(laser, task, 'which file?', 'InputRequired');
    expect((await bridge.task(task)).state).toEqual({ kind: 'known', name: 'InputRequired' });
    await completed(laser, 20);
    await warm(bridge);
    await reply(laser, task, 'done', 'Completed');
    expect(await bridge.task(task)).toEqual({ id: task.toString(), state: COMPLETED, artifacts: [{ text: 'done' }] });
  });

  it('is a cache of the log: bridges on one log agree, whoever appended', async () => {
    const { laser } = await setUp();
    const a = bridgeOn(laser);
    const b = bridgeOn(AgdxClient.from(laser.transport, { stream: STREAM }));
    const [task] = await completed(laser, 1);
    const waiting = ConversationId.new();
    await reply(laser, waiting, 'which file?', 'InputRequired');
    expect((await a.task(waiting)).state).toEqual({ kind: 'known', name: 'InputRequired' });
    expect((await b.cancel(waiting)).state).toEqual({ kind: 'known', name: 'Canceled' });
    expect((await a.task(waiting)).state).toEqual({ kind: 'known', name: 'Canceled' });
    // a cancel after the task completed changes nothing, on either bridge
    expect((await a.cancel(task!)).state).toEqual(COMPLETED);
    expect((await b.task(task!)).state).toEqual(COMPLETED);
    expect((await a.task(task!)).state).toEqual(COMPLETED);
  });

  it('refuses hostile ids with a typed error and keeps nothing for them', async () => {
    const { laser, counting } = await setUp();
    const bridge = bridgeOn(laser).withTaskIndexLimit(8);
    await completed(laser, 20);
    await warm(bridge);
    for (const id of ['x'.repeat(1_000_000), '', '01ARZ3NDEKTSV4RRFFQ69G5FA', 42, null, {}, ['01ARZ3NDEKTSV4RRFFQ69G5FAV']]) {
      await expect(bridge.task(id as string)).rejects.toBeInstanceOf(InvalidError);
      const answer = await bridge.handleRpc({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id } });
      expect(answer).toMatchObject({ error: { code: -32000, message: 'invalid request' } });
    }
    counting.reset();
    for (let i = 0; i < 500; i++) expect((await bridge.task(ConversationId.new())).state).toEqual({ kind: 'known', name: 'Working' });
    expect(counting.records()).toBe(0);
  });

  it('takes a cap from 1 to 2^24 and refuses anything else', () => {
    const bridge = new A2aBridge(AgdxClient.from(new MemoryLog(), { stream: STREAM }), GATEWAY, AgentTopic.Sessions, AgentTopic.Sessions);
    expect(TASK_INDEX_LIMIT).toBe(32_768);
    for (const bad of [0, -1, 1.5, Number.NaN, 2 ** 24 + 1, '5', undefined]) expect(() => bridge.withTaskIndexLimit(bad as number)).toThrow(InvalidError);
    expect(bridge.withTaskIndexLimit(1)).toBe(bridge);
    expect(bridge.withTaskIndexLimit(2 ** 24)).toBe(bridge);
  });
});

describe('GetTask reply index under a verifier', () => {
  const keys = { worker: SigningKey.fromBytes(new Uint8Array(32).fill(71)), insider: SigningKey.fromBytes(new Uint8Array(32).fill(72)) };

  async function signedSetUp(): Promise<{ laser: AgdxClient; bridge: A2aBridge; verified: () => number }> {
    const registry = new KeyRegistry();
    registry.enroll('worker', keys.worker);
    registry.enroll('insider', keys.insider);
    let verified = 0;
    const verifier: Verifier = {
      verifyAt: (envelope, at, headers) => {
        verified += 1;
        return registry.verifyAt(envelope, at, headers);
      },
    };
    const laser = AgdxClient.from(new MemoryLog(), { stream: STREAM, verifier });
    await laser.bootstrap(PARTITIONS);
    return { laser, bridge: bridgeOn(laser).forAgent(WORKER), verified: () => verified };
  }

  function signedReply(laser: AgdxClient, task: ConversationId, body: string, as: string, key: SigningKey): Promise<unknown> {
    return laser.agdx(AgentTopic.Sessions, as, task).respond(CorrelationId.fromBytes(task.toBytes()), text.encode(body)).withTarget(GATEWAY).withTaskState('Completed').signedBy(key).send();
  }

  it('verifies only the replies of the task asked, when it is asked', async () => {
    const { laser, bridge, verified } = await signedSetUp();
    const tasks = Array.from({ length: 60 }, () => ConversationId.new());
    for (const task of tasks) await signedReply(laser, task, 'genuine', WORKER, keys.worker);
    await warm(bridge);
    expect(verified()).toBe(0);
    expect((await bridge.task(tasks[7]!)).artifacts).toEqual([{ text: 'genuine' }]);
    expect(verified()).toBe(1);
    expect((await bridge.task(tasks[7]!)).state).toEqual(COMPLETED);
    expect(verified()).toBe(1);
  });

  it('passes over forged replies, and over more forgeries than it holds for one task', async () => {
    const { laser, bridge } = await signedSetUp();
    for (const forgeries of [1, 40]) {
      const task = ConversationId.new();
      for (let i = 0; i < forgeries; i++) await signedReply(laser, task, `forged ${i}`, WORKER, keys.insider);
      await signedReply(laser, task, 'forged as itself', 'insider', keys.insider);
      expect((await bridge.task(task)).state).toEqual({ kind: 'known', name: 'Working' });
      await signedReply(laser, task, 'genuine', WORKER, keys.worker);
      await signedReply(laser, task, 'forged after', WORKER, keys.insider);
      expect(await bridge.task(task)).toEqual({ id: task.toString(), state: COMPLETED, artifacts: [{ text: 'genuine' }] });
      // a second bridge reads the same
      expect((await bridgeOn(laser).forAgent(WORKER).task(task)).artifacts).toEqual([{ text: 'genuine' }]);
    }
  });
});

describe('TaskIndex', () => {
  const limits = { passes: 2, recordsPerPartition: 4 };
  const address = [{ stream: 's', topic: 't', partition: 0 }];

  async function partitionOf(records: number): Promise<LogTransport> {
    const log = new MemoryLog();
    await log.ensureStream('s');
    await log.ensureTopic({ stream: 's', topic: 't' }, { partitions: 1 });
    for (let i = 0; i < records; i++) await log.append({ stream: 's', topic: 't', records: [{ payload: new Uint8Array([i]) }], routing: { partition: 0 } });
    return log;
  }

  // record i answers task `t<i>` and completes it
  const judge = async (record: { payload: Uint8Array }) => ({ task: `t${record.payload[0]}`, found: pendingTask(`t${record.payload[0]}`, TaskState.Completed), record: undefined, unverified: false });
  const reread = (record: { payload: Uint8Array }, _at: unknown, task: string) => pendingTask(task, record.payload[0] === undefined ? TaskState.Failed : TaskState.Completed);
  const readers = { judge, reread, settle: async () => undefined };

  it('keeps at most its cap of tasks, and answers unknown, never none, for a dropped one', async () => {
    const log = await partitionOf(8);
    const index = new TaskIndex(limits, 3);
    expect((await index.lookup('t7', log, address, readers)).kind).toBe('found');
    expect(index.size).toBe(3);
    for (let i = 0; i < 5; i++) expect((await index.lookup(`t${i}`, log, address, readers)).kind).toBe('unknown');
    expect((await index.lookup('never', log, address, readers)).kind).toBe('none');
    expect(index.size).toBe(3);
  });

  it('reads no deeper than passes × records per partition from the start', async () => {
    const log = await partitionOf(12);
    const index = new TaskIndex(limits, 100);
    for (let call = 0; call < 3; call++) {
      expect((await index.lookup('t7', log, address, readers)).kind).toBe('found');
      expect((await index.lookup('t8', log, address, readers)).kind).toBe('none');
    }
    expect(index.size).toBe(8);
  });

  it('keeps nothing a lookup read after it was cleared, and sends that lookup to its own scan', async () => {
    const log = await partitionOf(8);
    const index = new TaskIndex(limits, 100);
    const clearing = async (record: { payload: Uint8Array }) => {
      if (record.payload[0] === 3) index.clear();
      return judge(record);
    };
    expect((await index.lookup('t1', log, address, { ...readers, judge: clearing })).kind).toBe('unknown');
    expect(index.size).toBe(0);
    // the next lookup reads from the start under the new state
    expect((await index.lookup('t1', log, address, readers)).kind).toBe('found');
    expect(index.size).toBe(8);
  });

  it('stays before a record its judge throws on, so every later call fails the same way', async () => {
    const log = await partitionOf(4);
    const index = new TaskIndex(limits, 100);
    let judged = 0;
    const throwing = async (record: { payload: Uint8Array }) => {
      judged += 1;
      if (record.payload[0] === 2) throw new Error('contradicts the layout');
      return judge(record);
    };
    await expect(index.lookup('t0', log, address, { ...readers, judge: throwing }, undefined)).rejects.toThrow('contradicts');
    judged = 0;
    await expect(index.lookup('t0', log, address, { ...readers, judge: throwing }, undefined)).rejects.toThrow('contradicts');
    expect(judged).toBe(1);
  });
});

describe('EvictedIds', () => {
  it('never misses an id it holds, and claims few it does not', () => {
    const filter = new EvictedIds();
    const held = Array.from({ length: 20_000 }, () => ConversationId.new().toString());
    expect(filter.mightHold(held[0]!)).toBe(false);
    for (const id of held) filter.add(id);
    expect(held.every((id) => filter.mightHold(id))).toBe(true);
    let claimed = 0;
    for (let i = 0; i < 20_000; i++) if (filter.mightHold(ConversationId.new().toString())) claimed += 1;
    // about 0.02 % expected at this fill; a broken hash claims far more
    expect(claimed).toBeLessThan(100);
  });
});
