/**
 * The handler context: answers to the handled message. Every answer carries the handled
 * correlation, is addressed to the requester (target = the original source), names its cause
 * (the handled record id) and cause_at (its log position), and is signed when the agent has a
 * signing key. Sends go through the client, so its ActionGovernor checks each one.
 */
import {

  CorrelationId,
  TaskState,
  type AgentErrorBody,
  type AgentId,
  type ConversationId,
  type LogPosition,
  type SessionEnd,
  type SessionStart,
} from '@agdx/wire';
import type { AgdxClient } from '../client/agdx-client.js';
import { AgentTopic } from '../client/agent-topic.js';
import type { PauseController, PendingControl } from '../control/pause-controller.js';
import { HandlerConfigError } from '../errors.js';
import type { SessionLifecycle } from '../lifecycle/session-lifecycle.js';
import type { HeartbeatRegistry, SessionLease } from '../lifecycle/heartbeats.js';
import type { AgentMessage } from '../message/agent-message.js';
import type { ReplySignerPolicy } from '../replies/reply-signers.js';
import type { Verifier } from '../replies/verifier.js';
import type { AgdxSendBuilder } from '../send/agdx-send-builder.js';
import type { AppendIssuer, PreparedAppend } from '../send/append-issuer.js';
import type { Signer } from '../send/signer.js';
import type { AgdxChunkWriter } from '../streaming/chunk-writer.js';
import { logPositionOf } from './log-position.js';

/** Options of {@link AgentCtx.approvalGate}. */
export interface ApprovalGateOptions {
  /** Aborting rejects the wait with CancelledError. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Who may decide (required when the client or the agent has a verifier): the prompt is
   * unaddressed, so without it any enrolled agent could approve.
   */
  readonly expectFrom?: ReplySignerPolicy | undefined;
}

/**
 * The runtime's hold on one handler attempt (see handler-attempt.ts): its signal, whether it may
 * still have effects, and where the context notes that the request was answered.
 */
export interface AttemptGate {
  /** Aborts when the attempt times out, the agent stops or the partition's lease is lost. */
  readonly signal: AbortSignal;
  /** The typed error the attempt's answers are refused with from then on, or undefined while they are not. */
  refusal(): Error | undefined;
  /** A response or error answering the handled request was issued. */
  markAnswered(): void;
}

/** What the runtime gives every context. */
export interface AgentCtxInit {
  /** The client sends go through (its governor checks each one). */
  readonly client: AgdxClient;
  /** The handled message. */
  readonly message: AgentMessage;
  /** This agent. */
  readonly agent: AgentId;
  /** Where answers go, when configured. */
  readonly respondOn: string | undefined;
  /** Signs answers, when configured. */
  readonly signer: Signer | undefined;
  /** Writes the session's lifecycle records. */
  readonly lifecycle: SessionLifecycle;
  /** The session control state, when control is followed. */
  readonly pause: PauseController | undefined;
  /** Session leases, when heartbeats are on. */
  readonly heartbeats: HeartbeatRegistry | undefined;
  /** The handler attempt, 0 for the first. */
  readonly attempt: number;
  /** The attempt's signal and effect gate; without it the signal never aborts and nothing is refused. */
  readonly gate?: AttemptGate | undefined;
  /** Takes the answers' appends when they are pipelined; without it every answer is awaited. */
  readonly issuer?: AppendIssuer | undefined;
  /**
   * The agent's own verifier, when it has one: its approval gates verify the decision with it
   * when the client has none, so an agent that verifies never takes an unsigned decision.
   */
  readonly verifier?: Verifier | undefined;
}

/** What a handler receives beside the message. */
export class AgentCtx {
  readonly #init: AgentCtxInit;
  readonly #issuer: AppendIssuer | undefined;
  #position: LogPosition | undefined;
  #idle: AbortSignal | undefined;

  /** @internal The runtime builds contexts. */
  constructor(init: AgentCtxInit) {
    this.#init = init;
    const issuer = init.issuer;
    const gate = init.gate;
    this.#issuer = issuer === undefined || gate === undefined ? issuer : new GatedIssuer(issuer, gate);
  }

  /**
   * Aborts when this handler attempt should stop: its `handlerTimeout` or the command's own
   * deadline passed (reason a `TimeoutError` saying which), the agent hard-stopped (`abort()`,
   * or `shutdown()` past its grace), or the partition's lease was lost to a rebalance (both a
   * `CancelledError`). Pass it to the model call, `fetch` or tool the handler waits on. Once it
   * aborted, the context's answers are refused with the same error.
   */
  get signal(): AbortSignal {
    return this.#init.gate?.signal ?? (this.#idle ??= new AbortController().signal);
  }

  /** The client the agent runs on (its governor checks every send). */
  get client(): AgdxClient {
    return this.#init.client;
  }

  /** The handled message. */
  get message(): AgentMessage {
    return this.#init.message;
  }

  /** This agent's id. */
  get agent(): AgentId {
    return this.#init.agent;
  }

  /** The agent's id (alias of {@link AgentCtx.agent}). */
  get agentId(): AgentId {
    return this.#init.agent;
  }

  /** The topic answers go to, when configured. */
  get respondOn(): string | undefined {
    return this.#init.respondOn;
  }

  /** The handler attempt, 0 for the first. */
  get attempt(): number {
    return this.#init.attempt;
  }

  /** The handled session (the conversation). */
  get conversation(): ConversationId {
    return this.#init.message.provenance.conversation;
  }

  /** The pause and cancel flags of the handled session (the runtime never interrupts a handler). */
  pendingControl(): PendingControl {
    return this.#init.pause?.pendingControl(this.conversation.toString()) ?? { pauseRequested: false, cancelRequested: false };
  }

  /** True when an operator asked to cancel the handled session. */
  cancelRequested(): boolean {
    return this.pendingControl().cancelRequested;
  }

  /**
   * Answers with a response on `respondOn`.
   * @throws HandlerConfigError without `respondOn` or without a correlation to answer.
   */
  respond(body: Uint8Array): Promise<void> {
    // Not an async function: the answer's own send is the only promise (one frame less per
    // answer); a configuration or refinement error still arrives as a rejection.
    try {
      this.#checkGate();
      const topic = this.#respondTopic('respond()');
      return this.#send(this.#answer(this.#init.client.agdx(topic, this.agent, this.conversation).respond(this.#correlation('respond()'), body)), true);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Answers an input request (`requestInput` / `approvalGate`) with a response on `replyTopic`.
   * @throws HandlerConfigError when the handled message has no correlation.
   */
  async respondInput(replyTopic: string, body: Uint8Array): Promise<void> {
    this.#checkGate();
    await this.#send(this.#answer(this.#init.client.agdx(replyTopic, this.agent, this.conversation).respond(this.#correlation('respondInput()'), body)), true);
  }

  /**
   * Asks a human (or an approver agent) and waits for the decision: the prompt goes unaddressed
   * on `agent.sessions` in the handled conversation, the answer is awaited on `replyTopic`.
   * @throws TimeoutError; CancelledError; RejectedError when the approver answered with an error;
   * InvalidError when a verifier is in force and `expectFrom` is not set. The decision is verified
   * with the client's verifier, else the agent's (`verifier(v)` on its builder).
   */
  async approvalGate(replyTopic: string, prompt: Uint8Array, timeoutMs: number, options: ApprovalGateOptions = {}): Promise<Uint8Array> {
    this.#checkGate();
    const client = this.#init.client;
    // Without a signal of its own the wait ends with the attempt (its timeout, a stop, a lost lease).
    const signal = options.signal ?? (this.#init.gate === undefined ? undefined : this.signal);
    return client
      .agdx(AgentTopic.Sessions, this.agent, this.conversation)
      .requestInput(replyTopic, prompt, timeoutMs, { signal, expectFrom: options.expectFrom, verifier: client.verifier ?? this.#init.verifier });
  }

  /** Emits an event on `respondOn`, tied to the handled request. */
  async emit(body: Uint8Array): Promise<void> {
    this.#checkGate();
    const topic = this.#respondTopic('emit()');
    const builder = this.#init.client.agdx(topic, this.agent, this.conversation).emit(body);
    const correlation = this.#maybeCorrelation();
    if (correlation !== undefined) builder.withCorrelation(correlation);
    await this.#send(this.#answer(builder), false);
  }

  /** Reports the task state of the handled request (status `task`) on `respondOn`. */
  async status(taskState: number): Promise<void> {
    this.#checkGate();
    const topic = this.#respondTopic('status()');
    const builder = this.#init.client
      .agdx(topic, this.agent, this.conversation)
      .status('task')
      .withCorrelation(this.#correlation('status()'))
      .withTaskState(taskState);
    await this.#send(this.#answer(builder), false);
  }

  /** Answers with an error (CBOR AgentErrorBody) on `respondOn`. */
  async fail(error: AgentErrorBody): Promise<void> {
    this.#checkGate();
    const topic = this.#respondTopic('fail()');
    await this.#send(this.#answer(this.#init.client.agdx(topic, this.agent, this.conversation).fail(this.#correlation('fail()'), error)), true);
  }

  /**
   * Opens a chunk stream answering the handled request on `respondOn`, addressed to the
   * requester and naming the request as its cause. Chunk writers never sign.
   */
  stream(purpose: string): AgdxChunkWriter {
    const topic = this.#respondTopic('stream()');
    const writer = this.#init.client.agdx(topic, this.agent, this.conversation).stream(this.#correlation('stream()'), purpose);
    const requester = this.#requester();
    if (requester !== undefined) writer.withTarget(requester);
    const record = this.#init.message.envelope?.record;
    if (record !== undefined) writer.withCause(record, this.#causeAt());
    const issuer = this.#issuer;
    if (issuer !== undefined) writer.pipelineInto(issuer);
    const gate = this.#init.gate;
    if (gate !== undefined) writer.gatedBy(() => gate.refusal());
    return writer;
  }

  /**
   * Writes the session start on the session lane (`agent.sessions`); false when this process
   * already saw the session end.
   */
  async startSession(start: Partial<Omit<SessionStart, 'agent' | 'sdk'>> = {}, taskState: number = TaskState.Working): Promise<boolean> {
    this.#checkGate();
    return this.#init.lifecycle.start(this.conversation, start, taskState);
  }

  /** Writes a non-terminal session transition (Working, InputRequired, …) on the session lane. */
  async transitionSession(taskState: number): Promise<boolean> {
    this.#checkGate();
    return this.#init.lifecycle.transition(this.conversation, taskState);
  }

  /**
   * Ends the session with a terminal task state; the first terminal wins, so a second end (from
   * this process) is not written and returns false.
   */
  async endSession(taskState: number, end: SessionEnd = {}): Promise<boolean> {
    this.#checkGate();
    return this.#init.lifecycle.end(this.conversation, taskState, end);
  }

  /**
   * Holds a lease on the handled session beyond this handler, so heartbeats keep listing it;
   * release it when the work is done. `undefined` when heartbeats are off.
   */
  lease(idleTimeoutMs?: number): SessionLease | undefined {
    return this.#init.heartbeats?.acquire(this.conversation, idleTimeoutMs);
  }

  // Pipelined (the runtime's default), an answer is issued and its acknowledgment tracked by the
  // runtime, which commits the handled record only once every answer is acknowledged.
  // An answer (a response or error) is noted once it went out, so a record dead-lettered later
  // does not get a second, runtime-made answer; pipelined, the gated issuer notes it as it issues.
  #send(builder: AgdxSendBuilder, answers: boolean): Promise<void> {
    const issuer = this.#issuer;
    if (issuer !== undefined) return builder.issueVia(issuer);
    const gate = this.#init.gate;
    return builder.send().then(answers && gate !== undefined ? () => gate.markAnswered() : nothing);
  }

  /** Refuses an effect of an attempt that ended (timed out, stopped, lease lost) with its typed error. */
  #checkGate(): void {
    const refusal = this.#init.gate?.refusal();
    if (refusal !== undefined) throw refusal;
  }

  #answer(builder: AgdxSendBuilder): AgdxSendBuilder {
    const requester = this.#requester();
    if (requester !== undefined) builder.withTarget(requester);
    const record = this.#init.message.envelope?.record;
    if (record !== undefined) builder.withCause(record, this.#causeAt());
    if (this.#init.signer !== undefined) builder.signedBy(this.#init.signer);
    return builder;
  }

  #causeAt(): LogPosition {
    return (this.#position ??= logPositionOf(this.#init.message.id));
  }

  #requester(): AgentId | undefined {
    return this.#init.message.envelope?.source ?? this.#init.message.provenance.agent;
  }

  #respondTopic(what: string): string {
    const topic = this.#init.respondOn;
    if (topic === undefined) throw new HandlerConfigError(`${what} requires the agent to configure respondOn`);
    return topic;
  }

  #maybeCorrelation(): CorrelationId | undefined {
    const envelope = this.#init.message.envelope;
    if (envelope !== undefined) return envelope.correlation;
    const text = this.#init.message.provenance.correlation;
    return text === undefined ? undefined : CorrelationId.tryParse(text);
  }

  #correlation(what: string): CorrelationId {
    const correlation = this.#maybeCorrelation();
    if (correlation === undefined) throw new HandlerConfigError(`${what} needs a handled message with a correlation`);
    return correlation;
  }
}

/** Drops a send's record id: a context's answers resolve with nothing. */
function nothing(): void {}

/**
 * The answer pipeline of one attempt behind its gate: an append prepared after the attempt ended
 * (a governor or signer awaited past the deadline) is refused at issue, and a response or error
 * issued notes the request as answered.
 */
class GatedIssuer implements AppendIssuer {
  readonly #inner: AppendIssuer;
  readonly #gate: AttemptGate;

  constructor(inner: AppendIssuer, gate: AttemptGate) {
    this.#inner = inner;
    this.#gate = gate;
  }

  issue(append: PreparedAppend): Promise<void> | undefined {
    const refusal = this.#gate.refusal();
    if (refusal !== undefined) return Promise.reject(refusal);
    if (append.kind === 'response' || append.kind === 'error') this.#gate.markAnswered();
    return this.#inner.issue(append);
  }
}
