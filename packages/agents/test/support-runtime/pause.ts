/** Pause / resume helpers (seed 000): operator control records, work, and a session's lane. */
import { Agent, AgentTopic, logPositionOf, type AgdxClient, type AgentHandle } from '@agdx/agents';
import type { LogTransport } from '@agdx/transport';
import { AgentEnvelope, AgentId, ConversationId, CorrelationId, encodeSessionPauseRequest, MintUlid, TaskState, type LogPosition } from '@agdx/wire';
import { eventually, readAll, STREAM, text } from './harness.js';

/** The operator that sends control records. */
export const operator = AgentId.new('operator');

/** Sends an operator control record on agent.control and returns its log position. */
export async function control(laser: AgdxClient, session: ConversationId, operation: string, body: Uint8Array): Promise<LogPosition> {
  const receipt = await laser
    .agdx(AgentTopic.Control, operator, session)
    .command(MintUlid.mint(CorrelationId), body)
    .withOperation(operation)
    .contentType('json')
    .sendReceipt();
  return logPositionOf(receipt.position);
}

/** A `work` command of the planner in `session` on agent.commands, with `label` as body. */
export async function work(laser: AgdxClient, session: ConversationId, label: string): Promise<void> {
  await laser.agdx(AgentTopic.Commands, AgentId.new('planner'), session).command(MintUlid.mint(CorrelationId), text.encode(label)).withOperation('work').send();
}

/** The session's lane records on agent.sessions of `stream`, as envelopes in log order. */
export async function lane(log: LogTransport, session: ConversationId, stream: string = STREAM): Promise<AgentEnvelope[]> {
  return (await readAll(log, AgentTopic.Sessions, stream)).map((r) => AgentEnvelope.decode(r.payload)).filter((e) => e.conversation.equals(session));
}

/** `ack:<state>` / `end:<state>` for session transitions and ends, `<kind>:<operation>` otherwise. */
export function describeLane(envelopes: readonly AgentEnvelope[]): string[] {
  return envelopes.map((e) => {
    if (e.kind === 'status' && e.operation === 'session') {
      const state = e.taskState === TaskState.Paused ? 'paused' : e.taskState === TaskState.Working ? 'working' : e.taskState === TaskState.Canceled ? 'canceled' : String(e.taskState);
      return e.last ? `end:${state}` : `ack:${state}`;
    }
    return `${e.kind}:${e.operation}`;
  });
}

/** Pauses `session` for `worker`, waits for the Paused acknowledgment, then sends `label` and waits until `parked()` counts it. */
export async function pauseAndPark(
  laser: AgdxClient,
  log: LogTransport,
  session: ConversationId,
  worker: AgentId,
  label: string,
  parked: () => number,
): Promise<void> {
  await control(laser, session, 'session_pause', encodeSessionPauseRequest({ participants: [worker] }));
  await eventually(async () => describeLane(await lane(log, session)).includes('ack:paused'), 5_000, 'the Paused acknowledgment');
  const before = parked();
  await work(laser, session, label);
  await eventually(() => parked() === before + 1, 5_000, 'parking');
}

/** An agent `worker` on agent.commands of a fresh connection that pushes each body it handles (as text) to `handled`. */
export function commandsWorker(connect: () => AgdxClient, worker: AgentId, handled: string[]): AgentHandle {
  return Agent.builder()
    .id(worker)
    .listenOn(AgentTopic.Commands)
    .handler((message) => void handled.push(new TextDecoder().decode(message.envelope?.body)))
    .spawn(connect());
}
