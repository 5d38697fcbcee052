import { Agent, AgentTopic } from '@agdx/agents';
import { AgentId, ConversationId, CorrelationId, decodeSessionEnd, encodeSessionPauseRequest, MintUlid } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { memoryEnv } from './support-runtime/env.js';
import { eventually, harness } from './support-runtime/harness.js';
import { control, describeLane, lane, operator, work } from './support-runtime/pause.js';
import { pauseParkResumeUnparkInOrder } from './support-runtime/scenarios.js';

const text = new TextEncoder();
const worker = AgentId.new('worker');

describe('pause / resume (seed 000)', () => {
  it('acknowledges, parks, resumes, drains held work before new work, and unparks, in order under concurrent work', () =>
    pauseParkResumeUnparkInOrder(memoryEnv));

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
    await eventually(async () => describeLane(await lane(h.log, session)).includes('ack:paused'), 5_000, 'the Paused acknowledgment');
    await work(h.laser, session, 'held');
    await eventually(() => agent.stats.parked === 1, 5_000, 'parking');
    await control(h.laser, session, 'session_cancel', text.encode('{}'));
    await eventually(async () => describeLane(await lane(h.log, session)).includes('end:canceled'), 5_000, 'the Canceled end');
    await control(h.laser, session, 'session_resume', text.encode('{}'));
    await work(h.laser, session, 'after-cancel');
    await eventually(() => agent.stats.skipped >= 1, 5_000, 'the record after the end');
    expect(handled).toEqual([]);
    const events = await lane(h.log, session);
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
    await eventually(async () => describeLane(await lane(h.log, session)).includes('ack:paused'), 5_000, 'the Paused acknowledgment');
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
    await eventually(async () => describeLane(await lane(h.log, session)).filter((d) => d === 'event:session_unparked').length === 2, 5_000, 'unparkings');
    // The Paused acknowledgment was restored from the lane, so the resume is acknowledged once.
    expect(describeLane(await lane(h.log, session)).filter((d) => d === 'ack:working')).toHaveLength(1);
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
