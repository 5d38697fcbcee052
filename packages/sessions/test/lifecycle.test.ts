import { describe, expect, it } from 'vitest';
import {
  AgdxClient,
  LIFECYCLE_CONTENT_TYPE,
  SESSIONS_TOPIC,
  sessionEndEnvelope,
  sessionStartEnvelope,
  sessionTransitionEnvelope,
  defaultSessionStart,
  HeartbeatRegistry,
  TestClock,
} from '@agdx/agents';
import { ManualLogClock, MemoryLog } from '@agdx/transport';
import {
  AgentEnvelope,
  AgentId,
  AgdxError,
  AgentErrorCode,
  ConversationId,
  CorrelationId,
  InvalidError,
  MintUlid,
  RecordId,
  TaskState,
  UnsupportedError,
} from '@agdx/wire';
import { MissingTopicError, SessionConfig, sessions, sessionStatusOf, StaleSessionError, type SessionStatus } from '@agdx/sessions';
import { setup } from './helpers.js';

const agent = AgentId.parse('planner');

const STATUS_TABLE: [string, number, SessionStatus][] = [
  ['Submitted', TaskState.Submitted, 'submitted'],
  ['Working', TaskState.Working, 'active'],
  ['InputRequired', TaskState.InputRequired, 'active'],
  ['AuthRequired', TaskState.AuthRequired, 'active'],
  ['Paused', TaskState.Paused, 'paused'],
  ['Completed', TaskState.Completed, 'completed'],
  ['Canceled', TaskState.Canceled, 'canceled'],
  ['Failed', TaskState.Failed, 'failed'],
  ['Rejected', TaskState.Rejected, 'failed'],
  ['Unknown', TaskState.Unknown, 'unrecognized'],
];

describe('lifecycle reads: the seed status mapping for every task state', () => {
  it('covers every TaskState code', () => {
    const codes = Object.values(TaskState).sort((a, b) => a - b);
    expect(STATUS_TABLE.map((r) => r[1]).sort((a, b) => a - b)).toEqual(codes);
  });

  it.each(STATUS_TABLE)('%s reads as %s', async (_name, state, status) => {
    expect(sessionStatusOf(state)).toBe(status);
    const { laser } = await setup();
    const factory = sessions(laser);
    const session = factory.create(`state-${state}`);
    const id = session.conversation;
    if (state === TaskState.Submitted) {
      await session.lifecycle.begin({ agent, submitted: true });
    } else {
      await session.lifecycle.begin({ agent });
      const envelope =
        state === TaskState.Completed || state === TaskState.Canceled || state === TaskState.Failed || state === TaskState.Rejected
          ? sessionEndEnvelope(id, agent, state)
          : sessionTransitionEnvelope(id, agent, state, { actor: agent });
      await laser.publish(SESSIONS_TOPIC, envelope, LIFECYCLE_CONTENT_TYPE);
    }
    const info = await factory.reads.get(id);
    expect(info?.status).toBe(status);
    expect(info?.implicit).toBe(false);
    expect(info?.agent).toBe('planner');
    expect(info?.sdk).toEqual({ language: 'typescript', version: expect.any(String) });
  });
});

describe('lifecycle writer and lane fold', () => {
  it('first terminal wins, later records are flagged after_end, a repeated identical terminal changes nothing', async () => {
    const { laser } = await setup();
    const factory = sessions(laser);
    const session = factory.create('ends');
    const writer = session.lifecycle;
    await writer.begin({ agent, label: 'ticket 7', tags: ['support'] });
    await writer.transition(TaskState.InputRequired);
    const end = await writer.end({ reason: 'done' });
    const again = await writer.end({ reason: 'done' });
    expect(again.offset).toBe(end.offset + 1n);
    await expect(writer.fail({ code: AgentErrorCode.Internal })).rejects.toThrow('session already ending as completed');
    await expect(writer.transition(TaskState.Working)).rejects.toThrow(InvalidError);
    // another process ends it differently afterwards
    await laser.publish(SESSIONS_TOPIC, sessionEndEnvelope(session.conversation, agent, TaskState.Failed), LIFECYCLE_CONTENT_TYPE);
    const info = await factory.reads.get(session.conversation);
    expect(info?.status).toBe('completed');
    expect(info?.endReason).toBe('done');
    expect(info?.label).toBe('ticket 7');
    const events = (await factory.reads.events(session.conversation)).items;
    expect(events.map((e) => [e.display, e.afterEnd])).toEqual([
      ['session.started', false],
      ['task.status', false],
      ['session.completed', false],
      ['session.completed', false],
      ['session.failed', true],
    ]);
  });

  it('a session without a start is implicit: active, idle after its timeout, never completed', async () => {
    const clock = new ManualLogClock(1_000_000_000n);
    const log = new MemoryLog({ clock });
    const testClock = new TestClock(1_000_000_000n);
    const laser = AgdxClient.from(log, { stream: 'demo', clock: testClock });
    await laser.bootstrap(1);
    const factory = sessions(laser);
    const id = ConversationId.derive('implicit');
    await laser.publish(SESSIONS_TOPIC, AgentEnvelope.event(MintUlid.mint(RecordId), id, agent, new Uint8Array([0xa0])).withOperation('note'), 1);
    let info = await factory.reads.get(id);
    expect(info).toMatchObject({ status: 'active', implicit: true, idle: false });
    testClock.advanceMs(300_001);
    info = await factory.reads.get(id);
    expect(info).toMatchObject({ status: 'active', idle: true });
    expect(await factory.reads.get(ConversationId.derive('nobody'))).toBeUndefined();
  });

  it('over budget is a read-time flag: tokens first, then cost', async () => {
    const { laser } = await setup();
    const factory = sessions(laser);
    const session = factory.create('budget');
    await session.lifecycle.begin({ agent, budget: { tokens: 100n, costMicros: 50n } });
    const id = session.conversation;
    const spend = (input: bigint, output: bigint, cost?: bigint) =>
      laser.publish(
        SESSIONS_TOPIC,
        AgentEnvelope.event(MintUlid.mint(RecordId), id, agent, new Uint8Array([0xa0]))
          .withOperation('note')
          .withUsage({ inputTokens: input, outputTokens: output, ...(cost !== undefined ? { costMicros: cost } : {}) }),
        1,
      );
    await spend(40n, 50n);
    expect((await factory.reads.get(id))?.overBudget).toBe(false);
    await spend(5n, 6n);
    let info = await factory.reads.get(id);
    expect(info?.overBudget).toBe(true);
    expect(info?.status).toBe('active');
    expect([info?.tokensIn, info?.tokensOut]).toEqual([45n, 56n]);
    const other = factory.create('cost');
    await other.lifecycle.begin({ agent, budget: { costMicros: 10n } });
    await laser.publish(
      SESSIONS_TOPIC,
      AgentEnvelope.event(MintUlid.mint(RecordId), other.conversation, agent, new Uint8Array([0xa0])).withOperation('note').withUsage({ inputTokens: 1n, outputTokens: 1n, costMicros: 11n }),
      1,
    );
    info = await factory.reads.get(other.conversation);
    expect(info?.overBudget).toBe(true);
  });

  it('begin takes a heartbeat lease; heartbeats keep the session live', async () => {
    const testClock = new TestClock(5_000_000_000n);
    const log = new MemoryLog({ clock: new ManualLogClock(5_000_000_000n) });
    const laser = AgdxClient.from(log, { stream: 'demo', clock: testClock });
    await laser.bootstrap(1);
    const registry = new HeartbeatRegistry({ agent, stream: 'demo', clock: testClock, publish: (topic, env) => laser.publish(topic, env, 3) });
    const factory = sessions(laser, new SessionConfig(), { heartbeats: registry });
    const session = factory.create('leased');
    const { lease } = await session.lifecycle.begin({ agent, idleTimeoutMs: 1000 });
    expect(lease?.session.equals(session.conversation)).toBe(true);
    expect(registry.sessions().map(String)).toEqual([session.conversation.toString()]);
    await registry.beat();
    const info = await factory.reads.get(session.conversation);
    expect(info?.lastHeartbeatAt).toBeDefined();
    expect(info?.flags.livenessUnknown).toBe(false);
    await session.lifecycle.end();
    expect(registry.sessions()).toEqual([]);
    lease?.release();
    registry.close();
  });

  it('list filters by status, agent, text, root and label prefix; links name parent, root and children', async () => {
    const { laser } = await setup();
    const factory = sessions(laser);
    const root = factory.create('root');
    await root.lifecycle.begin({ agent, label: 'billing: root' });
    const child = factory.create('child');
    await child.lifecycle.begin({ agent: 'helper', label: 'billing: child', parent: root.conversation, root: root.conversation });
    const other = factory.create('other');
    await other.lifecycle.begin({ agent, label: 'support', namespace: 'tickets' });
    await other.lifecycle.end();
    const reads = factory.reads;
    const ids = async (filter: Parameters<typeof reads.list>[0]) => (await reads.list(filter)).items.map((s) => s.label);
    expect(await ids({})).toEqual(['support', 'billing: child', 'billing: root']);
    expect(await ids({ status: 'completed' })).toEqual(['support']);
    expect(await ids({ agent: 'helper' })).toEqual(['billing: child']);
    expect(await ids({ text: 'TICKETS' })).toEqual(['support']);
    expect(await ids({ labelPrefix: 'billing' })).toEqual(['billing: child', 'billing: root']);
    expect(await ids({ root: root.conversation })).toEqual(['billing: child', 'billing: root']);
    const page = await reads.list({ limit: 2 });
    expect(page.items).toHaveLength(2);
    expect(page.total).toBe(3);
    expect((await reads.list({ limit: 2, cursor: page.cursor })).items.map((s) => s.label)).toEqual(['billing: root']);
    const links = await reads.links(root.conversation);
    expect(links.children.map(String)).toEqual([child.conversation.toString()]);
    expect((await reads.links(child.conversation)).parent?.equals(root.conversation)).toBe(true);
    await expect(reads.get('not an id')).rejects.toThrow(InvalidError);
    await expect(reads.list({ cursor: 'x' })).rejects.toThrow(InvalidError);
  });

  it('events carry the display types; pause, cancel and parked work show in the summary', async () => {
    const { laser } = await setup();
    await laser.ensureOnFirstUseTopic('agent.control');
    const factory = sessions(laser);
    const session = factory.create('timeline');
    const id = session.conversation;
    await session.lifecycle.begin({ agent });
    const send = laser.agdx(SESSIONS_TOPIC, agent, id);
    await send.command(MintUlid.mint(CorrelationId), new TextEncoder().encode('{}')).withOperation('chat').send();
    await send.command(MintUlid.mint(CorrelationId), new TextEncoder().encode('{}')).withOperation('execute_tool').withTool('search').send();
    await laser
      .agdx('agent.control', 'operator', id)
      .command(MintUlid.mint(CorrelationId), new TextEncoder().encode('{}'))
      .withOperation('session_pause')
      .send();
    await session.lifecycle.transition(TaskState.Paused);
    await laser.publish(SESSIONS_TOPIC, AgentEnvelope.event(MintUlid.mint(RecordId), id, agent, new Uint8Array([0xa0])).withOperation('session_parked'), 3);
    await session.lifecycle.snapshot({ a: 1 });
    const info = await factory.reads.get(id);
    expect(info).toMatchObject({ status: 'paused', pauseRequested: true, cancelRequested: false, held: 1, modelCalls: 1n, toolCalls: 1n });
    const page = await factory.reads.events(id);
    expect(page.items.map((e) => e.display)).toEqual([
      'session.started',
      'model.request',
      'tool.call',
      'session.control',
      'session.paused',
      'session.parked',
      'state.updated',
    ]);
    expect(page.gaps).toEqual([]);
    const sources = await factory.reads.sources(id);
    expect(sources.sources.map((s) => s.topic)).toContain(SESSIONS_TOPIC);
    const changes = await factory.reads.changes(0n, 100);
    expect(changes.rows.length).toBeGreaterThanOrEqual(7);
    expect(changes.floor).toBe(1n);
    const tail = await factory.reads.changes(changes.rows.at(-1)?.seq ?? 0n);
    expect(tail.rows).toEqual([]);
    const state = await factory.reads.state(id);
    expect(state).toMatchObject({ revision: 1n, document: { a: 1 }, complete: true });
  });

  it('state: a repeated delta applies once and a late snapshot never overwrites a newer change', async () => {
    const { laser } = await setup();
    const factory = sessions(laser);
    const session = factory.create('state');
    await session.lifecycle.begin({ agent });
    await session.lifecycle.snapshot({ n: 1 });
    await session.lifecycle.patch([{ op: 'replace', path: '/n', value: 2 }], { opId: 'a' });
    await session.lifecycle.patch([{ op: 'replace', path: '/n', value: 3 }], { opId: 'a' });
    // a snapshot written by a writer that still believes revision 1
    const late = sessions(laser).open(session.conversation).lifecycle;
    await late.begin({ agent });
    const stale = (await factory.reads.state(session.conversation)).revision;
    expect(stale).toBe(2n);
    await laser.publish(
      SESSIONS_TOPIC,
      AgentEnvelope.event(MintUlid.mint(RecordId), session.conversation, agent, (await import('@agdx/wire')).encodeStateSnapshot({ baseRevision: 1n, document: { n: 0 } })).withOperation('state_snapshot'),
      3,
    );
    const state = await factory.reads.state(session.conversation);
    expect(state.document).toEqual({ n: 2 });
    expect(state.history.map((h) => h.outcome)).toEqual(['applied', 'applied', 'duplicate', 'stale']);
  });

  it('a lane write without agent.sessions names the missing topic; a changed lane is a stale-session error', async () => {
    const log = new MemoryLog();
    let lanePartitions: number | undefined;
    // a transport whose lane reports another partition count once "recreated"
    const transport = new Proxy(log, {
      get(target, prop) {
        if (prop === 'describeTopic') {
          return async (address: { stream: string; topic: string }, options?: object) => {
            const d = await target.describeTopic(address, options);
            return address.topic === SESSIONS_TOPIC && lanePartitions !== undefined ? { ...d, partitionCount: lanePartitions } : d;
          };
        }
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const laser = AgdxClient.from(transport, { stream: 'fresh' });
    await log.ensureStream('fresh');
    const factory = sessions(laser);
    const session = factory.create('x');
    const missing = await session.lifecycle.begin({ agent }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(MissingTopicError);
    expect((missing as Error).message).toContain('agent.sessions');
    await log.ensureTopic({ stream: 'fresh', topic: SESSIONS_TOPIC }, { partitions: 1 });
    await session.lifecycle.begin({ agent });
    lanePartitions = 4;
    const stale = await session.lifecycle.transition(TaskState.Working).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(StaleSessionError);
    expect(AgdxError.is(stale, 'stale-session')).toBe(true);
    expect((stale as Error).message).toMatch(/^stale session generation: /);
    // a new factory pins the lane it sees now
    await expect(sessions(laser).create('x').lifecycle.begin({ agent })).resolves.toBeDefined();
  });

  it('the writer adds a snapshot every 64 deltas and before a terminal when state changed', async () => {
    const { laser } = await setup();
    const factory = sessions(laser);
    const session = factory.create('auto-snapshot');
    await session.lifecycle.begin({ agent });
    for (let i = 0; i < 64; i++) await session.lifecycle.patch([{ op: 'add', path: `/k${i}`, value: i }]);
    let ops = (await factory.events(session.conversation)).items.map((e) => e.operation);
    expect(ops.filter((o) => o === 'state_delta')).toHaveLength(64);
    expect(ops.at(-1)).toBe('state_snapshot');
    await session.lifecycle.patch([{ op: 'add', path: '/last', value: true }]);
    await session.lifecycle.end();
    ops = (await factory.events(session.conversation)).items.map((e) => e.operation);
    expect(ops.slice(-3)).toEqual(['state_delta', 'state_snapshot', 'session']);
    const state = await factory.state(session.conversation);
    expect(state.revision).toBe(67n);
    expect((state.document as Record<string, unknown>)['last']).toBe(true);
    expect(state.history.every((h) => h.outcome === 'applied')).toBe(true);
  });

  it('state caps: a patch over 256 operations is refused before anything is written', async () => {
    const { laser } = await setup();
    const session = sessions(laser).create('caps');
    await session.lifecycle.begin({ agent });
    const ops = Array.from({ length: 257 }, (_, i) => ({ op: 'add' as const, path: `/k${i}`, value: i }));
    await expect(session.lifecycle.patch(ops)).rejects.toThrow(InvalidError);
    await expect(session.lifecycle.snapshot({ big: 2 ** 53 })).rejects.toThrow(AgdxError);
    expect((await sessions(laser).reads.events(session.conversation)).items).toHaveLength(1);
  });

  it('undecodable lane records of the session show as undecodable in the timeline and never throw', async () => {
    const { log, laser } = await setup();
    const factory = sessions(laser);
    const session = factory.create('garbage');
    await session.lifecycle.begin({ agent });
    const id = session.conversation;
    const { stringHeader, uint32Header } = await import('@agdx/wire');
    await log.append({
      stream: 'demo',
      topic: SESSIONS_TOPIC,
      records: [{ headers: new Map([['agdx.av', uint32Header(1)], ['gen_ai.conversation.id', stringHeader(id.toString())]]), payload: new Uint8Array([0xff, 0x00]) }],
      routing: { key: id.toString() },
    });
    await log.append({ stream: 'demo', topic: SESSIONS_TOPIC, records: [{ payload: new Uint8Array([1, 2, 3]) }], routing: { partition: 0 } });
    const events = (await factory.reads.events(id)).items;
    expect(events.map((e) => e.display)).toEqual(['session.started', 'undecodable']);
    expect((await factory.reads.get(id))?.status).toBe('active');
    expect((await factory.reads.list()).total).toBe(1);
  });

  it('reads see a recreated lane as a stale-session error', async () => {
    const log = new MemoryLog();
    let hide = false;
    const transport = new Proxy(log, {
      get(target, prop) {
        if (prop === 'describeTopic') {
          return async (address: { stream: string; topic: string }, options?: object) => {
            if (hide && address.topic === SESSIONS_TOPIC) throw Object.assign(new Error('gone'), { kind: 'not-found', [Symbol.for('agdx.error')]: true });
            return target.describeTopic(address, options);
          };
        }
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const laser = AgdxClient.from(transport, { stream: 'demo' });
    await laser.bootstrap(1);
    const factory = sessions(laser);
    await factory.create('a').lifecycle.begin({ agent });
    expect((await factory.reads.list()).total).toBe(1);
    hide = true;
    await expect(factory.reads.list()).rejects.toThrow(StaleSessionError);
    // a factory that never saw the lane reads an empty stream
    expect((await sessions(laser).reads.list()).total).toBe(0);
  });

  it('session.graph(name) is a typed UnsupportedError on a plain log', async () => {
    const { laser } = await setup();
    const session = sessions(laser).create('g');
    expect(() => session.graph('kb')).toThrow(UnsupportedError);
    expect(() => session.graph('kb')).toThrow(/graph "kb"/);
  });

  it('builds starts the wire accepts for every option', () => {
    const start = defaultSessionStart(agent, { label: 'x' });
    expect(() => sessionStartEnvelope(ConversationId.derive('q'), agent, start)).not.toThrow();
  });
});

describe('reads on the factory', () => {
  it('delegates the seven reads and watches the change feed', async () => {
    const testClock = new TestClock(1_000_000n);
    const log = new MemoryLog();
    const laser = AgdxClient.from(log, { stream: 'demo', clock: testClock });
    await laser.bootstrap(1);
    const factory = sessions(laser);
    const a = factory.create('a');
    await a.lifecycle.begin({ agent });
    expect((await factory.list()).total).toBe(1);
    expect((await factory.get(a.conversation))?.status).toBe('active');
    expect((await factory.events(a.conversation)).items).toHaveLength(1);
    expect((await factory.state(a.conversation)).revision).toBe(0n);
    expect((await factory.links(a.conversation)).children).toEqual([]);
    expect((await factory.sources(a.conversation)).gaps).toEqual([]);
    expect((await factory.changes()).rows).toHaveLength(1);

    const controller = new AbortController();
    const watch = factory.watch(100, controller.signal);
    const next = watch.next();
    const sleeping = async (): Promise<void> => {
      while (testClock.pendingSleeps === 0) await new Promise((r) => setTimeout(r, 1));
    };
    await sleeping();
    const b = factory.create('b');
    await b.lifecycle.begin({ agent });
    await a.lifecycle.end();
    testClock.advanceMs(100);
    const first = await next;
    expect(first.value?.map(String).sort()).toEqual([a.conversation.toString(), b.conversation.toString()].sort());
    const done = watch.next();
    await sleeping();
    controller.abort();
    expect((await done).done).toBe(true);
  });
});
