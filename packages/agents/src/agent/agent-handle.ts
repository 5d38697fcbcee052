/// <reference lib="esnext.disposable" preserve="true" />
/**
 * A running agent: the reliable consumer over the agent's consumer group, the control follower,
 * heartbeats, and the handler contexts, all on one client.
 */
import type { LogRecord } from '@agdx/transport';
import { AgdxError, AgentEnvelope, ContentType, MintUlid, RecordId, TaskState, type AgentErrorBody, type AgentId } from '@agdx/wire';
import type { Signer } from '../send/signer.js';
import { AgdxClient } from '../client/agdx-client.js';
import { AgentTopic } from '../client/agent-topic.js';
import { consumedPartitions } from '../layouts/stream-layout.js';
import { CONTROL_HISTORY_LIMIT, ControlFollower } from '../control/control-follower.js';
import { PauseController } from '../control/pause-controller.js';
import { DeadLetterWriter } from '../dead-letter/dead-letter.js';
import { SlidingWindowKeyStore } from '../dedup/sliding-window.js';
import { AGENT_CONTROL_TOPIC, classifyEnvelope, DispatchClass } from '../dispatch/classify.js';
import { checkLayoutDeclaration } from '../layouts/layout-declaration-check.js';
import { LayoutMismatchError, NoStreamError, SkippedRecordError, TimeoutError, type SkipReason } from '../errors.js';
import { HeartbeatRegistry, type SessionLease } from '../lifecycle/heartbeats.js';
import { SessionLifecycle } from '../lifecycle/session-lifecycle.js';
import { readAgentMessage, type AgentMessage } from '../message/agent-message.js';
import { signedByAgent, speaksAsSigner } from '../replies/reply-signers.js';
import type { VerifiedPrincipal } from '../replies/verifier.js';
import type { AgentConfig, AgentHandler } from './agent-config.js';
import { AgentCtx } from './agent-ctx.js';
import { AnswerEffects, AppendWindow } from './answer-pipeline.js';
import type { HandlerTurn } from './handler-turn.js';
import { OrderedAppender } from '../send/ordered-appender.js';
import { afterMacrotask } from '../clock/after-burst.js';
import { parallelismOf } from './concurrency.js';
import { ConsumerLoop } from './consumer-loop.js';
import { logPositionOf, nameId, type RecordAddress } from './log-position.js';
import { RecordPipeline, type PipelinedAnswers, type RecordOutcome } from './record-pipeline.js';
import { SignedReplayGuard } from './replay-guard.js';
import { DEFAULT_RESUME_LOOK_BACK, ResumeMarkers } from './resume-markers.js';
import type { HandlerAttempt } from './handler-attempt.js';
import { headerText } from '../message/header-text.js';

const MAX_KEPT_ERRORS = 100;
/** Records per partition handled ahead of their answers' acknowledgments. */
const PIPELINE_DEPTH = 256;

/** Counts of what the agent did with the records it consumed. */
export type AgentStats = { -readonly [K in RecordOutcome]: number };

/** The handle of a spawned agent. */
export class AgentHandle {
  readonly #config: AgentConfig;
  readonly #client: AgdxClient;
  readonly #stop = new AbortController();
  readonly #ready: Promise<void>;
  readonly #done: Promise<void>;
  readonly #errors: unknown[] = [];
  readonly #stats: AgentStats = { handled: 0, skipped: 0, duplicate: 0, parked: 0, 'dead-lettered': 0 };
  #consumer: ConsumerLoop | undefined;
  #follower: ControlFollower | undefined;
  #heartbeats: HeartbeatRegistry | undefined;
  #pause: PauseController | undefined;
  #stopped = false;

  /** @internal Use `Agent.spawn(client)`. */
  constructor(config: AgentConfig, client: AgdxClient) {
    this.#config = config;
    this.#client =
      config.governor === undefined
        ? client
        : AgdxClient.from(client.transport, {
            stream: client.defaultStream,
            clock: client.clock,
            governor: config.governor,
            layout: client.layout,
            verifier: client.verifier,
            blobStore: client.blobStore,
            onError: client.onError,
            telemetry: client.telemetry,
          });
    let markReady!: () => void;
    let failReady!: (error: unknown) => void;
    this.#ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failReady = reject;
    });
    // A caller that never awaits ready() must not see an unhandled rejection.
    this.#ready.catch(() => undefined);
    this.#done = this.#run(markReady, failReady);
    this.#done.catch(() => undefined);
  }

  /** The agent id. */
  get id(): string {
    return this.#config.id.value;
  }

  /** Resolves once the consumer joined its group and the control history was folded; rejects when startup failed. */
  ready(): Promise<void> {
    return this.#ready;
  }

  /** Resolves when the agent stopped; rejects when its consumer failed. */
  join(): Promise<void> {
    return this.#done;
  }

  /** What happened to the records consumed so far. */
  get stats(): Readonly<AgentStats> {
    return { ...this.#stats };
  }

  /** The newest errors the agent survived (publish failures, transport hiccups), oldest first. */
  get errors(): readonly unknown[] {
    return [...this.#errors];
  }

  /** Control state of the sessions this agent was told about. */
  pendingControl(session: string): { readonly pauseRequested: boolean; readonly cancelRequested: boolean } {
    return this.#pause?.pendingControl(session) ?? { pauseRequested: false, cancelRequested: false };
  }

  /**
   * Stops intake, lets running handlers finish their record (and commits it), then leaves the
   * group. Waits at most `shutdownGrace`; past it the agent is hard-stopped (nothing more is
   * committed) and this rejects with TimeoutError `agent shutdown drain`.
   */
  async shutdown(): Promise<void> {
    if (this.#stopped) return this.#done.catch(() => undefined);
    this.#stopped = true;
    await this.#ready.catch(() => undefined);
    const consumer = this.#consumer;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), this.#config.shutdownGraceMs)));
    try {
      const result = await Promise.race([consumer?.stop().then(() => 'stopped' as const) ?? Promise.resolve('stopped' as const), timedOut]);
      if (result === 'timeout') {
        await this.#hardStop();
        throw new TimeoutError('agent shutdown drain');
      }
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
    await this.#teardown();
    await this.#done.catch(() => undefined);
  }

  /**
   * Immediate hard stop, as if the process died: no further commits (records handled but not yet
   * committed are delivered again), the group membership ends at once, running handlers are not
   * awaited.
   */
  async abort(): Promise<void> {
    this.#stopped = true;
    await this.#hardStop();
  }

  /** `await using agent = ...` shuts the agent down at the end of the scope. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.shutdown();
  }

  async #hardStop(): Promise<void> {
    this.#stop.abort();
    await this.#consumer?.abort();
    await this.#teardown();
  }

  async #teardown(): Promise<void> {
    this.#heartbeats?.close();
    await this.#follower?.stop();
  }

  /**
   * After a restart, rebuilds what this agent parked from its own records on the newest 10,000
   * records of each `agent.sessions` partition (only done when control history exists). With a
   * verifier and a signing key the agent signs its lane records, so only those that verify as
   * signed by a key enrolled for it count: anyone can append a record that merely claims to be
   * its own, and a forged parking would make it handle an old command again, a forged end skip
   * the session's work. The rest are reported (`unverified`, `source-mismatch`) and passed over.
   */
  async #recoverParking(pause: PauseController, stream: string): Promise<void> {
    const transport = this.#client.transport;
    const me = this.#config.id.value;
    const verifier = this.#config.signingKey === undefined ? undefined : this.#config.verifier;
    let description;
    try {
      description = await transport.describeTopic({ stream, topic: AgentTopic.Sessions });
    } catch (error) {
      this.#onError(error);
      return;
    }
    const lane: AgentEnvelope[] = [];
    for (const part of description.partitions) {
      let next = part.nextOffset > BigInt(CONTROL_HISTORY_LIMIT) ? part.nextOffset - BigInt(CONTROL_HISTORY_LIMIT) : 0n;
      while (next < part.nextOffset) {
        const records = await transport.read({ stream, topic: AgentTopic.Sessions, partition: part.partition, offset: next, maxCount: 1_000 });
        if (records.length === 0) break;
        for (const record of records) {
          next = record.offset + 1n;
          const agent = record.headers.get('gen_ai.agent.id');
          if (agent === undefined || headerText(agent.value) !== me) continue;
          let envelope: AgentEnvelope;
          try {
            envelope = AgentEnvelope.decode(record.payload);
          } catch {
            // not an envelope of ours after all
            continue;
          }
          const position = { stream, topic: AgentTopic.Sessions, partition: part.partition, offset: record.offset };
          const refused = (reason: 'unverified' | 'source-mismatch', detail: { readonly cause?: unknown; readonly signer?: string }): void =>
            this.#onError(
              reason === 'unverified'
                ? new SkippedRecordError(reason, position, "a lane record claiming to be this agent's failed verification; recovery passes over it", { cause: detail.cause })
                : new SkippedRecordError(reason, position, `a lane record claiming to be \`${me}\`'s was signed by a key of \`${String(detail.signer)}\`; recovery passes over it`),
            );
          if (verifier !== undefined && !(await signedByAgent(verifier, envelope, record, me, refused))) continue;
          lane.push(envelope);
        }
      }
    }
    const streamId = nameId(stream);
    const topicId = nameId(this.#config.listenOn);
    await pause.recover(lane, (s, t) => (s === streamId && t === topicId ? { stream, topic: this.#config.listenOn } : undefined));
  }

  #onError = (error: unknown): void => {
    if (this.#stop.signal.aborted && AgdxError.is(error, 'cancelled')) return;
    this.#errors.push(error);
    if (this.#errors.length > MAX_KEPT_ERRORS) this.#errors.shift();
    const hook = this.#config.onError;
    if (hook === undefined) return;
    try {
      hook(error);
    } catch {
      // An observer's failure must not stop the agent.
    }
  };

  async #run(markReady: () => void, failReady: (error: unknown) => void): Promise<void> {
    let consumer: ConsumerLoop;
    try {
      consumer = await this.#start();
    } catch (error) {
      failReady(error);
      throw error;
    }
    if (this.#stopped) {
      // Stopped while starting: nothing was consumed yet, so just leave again.
      markReady();
      await (this.#stop.signal.aborted ? consumer.abort() : consumer.stop());
      await this.#teardown();
      return;
    }
    markReady();
    await consumer.run();
  }

  async #start(): Promise<ConsumerLoop> {
    const config = this.#config;
    const client = this.#client;
    const me = config.id;
    const stream = client.defaultStream;
    if (stream === undefined) throw new NoStreamError();
    const transport = client.transport;
    const signer = config.signingKey;
    const publishLane = async (envelope: AgentEnvelope): Promise<void> => {
      await client.publish(AgentTopic.Sessions, envelope, ContentType.cbor, { signer });
    };
    const lifecycle = new SessionLifecycle(me, publishLane);
    const heartbeatSettings = config.heartbeats;
    const heartbeats =
      heartbeatSettings === false
        ? undefined
        : new HeartbeatRegistry({
            agent: me,
            stream,
            clock: client.clock,
            heartbeatMs: heartbeatSettings.heartbeatMs,
            publish: (topic, envelope) => client.publish(topic, envelope, ContentType.cbor),
            onError: this.#onError,
          });
    this.#heartbeats = heartbeats;
    const idleTimeoutMs = heartbeatSettings === false ? undefined : heartbeatSettings.idleTimeoutMs;

    let pipeline: RecordPipeline | undefined;
    const guard = config.crashLoopGuard ?? { maxResumes: undefined, lookBack: DEFAULT_RESUME_LOOK_BACK };
    const markers =
      guard === false
        ? undefined
        : new ResumeMarkers(transport, { stream, topic: config.listenOn, group: config.consumerGroup, agent: me.value, instance: MintUlid.mint(RecordId).toString() }, guard.lookBack);
    const pause = config.followControl
      ? new PauseController({
          me,
          publishLane,
          readSource: async (address: RecordAddress): Promise<LogRecord | undefined> => {
            const [record] = await transport.read({ ...address, maxCount: 1 });
            return record !== undefined && record.offset === address.offset ? record : undefined;
          },
          topicGeneration: async (topic) => (await transport.describeTopic(topic)).createdAtMicros,
          handleHeld: async (record: LogRecord, address: RecordAddress): Promise<void> => {
            await pipeline?.consume(record, address.partition, true);
          },
          onError: this.#onError,
        })
      : undefined;
    this.#pause = pause;

    const respondOn = config.respondOn;
    const onPickup =
      config.ackOnPickup && respondOn !== undefined
        ? async (message: AgentMessage): Promise<void> => {
            const envelope = message.envelope;
            if (envelope?.kind !== 'command' || envelope.correlation === undefined) return;
            const builder = client
              .agdx(respondOn, me, envelope.conversation)
              .status('task')
              .withCorrelation(envelope.correlation)
              .withTaskState(TaskState.Working)
              .withTarget(envelope.source);
            if (envelope.record !== undefined) builder.withCause(envelope.record, logPositionOf(message.id));
            if (signer !== undefined) builder.signedBy(signer);
            await builder.send();
          }
        : undefined;

    const handler = config.handler;
    // Pipelined answers: one window and one ordered appender for every handler of this agent.
    const window = config.pipelining === false ? undefined : new AppendWindow(config.pipelining);
    // Answers issued in one burst leave as one append. Where waits poll (Iggy) an append is a
    // network round trip, so a handler's burst always waits for the end of its macrotask. On an
    // in-process log an answer waits only while the consumer has records queued behind the one
    // being handled (one append for one read's answers), so a lone answer never waits.
    let backlog = (): boolean => false;
    const appender = new OrderedAppender(transport.waitsByPolling === true ? { holdWhile: always, hop: afterMacrotask } : { holdWhile: () => backlog() });
    pipeline = new RecordPipeline({
      me,
      stream,
      topic: config.listenOn,
      handled: config.serves,
      understoodFeatures: config.understoodFeatures,
      verifier: config.verifier,
      replays: config.verifier === undefined ? undefined : new SignedReplayGuard(config.replayGuard),
      clock: client.clock,
      retry: config.retry,
      handlerTimeoutMs: config.handlerTimeoutMs,
      processedKeys: config.processedKeys ?? new SlidingWindowKeyStore(),
      deadLetters: new DeadLetterWriter(transport, stream),
      sink: config.deadLetterSink,
      pause,
      onPickup,
      onError: this.#onError,
      errorReply: respondOn === undefined ? undefined : errorReplyOn(client, respondOn, me, signer),
      invoke: (message: AgentMessage, attempt: HandlerAttempt): Promise<PipelinedAnswers | undefined> => {
        // Not an async function (no frame per record), so everything is caught here: a throw
        // anywhere in the attempt rejects, as it would from `await`.
        try {
          const effects = window === undefined ? undefined : new AnswerEffects(window, appender);
          const ctx = new AgentCtx({ client, message, agent: me, respondOn, signer, lifecycle, pause, heartbeats, attempt: attempt.number, gate: attempt, issuer: effects, verifier: config.verifier });
          const lease = heartbeats?.acquire(message.provenance.conversation, idleTimeoutMs);
          if (lease !== undefined) return handleLeased(handler, message, ctx, lease, effects);
          // No lease to release: the handler's own promise is all there is to wait for.
          const handled = handler.handle(message, ctx);
          return handled === undefined ? Promise.resolve(effects) : Promise.resolve(handled).then(() => effects);
        } catch (error) {
          return Promise.reject(error);
        }
      },
      signal: this.#stop.signal,
      onOutcome: (outcome) => {
        this.#stats[outcome]++;
      },
      telemetry: client.telemetry,
      maxResumes: guard === false ? undefined : (guard.maxResumes ?? config.retry.maxAttempts),
    });
    const consumePipeline = pipeline;
    const ownPartitions = consumedPartitions(client.layout, config.listenOn, me.value);
    if (ownPartitions !== undefined) await checkOwnPartitions(client, stream, config.listenOn, me.value, ownPartitions);
    await checkOwnTopic(client, stream, config.listenOn, me.value);
    await checkLayoutDeclaration(transport, stream, client.layout, { agent: { name: me.value, topic: config.listenOn } });
    const consumer = new ConsumerLoop({
      transport,
      stream,
      topic: config.listenOn,
      group: config.consumerGroup,
      partitions: ownPartitions,
      parallelism: parallelismOf(config.concurrency),
      maxQueuedRecords: config.maxQueuedRecords,
      idleWaitMs: config.pollIntervalMs,
      retryDelayMs: Math.max(config.pollIntervalMs, 10),
      consume: (record: LogRecord, partition: number, turn: HandlerTurn, resumes?: number): Promise<unknown> => consumePipeline.consume(record, partition, false, turn, resumes),
      resuming: markers === undefined ? undefined : (partition: number, offset: bigint, signal: AbortSignal): Promise<number> => markers.resuming(partition, offset, signal),
      withdrawResume: markers === undefined ? undefined : (partition: number, offset: bigint): Promise<void> => markers.withdraw(partition, offset),
      // Another agent's record (or a reply): reading it again after a crash changes nothing.
      replayable: (outcome: unknown): boolean => outcome === 'skipped',
      pipelineDepth: config.pipelining === false ? 1 : PIPELINE_DEPTH,
      onError: this.#onError,
    });
    backlog = () => consumer.backlog;
    await consumer.start();
    this.#consumer = consumer;

    if (pause !== undefined) {
      const listen = await transport.describeTopic({ stream, topic: config.listenOn });
      const follower = new ControlFollower({
        transport,
        stream,
        topic: AGENT_CONTROL_TOPIC,
        createPartitions: listen.partitionCount,
        waitMs: 1_000,
        onError: this.#onError,
        apply: async (record: LogRecord, partition: number): Promise<void> => {
          const address: RecordAddress = { stream, topic: AGENT_CONTROL_TOPIC, partition, offset: record.offset };
          const skip = (reason: SkipReason, message: string, cause?: unknown): void =>
            this.#onError(new SkippedRecordError(reason, address, message, { cause }));
          let message: AgentMessage;
          try {
            message = readAgentMessage(record, address, { understoodFeatures: config.understoodFeatures });
          } catch (error) {
            skip('undecodable', 'skipped an undecodable control record', error);
            return;
          }
          const envelope = message.envelope;
          if (envelope === undefined) return;
          const dispatch = classifyEnvelope(envelope, AGENT_CONTROL_TOPIC, me.value, config.serves);
          const forceCancel = envelope.kind === 'status' && envelope.taskState === TaskState.Canceled;
          if (dispatch !== DispatchClass.Control && !forceCancel) return;
          if (config.verifier !== undefined) {
            // Control steers other agents' sessions: with a verifier, only an operator key counts,
            // not merely any enrolled key (an agent must not pause or cancel its peers), and it
            // must speak as the operator it is enrolled for.
            let signer: VerifiedPrincipal;
            try {
              signer = await config.verifier.verifyAt(envelope, record.timestampMicros, record.headers);
            } catch (error) {
              skip('unverified', 'a control record failed verification', error);
              return;
            }
            if (!speaksAsSigner(envelope, signer)) {
              skip('source-mismatch', `a control record from \`${envelope.source.value}\` was signed by a key of \`${signer.principal}\``);
              return;
            }
            if (signer.kind !== 'operator') {
              skip('signer-not-allowed', `a control record was signed by a ${signer.kind} key of \`${signer.principal}\`, not an operator key`);
              return;
            }
          }
          await pause.applyControl(envelope, address);
        },
      });
      await follower.start();
      this.#follower = follower;
      if (pause.active) await this.#recoverParking(pause, stream);
    }
    return consumer;
  }
}

/**
 * A declared partition beyond the topic's partition count means the log was bootstrapped for
 * another layout: the agent would wait forever on a partition nobody can write.
 * @throws LayoutMismatchError naming the partition and the topic's count.
 */
async function checkOwnPartitions(client: AgdxClient, stream: string, topic: string, agent: string, partitions: readonly number[]): Promise<void> {
  const count = (await client.transport.describeTopic({ stream, topic })).partitionCount;
  for (const partition of partitions) {
    if (partition >= count) {
      throw new LayoutMismatchError(`the layout declares partition ${partition} for \`${agent}\`, but \`${topic}\` has ${count} partitions`, {
        context: { stream, topic, agent, partition, partitionCount: count },
      });
    }
  }
}

/**
 * The agent's declared topic of a topic-per-agent layout must exist: `bootstrap()` creates it, so
 * a missing one means the stream was bootstrapped for another layout.
 * @throws LayoutMismatchError naming the topic.
 */
async function checkOwnTopic(client: AgdxClient, stream: string, topic: string, agent: string): Promise<void> {
  const layout = client.layout;
  if (layout.kind !== 'perAgentTopic' || layout.topics.get(agent) !== topic) return;
  try {
    await client.transport.describeTopic({ stream, topic });
  } catch (error) {
    if (!AgdxError.is(error, 'not-found')) throw error;
    // a missing stream stays not-found: only the layout's own topic is a layout question
    await client.transport.describeTopic({ stream, topic: AgentTopic.Sessions });
    throw new LayoutMismatchError(`the layout declares topic \`${topic}\` for \`${agent}\`, but stream \`${stream}\` has no such topic`, {
      cause: error,
      context: { stream, topic, agent },
    });
  }
}

/**
 * Sends the error reply to a dead-lettered command (see dead-letter-reply.ts) on `respondOn`, the
 * route every answer of the agent takes: addressed to the requester, naming the command as its
 * cause, signed when the agent signs (a verifying caller accepts only a signed reply). Awaited,
 * like dead letters, so the record is committed only once the reply is on the log.
 */
function errorReplyOn(client: AgdxClient, respondOn: string, me: AgentId, signer: Signer | undefined): (message: AgentMessage, body: AgentErrorBody) => Promise<void> {
  return async (message, body) => {
    const envelope = message.envelope;
    if (envelope?.correlation === undefined) return;
    const builder = client.agdx(respondOn, me, envelope.conversation).fail(envelope.correlation, body).withTarget(envelope.source);
    if (envelope.record !== undefined) builder.withCause(envelope.record, logPositionOf(message.id));
    if (signer !== undefined) builder.signedBy(signer);
    await builder.send();
  };
}

/** The hold of a polling log's appender: a handler's answers always wait for the end of its macrotask. */
const always = (): boolean => true;

/** Runs the handler holding a session lease, released however the handler ends. */
async function handleLeased(handler: AgentHandler, message: AgentMessage, ctx: AgentCtx, lease: SessionLease, effects: AnswerEffects | undefined): Promise<PipelinedAnswers | undefined> {
  try {
    await handler.handle(message, ctx);
  } finally {
    lease.release();
  }
  return effects;
}
