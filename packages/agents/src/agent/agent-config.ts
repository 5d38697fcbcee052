import type { AgentId } from '@agdx/wire';
import type { DeadLetterSink } from '../dead-letter/dead-letter.js';
import type { ProcessedKeyStore } from '../dedup/processed-key-store.js';
import type { HandledOperations } from '../dispatch/classify.js';
import type { ActionGovernor } from '../governor/action-governor.js';
import type { AgentMessage } from '../message/agent-message.js';
import type { Verifier } from '../replies/verifier.js';
import type { Signer } from '../send/signer.js';
import type { AgentCtx } from './agent-ctx.js';
import type { PipelineLimits } from './answer-pipeline.js';
import type { ConcurrencyPolicy } from './concurrency.js';
import type { ReplayGuardOptions } from './replay-guard.js';
import type { CrashLoopGuardSettings } from './resume-markers.js';
import type { RetryPolicy } from './retry-policy.js';

/** Handles one work record. Throwing fails the attempt (retried or dead-lettered). */
export interface AgentHandler {
  /** Handles `message`; answer through `ctx`. */
  handle(message: AgentMessage, ctx: AgentCtx): Promise<void> | void;
}

/** Heartbeat settings of an agent. */
export interface HeartbeatSettings {
  /** The default period in ms (default 60,000). */
  readonly heartbeatMs?: number | undefined;
  /** The idle timeout of sessions the runtime leases while handling (default 5 min). */
  readonly idleTimeoutMs?: number | undefined;
}

/** A validated agent configuration (what `Agent.builder()...build()` produced). */
export interface AgentConfig {
  /** The agent identity: consumer group default, target filter, source of answers. */
  readonly id: AgentId;
  /** The consumed topic. */
  readonly listenOn: string;
  /** Where answers go. */
  readonly respondOn: string | undefined;
  /** The handler. */
  readonly handler: AgentHandler;
  /** Operations served (`any` by default). */
  readonly serves: HandledOperations;
  /** Signs answers and acknowledgments. */
  readonly signingKey: Signer | undefined;
  /** Requires signed, verified work. */
  readonly verifier: Verifier | undefined;
  /** How copies of verified commands are treated (defaults when absent); used only with a verifier. */
  readonly replayGuard?: ReplayGuardOptions | undefined;
  /** Serial, or serial per partition. */
  readonly concurrency: ConcurrencyPolicy;
  /** Consumer group (default the agent id). */
  readonly consumerGroup: string;
  /** Handler retries. */
  readonly retry: RetryPolicy;
  /** Crash-loop protection across restarts (resume markers), or `false`; absent: on with defaults. */
  readonly crashLoopGuard?: CrashLoopGuardSettings | undefined;
  /** `must_understand` bits implemented. */
  readonly understoodFeatures: bigint;
  /** Told about dead letters. */
  readonly deadLetterSink: DeadLetterSink | undefined;
  /** Idempotency-key store (default an in-memory sliding window). */
  readonly processedKeys: ProcessedKeyStore | undefined;
  /** Write a Working task status when work is picked up. */
  readonly ackOnPickup: boolean;
  /** Checked before every send the agent makes. */
  readonly governor: ActionGovernor | undefined;
  /** Longest idle wait in ms before the group assignment is checked again (default 100). */
  readonly pollIntervalMs: number;
  /** How long `shutdown()` waits for running handlers, in ms (default 30,000). */
  readonly shutdownGraceMs: number;
  /**
   * The longest one handler attempt may run, in ms; past it `ctx.signal` aborts and the attempt
   * counts as failed whether or not the handler settles. Undefined (the default): no limit.
   */
  readonly handlerTimeoutMs?: number | undefined;
  /** Records read ahead per partition (default 4,096). */
  readonly maxQueuedRecords: number;
  /** Follow `agent.control` for pause / resume / cancel (default true). */
  readonly followControl: boolean;
  /** Heartbeats for sessions being handled; `false` turns them off. */
  readonly heartbeats: HeartbeatSettings | false;
  /**
   * Pipelined answers and their bounds (default on, {@link DEFAULT_PIPELINE_LIMITS}); `false`
   * awaits every answer's append before the handler call returns and the next record starts.
   */
  readonly pipelining: PipelineLimits | false;
  /** Told about every error the agent survives (also kept in `handle.errors`). */
  readonly onError: ((error: unknown) => void) | undefined;
}
