import {
  defaultSessionStart,
  keyedPlacementMismatch,
  LIFECYCLE_CONTENT_TYPE,
  locatePartitions,
  NoStreamError,
  readAgentMessage,
  FrontedReplies,
  signerCheck,
  speaksAsSigner,
  type AgdxClient,
  type AgdxSendBuilder,
  type AgentIdLike,
  type PendingReply,
  type ReplySignerPolicy,
  type Signer,
  type SignerCheck,
  type VerifiedPrincipal,
  type AgdxTelemetry,
  tracedServe,
} from '@agdx/agents';
import { cardProtectedHeader, signedCard as signCardJws, type SignedCard, type SigningKey } from '@agdx/sign';
import {
  AgentErrorCode,
  AgentId,
  ContentType,
  ConversationId,
  CorrelationId,
  HeaderName,
  InvalidError,
  readConversationHeader,
  TaskState,
  type AgentEnvelope,
  type RecordHeaders,
  type CapabilityDescriptor,
} from '@agdx/wire';
import { bridgeAgentId, bridgeHopsAfter, jsonBody, nonEmptyName, startChildSession } from '@agdx/bridge-kit';
import { readSendMessageParams, readTaskIdParams } from './params.js';
import { buildAgentCard, type A2aAgentCard } from './card.js';
import { OWN_CANCEL_MEMORY, OwnCancels, positionKey } from './own-cancels.js';
import type { TaskReading } from './counted-replies.js';
import { followTask } from './follow-task.js';
import { parseRpcRequest, PublicErrorMessage, rpcError, rpcErrorFor, rpcResult, rpcServeOutcome, safeRequestId, servedMethodName, type JsonRpcResponse } from '@agdx/bridge-kit';
import { isTerminalA2aState, pendingTask, taskFromEnvelope, taskToJson, type A2aTask } from './task.js';
import { a2aSignableCard } from './signed-card.js';
import { TaskReads, type JudgeRecord, type ReadRecord, type TaskAddress } from './task-reads.js';
import { TaskIndex, TASK_INDEX_LIMIT, type IndexReaders, type RereadReply } from './task-index.js';
import { newTaskId } from './task-id.js';

/** The A2A methods the bridge serves (no ListTasks: the bridge keeps no state outside the log). */
export const A2aMethod: {
  readonly SendMessage: 'SendMessage';
  readonly SendStreamingMessage: 'SendStreamingMessage';
  readonly GetTask: 'GetTask';
  readonly CancelTask: 'CancelTask';
  readonly SubscribeToTask: 'SubscribeToTask';
} = {
  SendMessage: 'SendMessage',
  SendStreamingMessage: 'SendStreamingMessage',
  GetTask: 'GetTask',
  CancelTask: 'CancelTask',
  SubscribeToTask: 'SubscribeToTask',
};
/** An A2A method the bridge serves. */
export type A2aMethod = (typeof A2aMethod)[keyof typeof A2aMethod];
const A2A_METHODS: readonly string[] = Object.values(A2aMethod);

/** How far GetTask looks: passes over the reply topic, records per partition per pass (seed 002). */
export const TASK_SCAN_LIMITS: { readonly passes: 32; readonly recordsPerPartition: 10_000 } = { passes: 32, recordsPerPartition: 10_000 };

/** The message of the error a CancelTask publishes. */
export const CANCEL_MESSAGE: 'canceled by the A2A client' = 'canceled by the A2A client';

/** Options of a submit. */
export interface SubmitOptions {
  /** The agent that takes the task; without it every agent on the request topic receives it. */
  readonly target?: AgentIdLike | undefined;
  /** Aborts the publish. */
  readonly signal?: AbortSignal | undefined;
}

/** Options of {@link A2aBridge.watch}. */
export interface WatchOptions extends SubmitOptions {
  /** How long to wait for the terminal reply, in milliseconds. */
  readonly timeoutMs: number;
}

/** A submitted task whose terminal reply is being awaited. */
export interface WatchedTask {
  /** The task as submitted. */
  readonly task: A2aTask;
  /** The task as the first reply describes it (TimeoutError / CancelledError otherwise). */
  readonly final: Promise<A2aTask>;
  /** Stops waiting. */
  cancel(): void;
}

// The header names each record's conversation: records of other sessions are skipped without
// decoding them, which keeps a scan of a busy reply topic cheap.
function inOtherConversation(headers: RecordHeaders, task: ConversationId): boolean {
  const value = headers.get(HeaderName.ConversationId);
  if (value === undefined) return false;
  try {
    return !readConversationHeader(value, HeaderName.ConversationId).equals(task);
  } catch {
    return false;
  }
}

// True when the record's conversation header is readable and names another id than `task` (text).
function conversationDiffers(headers: RecordHeaders, task: string): boolean {
  const value = headers.get(HeaderName.ConversationId);
  if (value === undefined) return false;
  try {
    return readConversationHeader(value, HeaderName.ConversationId).toString() !== task;
  } catch {
    return false;
  }
}

function taskIdOf(id: string | ConversationId): ConversationId {
  if (id instanceof ConversationId) return id;
  const parsed = typeof id === 'string' ? ConversationId.tryParse(id) : undefined;
  if (parsed === undefined) throw new InvalidError('task id must be a 26-character Crockford ULID', { context: { field: 'id' } });
  return parsed;
}

/**
 * Serves an AGDX agent to A2A v1.0 clients. A task is an AGDX command on the request topic whose
 * conversation and correlation are the task id; its state is read back from the correlated
 * responses and errors on the reply topic (the first terminal one wins). The bridge keeps no
 * state of its own.
 */
export class A2aBridge {
  #client: AgdxClient;
  readonly #id: AgentId;
  readonly #requestTopic: string;
  readonly #replyTopic: string;
  #hops: readonly string[];
  #capabilities: readonly CapabilityDescriptor[] = [];
  #signer: Signer | undefined;
  readonly #replies = new FrontedReplies();
  // task id → position of the unsigned cancel this bridge appended itself.
  readonly #ownCancels = new OwnCancels();
  // task id → where its replies are on the places read so far (the verdicts depend on the reply policy: any change clears it)
  readonly #taskIndex = new TaskIndex(TASK_SCAN_LIMITS, TASK_INDEX_LIMIT);
  // task id → what the bounded per-task scan read of it so far, for tasks the index dropped
  readonly #taskReads = new TaskReads(TASK_SCAN_LIMITS);

  /**
   * A bridge publishing as `id` on `requestTopic` and reading answers on `replyTopic`.
   * @throws InvalidError for an invalid agent id.
   */
  constructor(client: AgdxClient, id: AgentIdLike, requestTopic: string, replyTopic: string) {
    this.#client = client;
    this.#id = bridgeAgentId(id);
    this.#requestTopic = nonEmptyName(requestTopic, 'request topic');
    this.#replyTopic = nonEmptyName(replyTopic, 'reply topic');
    this.#hops = bridgeHopsAfter(this.#id);
  }

  /**
   * Points the bridge at another stream on the same connection (reply hubs stay shared). Use
   * separate credentials when log permissions must keep the streams apart.
   */
  withDefaultStream(stream: string): this {
    this.#client = this.#client.withDefaultStream(stream);
    this.#forgetReads();
    return this;
  }

  /** The bridge's agent id. */
  get id(): AgentId {
    return this.#id;
  }

  /**
   * The telemetry hook of the bridge's client, if any: the HTTP handler reports the calls it
   * serves outside {@link A2aBridge.handleRpc} (streams, blocking SendMessage) to it.
   */
  get telemetry(): AgdxTelemetry | undefined {
    return this.#client.telemetry;
  }

  /** The hop path stamped on what the bridge publishes (ends with this bridge). */
  get bridgeHops(): readonly string[] {
    return this.#hops;
  }

  /** Puts these capability descriptors on the card as skills (replaces earlier ones). */
  withCapabilities(capabilities: readonly CapabilityDescriptor[]): this {
    if (!Array.isArray(capabilities) || !capabilities.every((c) => typeof c === 'object' && c !== null && typeof c.skillId === 'string')) {
      throw new InvalidError('capabilities must be capability descriptors with a skillId', { context: { field: 'capabilities' } });
    }
    this.#capabilities = [...capabilities];
    return this;
  }

  /**
   * The agent this bridge fronts: commands without an explicit target are addressed to it, and
   * with a verifier on the client only replies signed by its key (and speaking as it) count.
   * @throws InvalidError for an invalid agent id.
   */
  forAgent(agent: AgentIdLike): this {
    this.#replies.front(agent);
    this.#forgetReads();
    return this;
  }

  /** The agent this bridge fronts, when set. */
  get frontedAgent(): AgentId | undefined {
    return this.#replies.fronted;
  }

  /**
   * With a verifier on the client: whose signed replies complete a task (streaming and blocking
   * SendMessage, GetTask), instead of the target or the fronted agent. Without it, and without
   * a target or {@link A2aBridge.forAgent}, a verified call fails (HandlerConfigError) rather
   * than trust any enrolled key.
   * @throws InvalidError for an empty list or an invalid agent id.
   */
  withReplySigners(policy: ReplySignerPolicy): this {
    this.#replies.trust(policy);
    this.#forgetReads();
    return this;
  }

  /**
   * Signs the CancelTask terminal with this key (enroll it for the bridge's id). Nothing else the
   * bridge publishes is signed. Without it, GetTask under a verifier trusts only the unsigned
   * cancels this bridge instance appended itself (the newest {@link OWN_CANCEL_MEMORY}).
   */
  withSigningKey(signer: Signer): this {
    this.#signer = signer;
    this.#forgetReads();
    return this;
  }

  /**
   * Continues a path that a call already took through other bridges.
   * @throws InvalidError when the path already holds this bridge (a loop); nothing is published.
   */
  withBridgeHops(previous: readonly string[]): this {
    this.#hops = bridgeHopsAfter(this.#id, previous);
    return this;
  }

  /**
   * How many tasks GetTask's reply index keeps (default {@link TASK_INDEX_LIMIT}); the least
   * recently asked or answered is dropped first, and a dropped task is found again by the bounded
   * scan of its places. Forgets what the index held.
   * @throws InvalidError for a limit that is not an integer from 1 to 16,777,216.
   */
  withTaskIndexLimit(tasks: number): this {
    this.#taskIndex.setLimit(tasks);
    this.#taskReads.clear();
    return this;
  }

  // The verdicts depend on the reply policy and the places on the stream: a change forgets them.
  #forgetReads(): void {
    this.#taskIndex.clear();
    this.#taskReads.clear();
  }

  /** The A2A v1.0 Agent Card (interface URL `/`; the HTTP handler serves it absolute). */
  card(): A2aAgentCard {
    return buildAgentCard(this.#id.value, this.#capabilities);
  }

  /**
   * The card with a detached JWS signature that A2A verifiers accept: the protected header is
   * `{"alg":"EdDSA","kid":<the key's registry key>,"typ":"JOSE"}`, and the card is signed and
   * returned in the form A2A SDKs canonicalize (`a2aSignableCard`: empty members and retired
   * capabilities left out), so `verifyCard` and the official `@a2a-js/sdk` verifier both accept it.
   */
  async signedCard(key: SigningKey, card: A2aAgentCard = this.card()): Promise<SignedCard<A2aAgentCard>> {
    return signCardJws(a2aSignableCard(card), key, cardProtectedHeader(key));
  }

  /**
   * Publishes the SendMessage params as a new task. A Uint8Array or a JSON string rides byte for
   * byte; another value is encoded with JSON.stringify.
   * @throws InvalidError when the params are not JSON; PublishFailedError and friends from the log.
   */
  async submit(params: unknown, options: SubmitOptions = {}): Promise<A2aTask> {
    const task = newTaskId();
    await this.#command(task, jsonBody(params, 'SendMessage params'), options).send({ signal: options.signal });
    return pendingTask(task.toString(), TaskState.Submitted);
  }

  /** {@link submit} addressed to one agent. */
  async submitTo(target: AgentIdLike, params: unknown, options: Omit<SubmitOptions, 'target'> = {}): Promise<A2aTask> {
    return this.submit(params, { ...options, target });
  }

  /**
   * Runs the task as a child session of `parent` (in the tree rooted at `root`): a submitted
   * start with that ancestry goes to agent.sessions first, then the command carries the same
   * ancestry. The handling agent ends the child; if the command fails after the start, the child
   * stays open.
   */
  async submitIn(parent: ConversationId, root: ConversationId, params: unknown, options: SubmitOptions = {}): Promise<A2aTask> {
    const body = jsonBody(params, 'SendMessage params');
    const task = newTaskId();
    await startChildSession(this.#client, task, this.#id, { parent, root }, options.signal);
    await this.#command(task, body, options).withParent(parent, root).send({ signal: options.signal });
    return pendingTask(task.toString(), TaskState.Submitted);
  }

  /**
   * Submits and follows the task: the wait is registered before the command is published, so the
   * first reply cannot slip past. Used by the streaming endpoint.
   */
  async watch(params: unknown, options: WatchOptions): Promise<WatchedTask> {
    const body = jsonBody(params, 'SendMessage params');
    const task = newTaskId();
    const correlation = CorrelationId.fromBytes(task.toBytes());
    const pending: PendingReply = await this.#client.replies(this.#replyTopic, { requester: this.#id }).expect({
      correlation,
      conversation: task,
      requester: this.#id,
      expectFrom: this.#replies.policyFor(this.#replies.targetOf(options.target), this.#client.verifier !== undefined),
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      timeoutMessage: 'the A2A task reply',
    });
    try {
      await this.#command(task, body, options).send({ signal: options.signal });
    } catch (error) {
      pending.cancel();
      throw error;
    }
    const id = task.toString();
    const final = pending.reply.then((message) => {
      if (message.envelope === undefined) throw new InvalidError('the task reply is not an AGDX envelope');
      return taskFromEnvelope(id, message.envelope);
    });
    return { task: pendingTask(id, TaskState.Submitted), final, cancel: () => pending.cancel() };
  }

  /**
   * Follows a task that was submitted earlier (A2A SubscribeToTask, what a client uses to
   * reconnect to a stream it lost): the wait for its reply is registered first, then the log is
   * read, so a reply cannot slip between the two. `task` is the task as GetTask reads it now;
   * when that is already terminal, `final` is the same task and nothing is awaited.
   * @throws InvalidError for an id that is not a ULID; HandlerConfigError, NoStreamError as for {@link A2aBridge.task}.
   */
  async follow(id: string | ConversationId, options: { readonly timeoutMs: number; readonly signal?: AbortSignal | undefined }): Promise<WatchedTask> {
    const taskId = taskIdOf(id);
    const text = taskId.toString();
    const replies = this.#client.replies(this.#replyTopic, { requester: this.#id });
    const clock = this.#client.clock;
    const followed = await followTask(
      {
        expect: (timeoutMs) =>
          replies.expect({
            correlation: CorrelationId.fromBytes(taskId.toBytes()),
            conversation: taskId,
            requester: this.#id,
            expectFrom: this.#replies.policyFor(undefined, this.#client.verifier !== undefined),
            timeoutMs,
            signal: options.signal,
            timeoutMessage: 'the A2A task reply',
          }),
        read: () => this.#readTask(taskId, options.signal, true),
        taskOf: (message) => {
          if (message.envelope === undefined) throw new InvalidError('the task reply is not an AGDX envelope');
          return taskFromEnvelope(text, message.envelope);
        },
        nowMs: () => Number(clock.nowMicros() / 1000n),
      },
      options.timeoutMs,
    );
    return { task: followed.now ?? pendingTask(text, TaskState.Working), final: followed.final, cancel: () => followed.cancel() };
  }

  /**
   * The task as the reply topic tells it, continuing the kept read of the partitions the client's stream
   * layout puts the task's replies on (the task's partition, plus the bridge's declared topic or
   * partition; at most {@link TASK_SCAN_LIMITS} deep per partition from its start), reading only
   * what was appended since the previous call for this task (`KEPT_TASK_READS` tasks are kept;
   * a recreated topic starts over): the first terminal response or error whose correlation is the
   * task id, else the latest non-terminal one (InputRequired, for example; a reply whose record id
   * already counted for the task is a copy and does not count again). Without any, or for an id
   * nobody submitted, the task reads Working. With a verifier on the client, a reply counts only
   * when it verifies, speaks as the agent its key is enrolled for, and that agent passes
   * {@link A2aBridge.withReplySigners} (default the fronted agent); the bridge's own cancels count
   * when signed by its key, or, unsigned, when this instance appended them.
   * @throws InvalidError for an id that is not a ULID; HandlerConfigError for a verifier without
   * a reply policy; NoStreamError without a default stream; LayoutMismatchError when the log
   * lacks the layout's declared topic or partition, or a keyed (shared) reader meets a record a
   * partition-per-agent writer put off its conversation's partition.
   */
  async task(id: string | ConversationId, options: { readonly signal?: AbortSignal | undefined } = {}): Promise<A2aTask> {
    const taskId = taskIdOf(id);
    return (await this.#findTask(taskId, options.signal)) ?? pendingTask(taskId.toString(), TaskState.Working);
  }

  /**
   * Publishes the cancel terminal (an AGDX error, code Cancelled, task state Canceled) on the
   * reply topic, then answers the task as GetTask now reads it: Canceled, unless another terminal
   * reached the log first (the first terminal wins), in which case that one (Completed, say) is
   * the answer, so CancelTask, GetTask and AG-UI tell one story. It does not check that the task
   * exists.
   */
  async cancel(id: string | ConversationId, options: { readonly signal?: AbortSignal | undefined } = {}): Promise<A2aTask> {
    const taskId = taskIdOf(id);
    const builder = this.#client
      .agdx(this.#replyTopic, this.#id, taskId)
      .fail(CorrelationId.fromBytes(taskId.toBytes()), { code: AgentErrorCode.Cancelled, message: CANCEL_MESSAGE, retryable: false })
      .withTaskState(TaskState.Canceled)
      .withBridgeHops(this.#hops);
    if (this.#signer !== undefined) builder.signedBy(this.#signer);
    // No GetTask may pass over the cancel before its position is remembered: neither the index
    // (which reads every task's replies) nor a scan of this task.
    await this.#taskReads.exclusive(taskId.toString(), () =>
      this.#taskIndex.exclusive(async () => {
        const receipt = await builder.sendReceipt({ signal: options.signal });
        if (this.#signer === undefined && this.#client.verifier !== undefined) this.#ownCancels.remember(taskId.toString(), positionKey(receipt.position));
      }),
    );
    const settled = await this.#findTask(taskId, options.signal);
    // Our cancel is on the log, so a scan that finds no terminal (it is beyond the scan limits,
    // or a verifier refused every reply) still leaves the task canceled.
    const earlier = settled !== undefined && isTerminalA2aState(settled.state) && !(settled.state.kind === 'known' && settled.state.name === 'Canceled');
    return earlier ? settled : pendingTask(taskId.toString(), TaskState.Canceled);
  }

  /**
   * Serves one JSON-RPC request without HTTP: SendMessage, SendStreamingMessage (answered with the
   * submitted task; the HTTP handler streams it), GetTask and CancelTask. Params are checked with
   * a zod schema per method. Every failure is a response with code -32000 and a fixed public
   * message; a refused field is named in the error's `data` (`{field, reason}`). It never throws.
   * Aborting `options.signal` (the HTTP handler passes the request's, so a client that goes away)
   * stops the call's publish or its read of the reply topic (answered `internal error`).
   */
  async handleRpc(request: unknown, options: { readonly signal?: AbortSignal | undefined } = {}): Promise<JsonRpcResponse> {
    let parsed: ReturnType<typeof parseRpcRequest>;
    try {
      parsed = parseRpcRequest(request);
    } catch {
      // A hostile object (a throwing getter or proxy) is a malformed request too.
      return rpcError(null, PublicErrorMessage.InvalidRequest);
    }
    if (parsed === undefined) return rpcError(safeRequestId(request), PublicErrorMessage.InvalidRequest);
    const call = parsed;
    // The method is the client's text: one the bridge does not serve is reported as `_OTHER`.
    const method = servedMethodName(call.method, A2A_METHODS);
    const signal = options?.signal;
    return tracedServe(this.#client.telemetry, () => ({ protocol: 'a2a', method, agent: this.#id }), () => this.#serve(call, signal), (answer) => rpcServeOutcome(answer, answeredTaskId));
  }

  // One parsed call; every failure becomes an error response.
  async #serve(parsed: NonNullable<ReturnType<typeof parseRpcRequest>>, signal: AbortSignal | undefined): Promise<JsonRpcResponse> {
    try {
      switch (parsed.method) {
        case A2aMethod.SendMessage:
        case A2aMethod.SendStreamingMessage:
          readSendMessageParams(parsed.params, parsed.method);
          return rpcResult(parsed.id, { task: taskToJson(await this.submit(parsed.params, { signal })) });
        case A2aMethod.GetTask:
          return rpcResult(parsed.id, taskToJson(await this.task(readTaskIdParams(parsed.params, parsed.method).id, { signal })));
        case A2aMethod.SubscribeToTask:
          // Without HTTP there is no stream to keep open: the task as it stands (the HTTP handler streams it).
          return rpcResult(parsed.id, taskToJson(await this.task(readTaskIdParams(parsed.params, parsed.method).id, { signal })));
        case A2aMethod.CancelTask:
          return rpcResult(parsed.id, taskToJson(await this.cancel(readTaskIdParams(parsed.params, parsed.method).id, { signal })));
        default:
          return rpcError(parsed.id, PublicErrorMessage.UnsupportedOperation);
      }
    } catch (error) {
      return rpcErrorFor(parsed.id, error);
    }
  }

  #command(task: ConversationId, body: Uint8Array, options: SubmitOptions): AgdxSendBuilder {
    const builder = this.#client
      .agdx(this.#requestTopic, this.#id, task)
      .command(CorrelationId.fromBytes(task.toBytes()), body)
      .withOperation('chat')
      .contentType(ContentType.json)
      .withBridgeHops(this.#hops);
    const target = this.#replies.targetOf(options.target);
    if (target !== undefined) builder.withTarget(target);
    return builder;
  }

  // Under a verifier: a signed reply from an accepted agent, or the bridge's own cancel (signed
  // by its key, or unsigned at the very position this instance appended it).
  async #trusted(envelope: AgentEnvelope, record: ReadRecord, at: { stream: string; topic: string }, task: string, allowed: SignerCheck): Promise<boolean> {
    const ownCancel = envelope.kind === 'error' && envelope.taskState === TaskState.Canceled && envelope.source.value === this.#id.value;
    if (ownCancel && envelope.signature === undefined) return this.#ownCancels.get(task) === positionKey({ ...at, partition: record.partition, offset: record.offset });
    let signer: VerifiedPrincipal;
    try {
      signer = await (this.#client.verifier as NonNullable<AgdxClient['verifier']>).verifyAt(envelope, record.timestampMicros, record.headers);
    } catch {
      return false;
    }
    if (!speaksAsSigner(envelope, signer)) return false;
    return (ownCancel && signer.principal === this.#id.value) || allowed(signer, envelope);
  }

  // The first terminal reply wins; without one, the latest non-terminal reply (InputRequired, …)
  // tells where the task stands. The reply index continues from where the previous GetTask of any
  // task ended; a task it dropped is scanned for on its own places, as seed 002 describes.
  async #findTask(task: ConversationId, signal: AbortSignal | undefined): Promise<A2aTask | undefined> {
    return (await this.#readTask(task, signal, false)).task;
  }

  // #findTask, and with `withCounted` a copy of the record ids of the task's non-terminal replies
  // that counted, taken with the answer (what SubscribeToTask passes over).
  async #readTask(task: ConversationId, signal: AbortSignal | undefined, withCounted: boolean): Promise<TaskReading> {
    const id = task.toString();
    const stream = this.#client.defaultStream;
    if (stream === undefined) throw new NoStreamError();
    const transport = this.#client.transport;
    // Replies to this bridge and its own cancels live where the layout routes them for the task:
    // the task's partition of the reply topic, and the bridge's declared topic or partition.
    const addresses: TaskAddress[] = await locatePartitions(transport, stream, this.#client.layout, { topic: this.#replyTopic, conversation: id, agent: this.#id.value }, signal);
    const allowed = this.#allowedSigners();
    const answer = await this.#taskIndex.lookup(id, transport, addresses, this.#indexReaders(allowed), signal, withCounted);
    if (answer.kind === 'found') return { task: answer.task, counted: answer.counted };
    if (answer.kind === 'none') return { task: undefined, counted: undefined };
    return this.#taskReads.reading(id, transport, addresses, this.#scanJudge(task, allowed), signal);
  }

  // Under a verifier, the check a reply's signer must pass (HandlerConfigError without a policy).
  #allowedSigners(): SignerCheck | undefined {
    const policy = this.#replies.policyFor(undefined, this.#client.verifier !== undefined);
    return policy === undefined || this.#client.verifier === undefined ? undefined : signerCheck(policy, 'replySigners');
  }

  // A record that contradicts the layout fails the read: a keyed reader meeting a record that a
  // partition-per-agent writer put off its conversation's partition reads the wrong partitions.
  async #checkPlacement(record: ReadRecord, at: TaskAddress & { readonly partitionCount: number }): Promise<void> {
    const mismatch = await keyedPlacementMismatch(this.#client.layout, { ...at, offset: record.offset, headers: record.headers });
    if (mismatch !== undefined) throw mismatch;
  }

  // The reply a record is, for any task: a response or error whose correlation names the task and
  // whose conversation header (when it has one) names the same id. Under a verifier it counts only
  // once trusted, which is checked when its task is asked (`settle`): the index meets every
  // task's replies, and verifying each of them up front would cost a signature check per reply.
  #indexReaders(allowed: SignerCheck | undefined): IndexReaders {
    return {
      judge: async (record, at) => {
        await this.#checkPlacement(record, at);
        const envelope = replyEnvelope(record, at);
        if (envelope?.correlation === undefined) return undefined;
        const task = envelope.correlation.toString();
        if (conversationDiffers(record.headers, task)) return undefined;
        return { task, found: taskFromEnvelope(task, envelope), record: envelope.record, unverified: allowed !== undefined };
      },
      reread: rereadReply,
      settle: async (record, at, task) => {
        const envelope = replyEnvelope(record, at);
        if (envelope === undefined || allowed === undefined || !(await this.#trusted(envelope, record, at, task, allowed))) return undefined;
        return { found: taskFromEnvelope(task, envelope), record: envelope.record };
      },
    };
  }

  // The scan of one task's places, for a task the index dropped: records of other conversations
  // are skipped without being decoded.
  #scanJudge(task: ConversationId, allowed: SignerCheck | undefined): JudgeRecord {
    const id = task.toString();
    return async (record, at) => {
      if (inOtherConversation(record.headers, task)) {
        await this.#checkPlacement(record, at);
        return undefined;
      }
      const envelope = replyEnvelope(record, at);
      if (envelope?.correlation === undefined || !envelope.correlation.equals(task)) return undefined;
      if (allowed !== undefined && !(await this.#trusted(envelope, record, at, id, allowed))) return undefined;
      return { found: taskFromEnvelope(id, envelope), record: envelope.record };
    };
  }
}

// The response or error a record carries, `undefined` for anything else or what does not decode.
function replyEnvelope(record: ReadRecord, at: TaskAddress & { readonly partitionCount: number }): AgentEnvelope | undefined {
  let envelope: AgentEnvelope | undefined;
  try {
    envelope = readAgentMessage(record, at).envelope;
  } catch {
    return undefined;
  }
  return envelope !== undefined && (envelope.kind === 'response' || envelope.kind === 'error') ? envelope : undefined;
}

// A kept reply read back: it was judged when the index met it, so it only needs decoding again.
const rereadReply: RereadReply = (record, at, task) => {
  const envelope = replyEnvelope(record, at);
  return envelope === undefined ? undefined : taskFromEnvelope(task, envelope);
};

/**
 * The task a successful answer names, for the serve span: `{ task: { id } }` for SendMessage,
 * `{ id }` for the others.
 */
export function answeredTaskId(result: unknown): string | undefined {
  const task = (result as { task?: { id?: unknown } } | null)?.task ?? result;
  const id = (task as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : undefined;
}
