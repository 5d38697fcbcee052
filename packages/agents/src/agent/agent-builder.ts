import { checkPipelineLimits, DEFAULT_PIPELINE_LIMITS, type PipelineLimits } from './answer-pipeline.js';
import { AgentId, InvalidError } from '@agdx/wire';
import type { AgdxClient } from '../client/agdx-client.js';
import type { DeadLetterSink } from '../dead-letter/dead-letter.js';
import type { ProcessedKeyStore } from '../dedup/processed-key-store.js';
import type { HandledOperations } from '../dispatch/classify.js';
import { HandlerConfigError, type SkippedRecordError } from '../errors.js';
import type { ActionGovernor } from '../governor/action-governor.js';
import type { AgentMessage } from '../message/agent-message.js';
import type { Verifier } from '../replies/verifier.js';
import type { Signer } from '../send/signer.js';
import type { AgentConfig, AgentHandler, HeartbeatSettings } from './agent-config.js';
import type { AgentCtx } from './agent-ctx.js';
import { AgentHandle } from './agent-handle.js';
import { consumedTopic } from '../layouts/stream-layout.js';
import { parallelismOf, type ConcurrencyPolicy } from './concurrency.js';
import { checkRetryPolicy, DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.js';
import { checkCrashLoopGuard, DEFAULT_RESUME_LOOK_BACK, type CrashLoopGuardOptions, type CrashLoopGuardSettings } from './resume-markers.js';
import { checkReplayGuardOptions, type ReplayGuardOptions } from './replay-guard.js';

function nonNegative(value: number, field: string): number {
  if (!Number.isFinite(value) || value < 0) throw new InvalidError(`${field} must be a finite number of at least 0`, { context: { field } });
  return value;
}

function topicName(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new InvalidError(`${field} must be a non-empty topic name`, { context: { field } });
  return value;
}

/** A configured agent; {@link Agent.spawn} runs it on a client. */
export class Agent {
  /** The validated configuration. */
  readonly config: AgentConfig;

  /** @internal Use {@link Agent.builder}. */
  constructor(config: AgentConfig) {
    this.config = config;
  }

  /** Starts configuring an agent. */
  static builder(): AgentBuilder {
    return new AgentBuilder();
  }

  /**
   * Runs the agent on `client` (its default stream) and returns its handle at once; await
   * `handle.ready()` for the consumer to be open and the control history folded.
   */
  spawn(client: AgdxClient): AgentHandle {
    // the layout decides where work addressed to this agent lands, so it decides what is consumed
    return new AgentHandle({ ...this.config, listenOn: consumedTopic(client.layout, this.config.listenOn, this.config.id.value) }, client);
  }
}

/** Fluent configuration of an {@link Agent}; every setter validates and returns the builder. */
export class AgentBuilder {
  #id: AgentId | undefined;
  #listenOn: string | undefined;
  #respondOn: string | undefined;
  #handler: AgentHandler | undefined;
  #serves: HandledOperations = 'any';
  #signingKey: Signer | undefined;
  #verifier: Verifier | undefined;
  #replayGuard: ReplayGuardOptions | undefined;
  #concurrency: ConcurrencyPolicy = { kind: 'serial' };
  #consumerGroup: string | undefined;
  #retry: RetryPolicy = DEFAULT_RETRY_POLICY;
  #crashLoopGuard: CrashLoopGuardSettings = { maxResumes: undefined, lookBack: DEFAULT_RESUME_LOOK_BACK };
  #understood = 0n;
  #sink: DeadLetterSink | undefined;
  #processedKeys: ProcessedKeyStore | undefined;
  #ackOnPickup = false;
  #governor: ActionGovernor | undefined;
  #pollIntervalMs = 100;
  #shutdownGraceMs = 30_000;
  #handlerTimeoutMs: number | undefined;
  #maxQueued = 4_096;
  #followControl = true;
  #heartbeats: HeartbeatSettings | false = {};
  #pipelining: PipelineLimits | false = DEFAULT_PIPELINE_LIMITS;
  #onError: ((error: unknown) => void) | undefined;

  /**
   * The agent identity (required). Commands addressed to another agent are skipped: that is
   * routing, not an access boundary, since every reader of a topic sees all of its records.
   */
  id(id: AgentId | string): this {
    this.#id = typeof id === 'string' ? AgentId.new(id) : id;
    return this;
  }

  /** The topic to consume (required). */
  listenOn(topic: string): this {
    this.#listenOn = topicName(topic, 'listenOn');
    return this;
  }

  /** The topic answers go to (needed by `ctx.respond`, `emit`, `status`, `fail`, `stream`). */
  respondOn(topic: string): this {
    this.#respondOn = topicName(topic, 'respondOn');
    return this;
  }

  /** The handler (required): an object with `handle(message, ctx)` or the function itself. */
  handler(handler: AgentHandler | ((message: AgentMessage, ctx: AgentCtx) => Promise<void> | void)): this {
    if (typeof handler === 'function') this.#handler = { handle: handler };
    else if (typeof handler === 'object' && handler !== null && typeof handler.handle === 'function') this.#handler = handler;
    else throw new InvalidError('handler must be a function or an object with handle(message, ctx)', { context: { field: 'handler' } });
    return this;
  }

  /** The operations this agent serves: a list, or `'any'` (the default). Other commands are skipped. */
  serves(operations: HandledOperations): this {
    if (operations !== 'any') {
      if (!Array.isArray(operations) || operations.some((op) => typeof op !== 'string' || op.length === 0)) {
        throw new InvalidError("serves() takes 'any' or a list of operation names", { context: { field: 'serves' } });
      }
      operations = Object.freeze([...operations]);
    }
    this.#serves = operations;
    return this;
  }

  /** Signs answers, acknowledgments and lifecycle records (an @agdx/sign `SigningKey` fits). */
  signingKey(signer: Signer): this {
    this.#signingKey = signer;
    return this;
  }

  /** Accepts only work whose signature verifies (an @agdx/sign `KeyRegistry` fits); the rest is dead-lettered Rejected. */
  verifier(verifier: Verifier): this {
    this.#verifier = verifier;
    return this;
  }

  /**
   * How an agent with a verifier treats copies of signed commands (a signature does not cover the
   * topic, position or time a record was appended at). By default it remembers the record ids of
   * the last 10,000 verified commands it took on and commits a copy read at another position as
   * `duplicate`, unhandled, reporting it to `onError` (`SkippedRecordError`, reason `replayed`).
   * `requireTarget` also refuses verified commands that do not name this agent; `maxAgeMs`
   * refuses ones appended longer after their record id was minted. See {@link ReplayGuardOptions}.
   * @throws InvalidError for an option out of range.
   */
  replayGuard(options: ReplayGuardOptions): this {
    this.#replayGuard = checkReplayGuardOptions(options);
    return this;
  }

  /** `{ kind: 'serial' }` (default) or `{ kind: 'serial-per-partition', maxPartitions }`. */
  concurrency(policy: ConcurrencyPolicy): this {
    parallelismOf(policy);
    this.#concurrency = policy;
    return this;
  }

  /** The consumer group (default the agent id). */
  consumerGroup(name: string): this {
    if (typeof name !== 'string' || name.length === 0) throw new InvalidError('consumerGroup must be a non-empty name', { context: { field: 'consumerGroup' } });
    this.#consumerGroup = name;
    return this;
  }

  /** Handler retries (default 5 attempts, 200 ms first backoff, doubling, capped). */
  retry(policy: RetryPolicy): this {
    this.#retry = checkRetryPolicy(policy);
    return this;
  }

  /**
   * Crash-loop protection that survives restarts (default on): before handling its first record
   * after a start or a partition takeover, the agent appends a resume marker to `agdx.resumes`
   * and counts the earlier ones for that record; at `maxResumes` (default the retry policy's
   * `maxAttempts`) the record is dead-lettered `RetryExhausted` without running the handler.
   * `false` turns it off. See {@link CrashLoopGuardOptions}.
   * @throws InvalidError for an option out of range.
   */
  crashLoopGuard(options: CrashLoopGuardOptions | false): this {
    this.#crashLoopGuard = checkCrashLoopGuard(options);
    return this;
  }

  /** `must_understand` bits this agent implements (default none). */
  understoodFeatures(bits: bigint): this {
    if (typeof bits !== 'bigint' || bits < 0n || bits >= 1n << 64n) {
      throw new InvalidError('understoodFeatures is an unsigned 64-bit bitset', { context: { field: 'understoodFeatures' } });
    }
    this.#understood = bits;
    return this;
  }

  /** Told about every dead letter. */
  deadLetterSink(sink: DeadLetterSink): this {
    this.#sink = sink;
    return this;
  }

  /** Where processed idempotency keys are kept (default an in-memory window of 10,000). */
  processedKeys(store: ProcessedKeyStore): this {
    this.#processedKeys = store;
    return this;
  }

  /** Write a Working task status on `respondOn` when a command is picked up. */
  ackOnPickup(enabled: boolean = true): this {
    this.#ackOnPickup = enabled;
    return this;
  }

  /** Checked before every send the agent makes. */
  governor(governor: ActionGovernor): this {
    this.#governor = governor;
    return this;
  }

  /**
   * Longest idle wait before re-checking the group assignment (default 100 ms). On a log whose
   * waits poll (Iggy) also the longest pause between reads of an idle agent.
   */
  pollInterval(ms: number): this {
    this.#pollIntervalMs = Math.max(1, nonNegative(ms, 'pollInterval'));
    return this;
  }

  /** How long `shutdown()` waits for running handlers (default 30 s). */
  shutdownGrace(ms: number): this {
    this.#shutdownGraceMs = nonNegative(ms, 'shutdownGrace');
    return this;
  }

  /**
   * The longest one handler attempt may run (default: no limit). When it passes, `ctx.signal`
   * aborts with a `TimeoutError`, the attempt counts as failed (retried with backoff, then
   * dead-lettered `DeadlineExceeded`) whether or not the handler ever settles, the partition
   * moves on, and the context refuses the attempt's later answers with that `TimeoutError`.
   * @throws InvalidError unless `ms` is a finite number greater than 0.
   */
  handlerTimeout(ms: number): this {
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) throw new InvalidError('handlerTimeout must be a finite number of ms greater than 0', { context: { field: 'handlerTimeout' } });
    this.#handlerTimeoutMs = ms;
    return this;
  }

  /** Records read ahead per partition (default 4,096). */
  maxQueuedRecords(count: number): this {
    if (!Number.isSafeInteger(count) || count < 1) throw new InvalidError('maxQueuedRecords must be a safe integer of at least 1', { context: { field: 'maxQueuedRecords' } });
    this.#maxQueued = count;
    return this;
  }

  /** Follow `agent.control` for pause, resume and cancel (default true). */
  followControl(enabled: boolean = true): this {
    this.#followControl = enabled;
    return this;
  }

  /**
   * Pipelined answers (default on): a handler's answers (`ctx.respond`, `emit`, `status`, `fail`
   * and chunk writer flushes) resolve once issued, in order per partition, and the next record's
   * handler may start while they are acknowledged; a record is committed only once all its
   * answers are, and a failed one fails the handler attempt (retried or dead-lettered).
   * `limits` bound the appends and bytes in flight across the agent (an answer waits for room);
   * `false` awaits every answer's append, one record at a time.
   * @throws InvalidError for a limit that is not a safe integer of at least 1.
   */
  pipelining(limits: Partial<PipelineLimits> | boolean = true): this {
    this.#pipelining = limits === false ? false : checkPipelineLimits(limits === true ? {} : limits);
    return this;
  }

  /** Heartbeat settings for the sessions being handled; `false` turns heartbeats off. */
  heartbeats(settings: HeartbeatSettings | false): this {
    this.#heartbeats = settings;
    return this;
  }

  /**
   * Told about every error the agent survives and goes on from: publish failures of
   * acknowledgments and lifecycle records, transport hiccups, control records it skipped (a
   * {@link SkippedRecordError} with the record's position). The newest 100 are also kept in
   * `handle.errors`. Errors thrown by the hook are ignored.
   */
  onError(hook: (error: unknown) => void): this {
    if (typeof hook !== 'function') throw new InvalidError('onError must be a function', { context: { field: 'onError' } });
    this.#onError = hook;
    return this;
  }

  /**
   * The validated agent.
   * @throws HandlerConfigError when the id, listenOn or handler is missing.
   */
  build(): Agent {
    const id = this.#id;
    if (id === undefined) throw new HandlerConfigError('Agent.builder().id() is required');
    if (this.#listenOn === undefined) throw new HandlerConfigError('Agent.builder().listenOn() is required');
    if (this.#handler === undefined) throw new HandlerConfigError('Agent.builder().handler() is required');
    return new Agent({
      id,
      listenOn: this.#listenOn,
      respondOn: this.#respondOn,
      handler: this.#handler,
      serves: this.#serves,
      signingKey: this.#signingKey,
      verifier: this.#verifier,
      replayGuard: this.#replayGuard,
      concurrency: this.#concurrency,
      consumerGroup: this.#consumerGroup ?? id.value,
      retry: this.#retry,
      crashLoopGuard: this.#crashLoopGuard,
      understoodFeatures: this.#understood,
      deadLetterSink: this.#sink,
      processedKeys: this.#processedKeys,
      ackOnPickup: this.#ackOnPickup,
      governor: this.#governor,
      pollIntervalMs: this.#pollIntervalMs,
      shutdownGraceMs: this.#shutdownGraceMs,
      handlerTimeoutMs: this.#handlerTimeoutMs,
      maxQueuedRecords: this.#maxQueued,
      followControl: this.#followControl,
      heartbeats: this.#heartbeats,
      pipelining: this.#pipelining,
      onError: this.#onError,
    });
  }

  /** `build().spawn(client)`. */
  spawn(client: AgdxClient): AgentHandle {
    return this.build().spawn(client);
  }
}
