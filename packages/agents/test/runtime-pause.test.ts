import { Agent, AgentTopic, logPositionOf, type AgdxClient } from '@agdx/agents';
import {
  AgentEnvelope,
  AgentId,
  ConversationId,
  CorrelationId,
  decodeSessionEnd,
  decodeSessionParking,
  decodeSessionTransition,
  encodeSessionPauseRequest,
  MintUlid,
  TaskState,
  type LogPosition,
} from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { eventually, harness, readAll, type Harness } from './support-runtime/harness.js';

const text = new TextEncoder();
const operator = AgentId.new('operator');
const worker = AgentId.new('worker');

async function control(laser: AgdxClient, session: ConversationId, operation: string, body: Uint8Array): Promise<LogPosition> {
  const receipt = await laser
    .agdx(AgentTopic.Control, operator, session)
    .command(MintUlid.mint(CorrelationId), body)
    .withOperation(operation)
    .contentType('json')
    .sendReceipt();
  return logPositionOf(receipt.position);
}

async function work(laser: AgdxClient, session: ConversationId, label: string): Promise<void> {
  await laser.agdx(AgentTopic.Commands, AgentId.new('planner'), session).command(MintUlid.mint(CorrelationId), text.encode(label)).withOperation('work').send();
}

/** The session's lane records on agent.sessions, as envelopes in log order. */
async function lane(h: Harness, session: ConversationId): Promise<AgentEnvelope[]> {
  return (await readAll(h.log, AgentTopic.Sessions)).map((r) => AgentEnvelope.decode(r.payload)).filter((e) => e.conversation.equals(session));
}

function describeLane(envelopes: readonly AgentEnvelope[]): string[] {
  return envelopes.map((e) => {
    if (e.kind === 'status' && e.operation === 'session') {
      const state = e.taskState === TaskState.Paused ? 'paused' : e.taskState === TaskState.Working ? 'working' : e.taskState === TaskState.Canceled ? 'canceled' : String(e.taskState);
      return e.last ? `end:${state}` : `ack:${state}`;
    }
    return `${e.kind}:${e.operation}`;
  });
}

describe('pause / resume (seed 000)', () => {
  it('acknowledges, parks, resumes, drains held work before new work, and unparks, in order under concurrent work', async () => {
    const h = await harness(2);
    const handled: string[] = [];
    await using agent = Agent.builder()
      .id(worker)
      .listenOn(AgentTopic.Commands)
      .concurrency({ kind: 'serial-per-partition', maxPartitions: 2 })
      .handler(async (message) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        handled.push(new TextDecoder().decode(message.envelope?.body));
      })
      .spawn(h.laser);
    await agent.ready();

    const paused = ConversationId.new();
    const other = ConversationId.new();
    const pauseAt = await control(h.laser, paused, 'session_pause', encodeSessionPauseRequest({ participants: [worker] }));
    await eventually(async () => describeLane(await lane(h, paused)).includes('ack:paused'), 5_000, 'the Paused acknowledgment');
    const [ack] = await lane(h, paused);
    expect(decodeSessionTransition(ack!.body).acknowledges?.equals(pauseAt)).toBe(true);
    expect(decodeSessionTransition(ack!.body).actor?.value).toBe('worker');
    expect(ack!.cause).toBeDefined();
    expect(agent.pendingControl(paused.toString()).pauseRequested).toBe(true);

    // Concurrent work: the paused session's records are parked, the other session's are handled.
    await Promise.all([work(h.laser, paused, 'p1'), work(h.laser, other, 'o1'), work(h.laser, paused, 'p2'), work(h.laser, other, 'o2'), work(h.laser, paused, 'p3')]);
    await eventually(() => agent.stats.parked === 3 && handled.length === 2, 5_000, 'parking and other work');
    expect(handled.sort()).toEqual(['o1', 'o2']);
    const parkedEvents = (await lane(h, paused)).filter((e) => e.operation === 'session_parked');
    expect(parkedEvents).toHaveLength(3);
    for (const event of parkedEvents) {
      const parking = decodeSessionParking(event.body);
      expect(parking.role.value).toBe('worker');
      expect(parking.request.equals(pauseAt)).toBe(true);
      expect(event.cause).toBeDefined();
    }

    const resumeAt = await control(h.laser, paused, 'session_resume', text.encode('{}'));
    await work(h.laser, paused, 'p4');
    await eventually(() => handled.length === 6, 5_000, 'held and new work handled');
    expect(handled.slice(2)).toEqual(['p1', 'p2', 'p3', 'p4']);
    const events = await lane(h, paused);
    expect(describeLane(events)).toEqual([
      'ack:paused',
      'event:session_parked',
      'event:session_parked',
      'event:session_parked',
      'ack:working',
      'event:session_unparked',
      'event:session_unparked',
      'event:session_unparked',
    ]);
    const working = events[4]!;
    expect(decodeSessionTransition(working.body).acknowledges?.equals(resumeAt)).toBe(true);
    // Each unparking names the same source as its parking, oldest first.
    const sources = (operation: string) => events.filter((e) => e.operation === operation).map((e) => decodeSessionParking(e.body).source);
    expect(sources('session_unparked')).toEqual(sources('session_parked'));
    expect(agent.pendingControl(paused.toString()).pauseRequested).toBe(false);
  });

  it('a cancel while paused ends the session Canceled and leaves the held records unhandled', async () => {
    const h = await harness();
    const handled: string[] = [];
    await using agent = Agent.builder()
      .id(worker)
      .listenOn(AgentTopic.Commands)
      .handler((message) => void handled.push(new TextDecoder().decode(message.envelope?.body)))
      .spawn(h.laser);
    await agent.ready();
    const session = ConversationId.new();
    await control(h.laser, session, 'session_pause', encodeSessionPauseRequest({ participants: [worker] }));
    await eventually(async () => describeLane(await lane(h, session)).includes('ack:paused'), 5_000, 'the Paused acknowledgment');
    await work(h.laser, session, 'held');
    await eventually(() => agent.stats.parked === 1, 5_000, 'parking');
    await control(h.laser, session, 'session_cancel', text.encode('{}'));
    await eventually(async () => describeLane(await lane(h, session)).includes('end:canceled'), 5_000, 'the Canceled end');
    await control(h.laser, session, 'session_resume', text.encode('{}'));
    await work(h.laser, session, 'after-cancel');
    await eventually(() => agent.stats.skipped >= 1, 5_000, 'the record after the end');
    expect(handled).toEqual([]);
    const events = await lane(h, session);
    expect(describeLane(events)).toEqual(['ack:paused', 'event:session_parked', 'end:canceled']);
    expect(decodeSessionEnd(events[2]!.body).reason).toBe('canceled');
  });

  it('rebuilds held records after a restart and handles them after the resume', async () => {
    const h = await harness();
    const handled: string[] = [];
    const spawn = () =>
      Agent.builder()
        .id(worker)
        .listenOn(AgentTopic.Commands)
        .handler((message) => void handled.push(new TextDecoder().decode(message.envelope?.body)))
        .spawn(h.connect());
    const first = spawn();
    await first.ready();
    const session = ConversationId.new();
    await control(h.laser, session, 'session_pause', encodeSessionPauseRequest({ participants: [worker] }));
    await eventually(async () => describeLane(await lane(h, session)).includes('ack:paused'), 5_000, 'the Paused acknowledgment');
    await work(h.laser, session, 'held-1');
    await work(h.laser, session, 'held-2');
    await eventually(() => first.stats.parked === 2, 5_000, 'parking');
    await first.shutdown();

    const second = spawn();
    await second.ready();
    expect(second.pendingControl(session.toString()).pauseRequested).toBe(true);
    await control(h.laser, session, 'session_resume', text.encode('{}'));
    await eventually(() => handled.length === 2, 5_000, 'the held records after the restart');
    expect(handled).toEqual(['held-1', 'held-2']);
    await eventually(async () => describeLane(await lane(h, session)).filter((d) => d === 'event:session_unparked').length === 2, 5_000, 'unparkings');
    // The Paused acknowledgment was restored from the lane, so the resume is acknowledged once.
    expect(describeLane(await lane(h, session)).filter((d) => d === 'ack:working')).toHaveLength(1);
    await second.shutdown();

    // A third start sees the records handled through their parking: nothing runs twice.
    const third = spawn();
    await third.ready();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await third.shutdown();
    expect(handled).toEqual(['held-1', 'held-2']);
  });

  it('folds control history at start: a session paused before the agent started is parked', async () => {
    const h = await harness();
    const session = ConversationId.new();
    await control(h.laser, session, 'session_pause', encodeSessionPauseRequest({ participants: [worker] }));
    const handled: string[] = [];
    await using agent = Agent.builder().id(worker).listenOn(AgentTopic.Commands).handler((m) => void handled.push(new TextDecoder().decode(m.envelope?.body))).spawn(h.laser);
    await agent.ready();
    expect(agent.pendingControl(session.toString()).pauseRequested).toBe(true);
    await work(h.laser, session, 'early');
    await eventually(() => agent.stats.parked === 1, 5_000, 'parking');
    expect(handled).toEqual([]);
    // A pause addressed to another agent does not apply.
    const elsewhere = ConversationId.new();
    await h.laser
      .agdx(AgentTopic.Control, operator, elsewhere)
      .command(MintUlid.mint(CorrelationId), text.encode('{}'))
      .withOperation('session_pause')
      .withTarget('someone-else')
      .send();
    await work(h.laser, elsewhere, 'not-paused');
    await eventually(() => handled.includes('not-paused'), 5_000, 'work of the other session');
  });
});
