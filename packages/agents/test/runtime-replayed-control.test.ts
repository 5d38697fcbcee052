/**
 * An attacker who can append to `agent.control` but holds no operator key copies an operator's
 * signed control record and appends it again. The copy verifies (same bytes, same key, a key
 * still valid), so without a memory of what was applied it would re-pause a session the operator
 * resumed, or cancel one again. A control record id already applied to a session applies no more.
 */
import { Agent, AgentTopic, SkippedRecordError, type AgdxClient } from '@agdx/agents';
import { KeyKind, KeyRegistry, SigningKey } from '@agdx/sign';
import type { LogRecord } from '@agdx/transport';
import { AgentId, ConversationId, CorrelationId, encodeSessionPauseRequest, MintUlid } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { eventually, harness, readAll, STREAM, text } from './support-runtime/harness.js';

const operator = AgentId.new('operator');
const worker = AgentId.new('worker');

async function signedControl(laser: AgdxClient, key: SigningKey, session: ConversationId, operation: string, body: Uint8Array): Promise<void> {
  await laser.agdx(AgentTopic.Control, operator, session).command(MintUlid.mint(CorrelationId), body).withOperation(operation).withTarget(worker).signedBy(key).send();
}

function spawnWorker(laser: AgdxClient, registry: KeyRegistry, reported: unknown[] = []) {
  return Agent.builder()
    .id(worker)
    .listenOn(AgentTopic.Commands)
    .verifier(registry)
    .heartbeats(false)
    .onError((e) => reported.push(e))
    .handler(() => undefined)
    .spawn(laser);
}

describe('a replayed operator control record (verifier on)', () => {
  it('does not re-pause a session the operator resumed, live or when a new agent folds the history', async () => {
    const { log, laser } = await harness();
    const operatorKey = SigningKey.fromBytes(new Uint8Array(32).fill(71));
    const registry = new KeyRegistry();
    registry.enroll('operator', operatorKey, KeyKind.Operator);
    const session = ConversationId.new();
    const marker = ConversationId.new();
    const reported: unknown[] = [];
    {
      await using agent = spawnWorker(laser, registry, reported);
      await agent.ready();
      await signedControl(laser, operatorKey, session, 'session_pause', encodeSessionPauseRequest({ participants: [worker] }));
      await eventually(() => agent.pendingControl(session.toString()).pauseRequested, 5_000, 'the pause');
      await signedControl(laser, operatorKey, session, 'session_resume', text.encode('{}'));
      await eventually(() => !agent.pendingControl(session.toString()).pauseRequested, 5_000, 'the resume');

      // The attacker copies the operator's pause record, headers and payload, byte for byte.
      const [pause] = (await readAll(log, AgentTopic.Control)).filter((r: LogRecord) => r.offset === 0n);
      expect(pause).toBeDefined();
      const copy = pause as LogRecord;
      await log.append({ stream: STREAM, topic: AgentTopic.Control, routing: { partition: copy.partition }, records: [{ headers: copy.headers, payload: copy.payload }] });
      // A later genuine pause of another session shows the follower has read past the copy.
      await signedControl(laser, operatorKey, marker, 'session_pause', encodeSessionPauseRequest({ participants: [worker] }));
      await eventually(() => agent.pendingControl(marker.toString()).pauseRequested, 5_000, 'the marker pause');
      expect(agent.pendingControl(session.toString()).pauseRequested).toBe(false);
      const replays = reported.filter((e): e is SkippedRecordError => e instanceof SkippedRecordError && e.reason === 'replayed');
      expect(replays.map((e) => e.position.offset)).toEqual([2n]);
    }
    // A worker started now folds pause, resume, copy of the pause: the session stays resumed.
    await using later = spawnWorker(laser, registry);
    await later.ready();
    await eventually(() => later.pendingControl(marker.toString()).pauseRequested, 5_000, 'the folded marker pause');
    expect(later.pendingControl(session.toString()).pauseRequested).toBe(false);
  });

  it('still applies a fresh pause after a resume (a new record id)', async () => {
    const { laser } = await harness();
    const operatorKey = SigningKey.fromBytes(new Uint8Array(32).fill(72));
    const registry = new KeyRegistry();
    registry.enroll('operator', operatorKey, KeyKind.Operator);
    const session = ConversationId.new();
    await using agent = spawnWorker(laser, registry);
    await agent.ready();
    await signedControl(laser, operatorKey, session, 'session_pause', encodeSessionPauseRequest({ participants: [worker] }));
    await eventually(() => agent.pendingControl(session.toString()).pauseRequested, 5_000, 'the first pause');
    await signedControl(laser, operatorKey, session, 'session_resume', text.encode('{}'));
    await eventually(() => !agent.pendingControl(session.toString()).pauseRequested, 5_000, 'the resume');
    await signedControl(laser, operatorKey, session, 'session_pause', encodeSessionPauseRequest({ participants: [worker] }));
    await eventually(() => agent.pendingControl(session.toString()).pauseRequested, 5_000, 'the second pause');
  });
});
