/**
 * What the reliable consumer does with one record (seed 000 "Delivery" and "Dispatch", 0.1.1
 * `ReliableWorker.consume`): decode (undecodable → dead letter DecodeFailed), classify (only work
 * reaches the handler), verify (with a verifier: failure → dead letter Rejected; a `source` other
 * than the signing key's agent → dead letter SourceMismatch; a copy of a signed command already
 * taken on at another position → duplicate, a refused target or age → dead letter Rejected), the pause
 * check, idempotency-key dedup through the processed-key store, the deadline (past → dead letter
 * DeadlineExceeded), then handler attempts with bounded exponential backoff (non-retryable →
 * Rejected, out of attempts → RetryExhausted). Resolving means the record may be committed;
 * throwing (a dead letter that could not be written) leaves it uncommitted.
 */
import type { LogRecord } from '@agdx/transport';
import { AgdxError, DeadLetterReason, type AgentEnvelope, type AgentErrorBody, type AgentId } from '@agdx/wire';
import type { Clock } from '../clock/clock.js';
import type { PauseController } from '../control/pause-controller.js';
import { deadLetterRecord, type DeadLetterRecord, type DeadLetterSink, type DeadLetterWriter } from '../dead-letter/dead-letter.js';
import { UnwrittenLetters, type UnwrittenLetter } from '../dead-letter/unwritten-letters.js';
import { deadLetterErrorBody, deadLetterErrorCode } from '../dead-letter/dead-letter-reply.js';
import { processedKey, type ProcessedKeyStore } from '../dedup/processed-key-store.js';
import { classifyEnvelope, classifyGeneric, DispatchClass, type HandledOperations } from '../dispatch/classify.js';
import { readAgentMessage, type AgentMessage } from '../message/agent-message.js';
import { speaksAsSigner } from '../replies/reply-signers.js';
import type { Verifier, VerifiedPrincipal } from '../replies/verifier.js';
import { PublishFailedError, SkippedRecordError } from '../errors.js';
import type { SignedReplayGuard } from './replay-guard.js';
import { describeError, handlerFailure, isRetryable } from './handler-errors.js';
import type { RecordAddress } from './log-position.js';
import { SOLE_TURN, type HandlerTurn } from './handler-turn.js';
import { HandlerAttempt, type AnswerMark, type AttemptBounds } from './handler-attempt.js';
import { backoffDelayMs, type RetryPolicy } from './retry-policy.js';
import type { AgdxTelemetry, HandleSpan } from '../telemetry/agdx-telemetry.js';
import { endHandle, runIn, startHandle } from '../telemetry/guarded-telemetry.js';
import { headerText } from '../message/header-text.js';

/** How a record ended, for metrics and tests. */
export type RecordOutcome =
  | 'handled'
  | 'skipped'
  | 'duplicate'
  | 'parked'
  | 'dead-lettered';

/** A handler attempt's pipelined answers: `settled()` resolves once all are acknowledged, rejects with the first failure. */
export interface PipelinedAnswers {
  settled(): Promise<void>;
}

/** Everything the pipeline needs from its agent. */
export interface RecordPipelineOptions {
  /** This agent. */
  readonly me: AgentId;
  /** Stream of the consumed topic. */
  readonly stream: string;
  /** The consumed topic. */
  readonly topic: string;
  /** Operations served. */
  readonly handled: HandledOperations;
  /** `must_understand` bits implemented. */
  readonly understoodFeatures: bigint;
  /** Signature check, when configured. */
  readonly verifier: Verifier | undefined;
  /** What becomes of copies of verified commands (used only with a verifier). */
  readonly replays?: SignedReplayGuard | undefined;
  /** Time (deadlines) and backoff sleeps. */
  readonly clock: Clock;
  /** Handler retries. */
  readonly retry: RetryPolicy;
  /** The longest one handler attempt may run, in ms (a passed deadline fails the attempt); undefined: no limit. */
  readonly handlerTimeoutMs?: number | undefined;
  /** Idempotency-key dedup. */
  readonly processedKeys: ProcessedKeyStore;
  /** Where dead letters go. */
  readonly deadLetters: DeadLetterWriter;
  /** Told about dead letters. */
  readonly sink: DeadLetterSink | undefined;
  /** The pause check, when control is followed. */
  readonly pause: PauseController | undefined;
  /** Runs before the first attempt of work (ack on pick-up); its errors go to `onError` and the work still runs. */
  readonly onPickup: ((message: AgentMessage) => Promise<void>) | undefined;
  /** Told about failures the pipeline survives (a failed pick-up acknowledgment). */
  readonly onError: (error: unknown) => void;
  /**
   * Runs the handler once. Resolves when the handler returned, with its pipelined answers when
   * there are any; the attempt succeeded once their `settled()` resolves.
   */
  readonly invoke: (message: AgentMessage, attempt: HandlerAttempt) => Promise<PipelinedAnswers | undefined>;
  /**
   * Answers the requester of a dead-lettered command with an error envelope (`AgentErrorBody`),
   * when the agent has a reply route; undefined: no error replies.
   */
  readonly errorReply?: ((message: AgentMessage, body: AgentErrorBody) => Promise<void>) | undefined;
  /** Aborts backoff sleeps and running handlers' signals on a hard stop. */
  readonly signal: AbortSignal;
  /** Told about every outcome. */
  readonly onOutcome: ((outcome: RecordOutcome, address: RecordAddress) => void) | undefined;
  /** The client's telemetry hook, when installed. */
  readonly telemetry?: AgdxTelemetry | undefined;
  /**
   * Earlier starts that may have resumed at a record without getting past it before work there
   * is dead-lettered without running the handler (see resume-markers.ts); undefined: no guard.
   */
  readonly maxResumes?: number | undefined;
}

/** A record condemned by the crash-loop guard: work at this offset is dead-lettered unrun. */
interface CrashLooped {
  readonly offset: bigint;
  readonly resumes: number;
}

/** The payload of a letter that leaves the original bytes out. */
const EMPTY = new Uint8Array(0);

/** The outcome of every record that is not this agent's work. */
const SKIPPED: Promise<RecordOutcome> = Promise.resolve('skipped');

/** One agent's per-record consume step. */
export class RecordPipeline {
  readonly #o: RecordPipelineOptions;
  readonly #me: string;
  readonly #inflight = new Map<string, Promise<void>>();
  readonly #unwritten = new UnwrittenLetters();
  /** By partition: the record the crash-loop guard condemned, while it is consumed. */
  readonly #crashLooped = new Map<number, CrashLooped>();

  /** A pipeline for one agent and topic. */
  constructor(options: RecordPipelineOptions) {
    this.#o = options;
    this.#me = options.me.value;
  }

  /**
   * Consumes one record of `partition`; `held` skips the pause check (draining a parked record).
   * `turn` is told when the handler returned, so the lane can start the next record while this
   * one's answers are acknowledged; the result settles once they are. `resumes`: how many earlier
   * starts resumed at this record without getting past it (the crash-loop guard); at
   * `maxResumes` or more, work here is dead-lettered without running the handler.
   */
  consume(record: LogRecord, partition: number, held: boolean = false, turn: HandlerTurn = SOLE_TURN, resumes?: number): Promise<RecordOutcome> {
    const o = this.#o;
    const address: RecordAddress = { stream: o.stream, topic: o.topic, partition, offset: record.offset };
    const unwritten = this.#unwritten.size === 0 ? undefined : this.#unwritten.take(record, partition);
    if (unwritten === undefined && resumes !== undefined && o.maxResumes !== undefined && resumes >= o.maxResumes) return this.#condemned(record, address, held, turn, resumes);
    const consumed = unwritten === undefined ? this.#consume(record, address, held, turn) : this.#letterAgain(unwritten, record, address);
    const report = o.onOutcome;
    if (report === undefined) return consumed;
    return consumed.then((outcome) => {
      report(outcome, address);
      return outcome;
    });
  }

  /**
   * A record the crash-loop guard condemned goes through the usual checks (a record that is not
   * work, a duplicate or a parked one is not dead-lettered), but work is not handed to the handler.
   */
  async #condemned(record: LogRecord, address: RecordAddress, held: boolean, turn: HandlerTurn, resumes: number): Promise<RecordOutcome> {
    const condemned: CrashLooped = { offset: record.offset, resumes };
    this.#crashLooped.set(address.partition, condemned);
    try {
      const outcome = await this.#consume(record, address, held, turn);
      this.#o.onOutcome?.(outcome, address);
      return outcome;
    } finally {
      if (this.#crashLooped.get(address.partition) === condemned) this.#crashLooped.delete(address.partition);
    }
  }

  // The checks every record passes run synchronously: only a record that needs to wait (a
  // verifier, the pause check, an idempotency key, a dead letter) enters an async frame, so a
  // plain record costs no frame here, and no promise resolved with another promise.
  #consume(record: LogRecord, address: RecordAddress, held: boolean, turn: HandlerTurn): Promise<RecordOutcome> {
    const o = this.#o;
    let message: AgentMessage;
    try {
      message = readAgentMessage(record, address, { understoodFeatures: o.understoodFeatures });
    } catch (error) {
      return this.#deadLettered(undefined, record, address, DeadLetterReason.DecodeFailed, 0, describeError(error));
    }
    try {
      const envelope = message.envelope;
      const dispatch =
        envelope !== undefined
          ? classifyEnvelope(envelope, o.topic, this.#me, o.handled)
          : classifyGeneric({ target: message.provenance.target?.value ?? headerTarget(message), cause: message.provenance.cause, correlation: message.provenance.correlation }, o.topic, this.#me);
      if (dispatch !== DispatchClass.Work) return SKIPPED;
      if (o.verifier !== undefined || (!held && o.pause !== undefined && o.pause.active)) return this.#checked(message, record, address, held, turn);
      return this.#deduplicated(message, record, address, turn);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The signature and pause checks, then {@link RecordPipeline.#deduplicated}. */
  async #checked(checkedMessage: AgentMessage, record: LogRecord, address: RecordAddress, held: boolean, turn: HandlerTurn): Promise<RecordOutcome> {
    const o = this.#o;
    let message = checkedMessage;
    const envelope = message.envelope;
    if (o.verifier !== undefined) {
      try {
        if (envelope === undefined) throw new Error('an unsigned plain record');
        const principal = await o.verifier.verifyAt(envelope, record.timestampMicros, record.headers);
        message = { ...message, verifiedPrincipal: principal };
      } catch (error) {
        await this.#deadLetter(message, record, address, DeadLetterReason.Rejected, 0, `signature verification failed: ${describeError(error)}`);
        return 'dead-lettered';
      }
      // A valid signature proves the key, not the `source` field: a key enrolled for one agent
      // must not make a record speak for another (an insider posing as `admin`).
      const signer = message.verifiedPrincipal as VerifiedPrincipal;
      if (!speaksAsSigner(envelope as AgentEnvelope, signer)) {
        const detail = `source \`${(envelope as AgentEnvelope).source.value}\` is not \`${signer.principal}\`, the agent the signing key is enrolled for`;
        await this.#deadLetter(message, record, address, DeadLetterReason.SourceMismatch, 0, detail);
        return 'dead-lettered';
      }
      const replays = o.replays;
      if (replays !== undefined) return this.#guarded(replays, envelope as AgentEnvelope, message, record, address, held, turn);
    }
    return this.#paused(message, record, address, held, turn);
  }

  /**
   * The replay guard's verdict on a verified command, then the rest. A copy of a command taken on
   * elsewhere is committed unhandled; a dead-lettered command is forgotten, so its redrive runs.
   */
  async #guarded(replays: SignedReplayGuard, envelope: AgentEnvelope, message: AgentMessage, record: LogRecord, address: RecordAddress, held: boolean, turn: HandlerTurn): Promise<RecordOutcome> {
    const verdict = replays.admit(envelope, address, record.timestampMicros, this.#me);
    if (verdict.kind === 'refused') {
      await this.#deadLetter(message, record, address, DeadLetterReason.Rejected, 0, verdict.detail);
      return 'dead-lettered';
    }
    if (verdict.kind === 'duplicate') {
      this.#o.onError(new SkippedRecordError('replayed', address, `a copy of signed command ${envelope.record?.toString() ?? ''} already handled (first read at ${verdict.first})`));
      return 'duplicate';
    }
    const outcome = await this.#paused(message, record, address, held, turn);
    if (outcome === 'dead-lettered') replays.forget(envelope, address);
    return outcome;
  }

  /** The pause check, then {@link RecordPipeline.#deduplicated}. */
  async #paused(message: AgentMessage, record: LogRecord, address: RecordAddress, held: boolean, turn: HandlerTurn): Promise<RecordOutcome> {
    const o = this.#o;
    const envelope = message.envelope;

    if (!held && o.pause !== undefined && o.pause.active) {
      const admission = await o.pause.admit(message.provenance.conversation, envelope?.record, address);
      if (admission === 'parked') return 'parked';
      if (admission === 'skip') return 'skipped';
    }
    return await this.#deduplicated(message, record, address, turn);
  }

  /** Idempotency-key dedup (when the record has a key), then the handler. */
  #deduplicated(message: AgentMessage, record: LogRecord, address: RecordAddress, turn: HandlerTurn): Promise<RecordOutcome> {
    const idempotencyKey = message.provenance.idempotencyKey;
    if (idempotencyKey === undefined) return this.#traced(message, record, address, undefined, turn, false);
    return this.#keyed(message, record, address, processedKey(this.#me, idempotencyKey), turn);
  }

  async #keyed(message: AgentMessage, record: LogRecord, address: RecordAddress, key: string, turn: HandlerTurn): Promise<RecordOutcome> {
    const o = this.#o;
    // Two records with one key on different partitions may run at once: the second waits for the
    // first to finish, then sees its key.
    // Waiting here must not hold the lane's handler turn: the first record may need a turn again
    // (a retry after a failed answer) before it lets go of the key.
    let released = false;
    for (let running = this.#inflight.get(key); running !== undefined; running = this.#inflight.get(key)) {
      if (!released) turn.release();
      released = true;
      await running;
    }
    let finish!: () => void;
    this.#inflight.set(key, new Promise<void>((resolve) => (finish = resolve)));
    try {
      if (await o.processedKeys.has(key)) return 'duplicate';
      return await this.#traced(message, record, address, key, turn, released);
    } finally {
      this.#inflight.delete(key);
      finish();
    }
  }

  /** Writes a dead letter, then says the record was dead-lettered. */
  async #deadLettered(message: AgentMessage | undefined, record: LogRecord, address: RecordAddress, reason: number, attempts: number, detail: string, reply?: AgentErrorBody): Promise<RecordOutcome> {
    await this.#deadLetter(message, record, address, reason, attempts, detail, reply);
    return 'dead-lettered';
  }

  /** {@link RecordPipeline.#handle} inside a handle span when a telemetry hook is installed (and returns one). */
  #traced(message: AgentMessage, record: LogRecord, address: RecordAddress, key: string | undefined, turn: HandlerTurn, turnReleased: boolean): Promise<RecordOutcome> {
    if (this.#crashLooped.size !== 0) {
      const looped = this.#crashLooped.get(address.partition);
      if (looped !== undefined && looped.offset === address.offset) return this.#crashLoopLetter(message, record, address, looped.resumes);
    }
    const telemetry = this.#o.telemetry;
    const span = telemetry === undefined ? undefined : startHandle(telemetry, { agent: this.#o.me, message, address });
    // Without a span the plain path adds no async frame of its own.
    return span === undefined ? this.#handle(message, record, address, key, turn, turnReleased, undefined) : this.#handleIn(span, message, record, address, key, turn, turnReleased);
  }

  async #handleIn(span: HandleSpan, message: AgentMessage, record: LogRecord, address: RecordAddress, key: string | undefined, turn: HandlerTurn, turnReleased: boolean): Promise<RecordOutcome> {
    const failure: { error?: unknown } = {};
    let outcome: RecordOutcome;
    try {
      outcome = await this.#handle(message, record, address, key, turn, turnReleased, span, failure);
    } catch (error) {
      endHandle(span, 'dead-lettered', error);
      throw error;
    }
    endHandle(span, outcome, failure.error);
    return outcome;
  }

  #handle(
    message: AgentMessage,
    record: LogRecord,
    address: RecordAddress,
    key: string | undefined,
    turn: HandlerTurn,
    turnReleased: boolean,
    span: HandleSpan | undefined,
    failure?: { error?: unknown },
  ): Promise<RecordOutcome> {
    const o = this.#o;
    const deadline = message.provenance.deadlineMicros;
    const mark: AnswerMark = { answered: false };
    if (deadline !== undefined && o.clock.nowMicros() > deadline) {
      const detail = 'message past its deadline';
      return this.#deadLettered(message, record, address, DeadLetterReason.DeadlineExceeded, 0, detail, this.#reply(message, mark, DeadLetterReason.DeadlineExceeded, 0, detail, undefined, false));
    }
    const bounds = this.#bounds(address, turn, deadline);
    if (o.onPickup !== undefined || span !== undefined || turnReleased) return this.#attempts(message, record, address, key, turn, turnReleased, span, failure, undefined, bounds, mark);
    // The first attempt of a plain record (no pick-up acknowledgment, no span, the lane's turn
    // held) chains on the handler's promise and its answers' instead of an async frame with two
    // awaits; a failure goes on through #attempts, as if its first attempt had failed there.
    const attempt = new HandlerAttempt(bounds, 0, mark);
    let invoked: Promise<PipelinedAnswers | undefined>;
    try {
      invoked = attempt.bound(o.invoke(message, attempt));
    } catch (thrown) {
      attempt.settle();
      turn.release();
      return this.#attempts(message, record, address, key, turn, true, undefined, undefined, { thrown, attempt }, bounds, mark);
    }
    return invoked.then(
      (answers) => {
        attempt.settle();
        turn.release();
        if (answers === undefined) return this.#handled(key);
        return answers.settled().then(
          () => this.#handled(key),
          (thrown: unknown) => this.#attempts(message, record, address, key, turn, true, undefined, undefined, { thrown, attempt }, bounds, mark),
        );
      },
      (thrown: unknown) => {
        attempt.settle();
        turn.release();
        return this.#attempts(message, record, address, key, turn, true, undefined, undefined, { thrown, attempt }, bounds, mark);
      },
    );
  }

  /**
   * Dead-letters work at which `resumes` earlier starts resumed without getting past it: each of
   * them died (or was hard-stopped) while it ran, so running it again would most likely take this
   * process down too and stall the partition for ever.
   */
  #crashLoopLetter(message: AgentMessage, record: LogRecord, address: RecordAddress, resumes: number): Promise<RecordOutcome> {
    const reason = DeadLetterReason.RetryExhausted;
    const detail = `crash loop: the agent resumed at this record ${resumes} times without getting past it (the process died or was stopped while handling it); dead-lettered without running the handler`;
    return this.#deadLettered(message, record, address, reason, resumes, detail, this.#reply(message, { answered: false }, reason, resumes, detail, undefined, false));
  }

  /** What bounds the handler attempts of the record at `address`, whose command's own deadline is `deadlineMicros`. */
  #bounds(address: RecordAddress, turn: HandlerTurn, deadlineMicros: bigint | undefined): AttemptBounds {
    const o = this.#o;
    return { clock: o.clock, timeoutMs: o.handlerTimeoutMs, deadlineMicros, stop: o.signal, lease: turn.signal, address };
  }

  /** A record whose handler attempt succeeded: its key (when it has one) is remembered as processed. */
  #handled(key: string | undefined): RecordOutcome | Promise<RecordOutcome> {
    return key === undefined ? 'handled' : this.#remember(key);
  }

  async #remember(key: string): Promise<RecordOutcome> {
    await this.#o.processedKeys.add(key);
    return 'handled';
  }

  /**
   * The pick-up acknowledgment, then handler attempts with backoff until one succeeds, the error
   * is not retryable or the attempts run out. `firstFailed`: attempt 0 already ran and failed
   * with `thrown` (the first attempt of a plain record runs in #handle), so no pick-up again.
   */
  async #attempts(
    message: AgentMessage,
    record: LogRecord,
    address: RecordAddress,
    key: string | undefined,
    turn: HandlerTurn,
    turnReleased: boolean,
    span: HandleSpan | undefined,
    failure: { error?: unknown } | undefined,
    firstFailed: { readonly thrown: unknown; readonly attempt: HandlerAttempt } | undefined,
    bounds: AttemptBounds,
    mark: AnswerMark,
  ): Promise<RecordOutcome> {
    const o = this.#o;
    if (o.onPickup !== undefined && firstFailed === undefined) {
      try {
        await o.onPickup(message);
      } catch (error) {
        // The pick-up acknowledgment is advisory: the work still runs, and the owner hears of it.
        o.onError(new PublishFailedError('the pick-up acknowledgment could not be published', { cause: error, context: { ...address } }));
      }
    }

    let released = turnReleased;
    let attemptNo = 0;
    if (firstFailed !== undefined) {
      const ended = await this.#failedAttempt(message, record, address, 0, firstFailed.thrown, failure, firstFailed.attempt, mark);
      if (ended !== undefined) return ended;
      attemptNo = 1;
    }
    for (; ; attemptNo++) {
      // A retry after the lane moved on waits for a handler turn of its own.
      const again = released ? await turn.again() : undefined;
      const attempt = new HandlerAttempt(bounds, attemptNo, mark);
      try {
        let answers: PipelinedAnswers | undefined;
        try {
          // Lost the partition or stopped during the backoff: the record is not ours to finish.
          const gone = attempt.abandoned();
          if (gone !== undefined) throw gone;
          answers = await attempt.bound(span === undefined ? o.invoke(message, attempt) : runIn(span, () => o.invoke(message, attempt)));
        } finally {
          attempt.settle();
          if (again === undefined) turn.release();
          else again();
          released = true;
        }
        // A failed answer fails the attempt, as a throwing handler does.
        if (answers !== undefined) await answers.settled();
        break;
      } catch (thrown) {
        const ended = await this.#failedAttempt(message, record, address, attemptNo, thrown, failure, attempt, mark);
        if (ended !== undefined) return ended;
      }
    }
    return await this.#handled(key);
  }

  /**
   * After attempt `attemptNo` failed with `thrown`: dead-letters the record when the error is not
   * retryable or the attempts are used up (and says so), else sleeps the backoff before the next.
   * An attempt cut short by a hard stop or a lost lease rethrows its reason instead: the record
   * stays uncommitted, for this agent after a restart or for the partition's new owner.
   */
  async #failedAttempt(
    message: AgentMessage,
    record: LogRecord,
    address: RecordAddress,
    attemptNo: number,
    thrown: unknown,
    failure: { error?: unknown } | undefined,
    attempt: HandlerAttempt,
    mark: AnswerMark,
  ): Promise<'dead-lettered' | undefined> {
    const o = this.#o;
    const gone = attempt.abandoned();
    if (gone !== undefined) throw gone;
    if (failure !== undefined) failure.error = thrown;
    const error = handlerFailure(thrown);
    const attempts = attemptNo + 1;
    // Only this attempt's own deadline counts as a timeout (a handler may throw a TimeoutError of its own).
    const timedOut = attempt.timedOut && thrown === attempt.refusal();
    if (timedOut && attempt.deadlinePassed) {
      // The requester gave up at its deadline: no retry can start, and none is worth running.
      const detail = `the command's deadline (${String(message.provenance.deadlineMicros)} µs) passed while the handler ran, on attempt ${attempts}`;
      await this.#deadLetter(message, record, address, DeadLetterReason.DeadlineExceeded, attempts, detail, this.#reply(message, mark, DeadLetterReason.DeadlineExceeded, attempts, detail, error, false));
      return 'dead-lettered';
    }
    if (!isRetryable(error)) {
      const detail = describeError(thrown);
      await this.#deadLetter(message, record, address, DeadLetterReason.Rejected, attempts, detail, this.#reply(message, mark, DeadLetterReason.Rejected, attempts, detail, error, false));
      return 'dead-lettered';
    }
    if (attempts >= o.retry.maxAttempts) {
      const reason = timedOut ? DeadLetterReason.DeadlineExceeded : DeadLetterReason.RetryExhausted;
      const detail = timedOut ? `handler timed out on its last attempt of ${attempts}: ${describeError(thrown)}` : describeError(thrown);
      await this.#deadLetter(message, record, address, reason, attempts, detail, this.#reply(message, mark, reason, attempts, detail, error, true));
      return 'dead-lettered';
    }
    const delayMs = backoffDelayMs(o.retry, attemptNo);
    // Work is not started past its deadline (step 6); that holds for a retry too, which would
    // otherwise keep running (and answering a requester that gave up) until the attempts ran out.
    const deadline = message.provenance.deadlineMicros;
    if (deadline !== undefined && o.clock.nowMicros() + BigInt(Math.ceil(delayMs * 1000)) > deadline) {
      const detail = `message past its deadline after ${attempts} attempt(s): ${describeError(thrown)}`;
      await this.#deadLetter(message, record, address, DeadLetterReason.DeadlineExceeded, attempts, detail, this.#reply(message, mark, DeadLetterReason.DeadlineExceeded, attempts, detail, error, false));
      return 'dead-lettered';
    }
    await o.clock.sleep(delayMs, o.signal);
    return undefined;
  }

  /**
   * The error reply for a dead-lettered command, or undefined when none is due: no reply route,
   * not a command with a correlation, or the handler already answered it (a response or an
   * error went out in one of its attempts: the caller must not get a second answer).
   */
  #reply(message: AgentMessage, mark: AnswerMark, reason: number, attempts: number, detail: string, failure: unknown, retryable: boolean): AgentErrorBody | undefined {
    const envelope = message.envelope;
    if (this.#o.errorReply === undefined || mark.answered || envelope?.kind !== 'command' || envelope.correlation === undefined) return undefined;
    return deadLetterErrorBody(reason, attempts, detail, deadLetterErrorCode(reason, failure), retryable);
  }

  async #deadLetter(
    message: AgentMessage | undefined,
    record: LogRecord,
    address: RecordAddress,
    reason: number,
    attempts: number,
    detail: string,
    reply?: AgentErrorBody,
  ): Promise<void> {
    const letter = deadLetterRecord({ source: address, payload: record.payload, reason, attempts, detail, provenance: provenanceOf(message) });
    // A letter the log refuses as invalid would be refused on every read, and the record would
    // stall its partition: the fallback is the smallest letter that still says where and why.
    const minimal = (refusal: string): DeadLetterRecord =>
      deadLetterRecord({
        source: address,
        payload: EMPTY,
        reason,
        attempts,
        detail: `${detail} (the log refused the full letter: ${refusal}; this one leaves out the original ${record.payload.length} payload bytes and provenance, read them at the source position)`,
        provenance: message === undefined ? undefined : { conversation: message.provenance.conversation },
      });
    await this.#publishLetter(message, record, address, reason, letter, minimal, reply);
  }

  /**
   * A record read again after its dead letter (or the error reply after it) failed to append: what
   * is still missing is written, the handler not run again.
   */
  async #letterAgain(unwritten: UnwrittenLetter, record: LogRecord, address: RecordAddress): Promise<RecordOutcome> {
    const { message, reply } = unwritten;
    if (unwritten.replyOnly === true && message !== undefined && reply !== undefined) await this.#sendReply(message, record, address, unwritten, reply);
    else await this.#publishLetter(message, record, address, unwritten.reason, unwritten.letter, unwritten.minimal, reply);
    // The first pass threw before `#guarded` could forget the command: forget it now, or its
    // redrive (the same signed bytes at a new offset) would be taken for a copy and never run.
    const envelope = message?.envelope;
    if (envelope !== undefined) this.#o.replays?.forget(envelope, address);
    return 'dead-lettered';
  }

  /**
   * Answers the dead-lettered command's requester with `reply`. A transient failure (the log did
   * not take it) is remembered and thrown, so the record stays uncommitted and only the reply is
   * tried again on the next read; any other (the governor denied it, the log refused it as
   * invalid) goes to `onError` and the record is committed: the letter is written, and the caller
   * falls back to its own timeout.
   */
  async #sendReply(message: AgentMessage, record: LogRecord, address: RecordAddress, letter: UnwrittenLetter, reply: AgentErrorBody): Promise<void> {
    const send = this.#o.errorReply;
    if (send === undefined) return;
    try {
      await send(message, reply);
    } catch (error) {
      if (!isRetryable(error) || AgdxError.is(error, 'cancelled')) {
        this.#o.onError(error);
        return;
      }
      this.#unwritten.keep(record, address.partition, { ...letter, message, reply, replyOnly: true });
      throw error;
    }
  }

  /**
   * Appends `full` (or, when the log refuses it as invalid, the `minimal` letter), then tells
   * telemetry and the sink; an append that failed is remembered and thrown, so the record stays
   * uncommitted.
   */
  async #publishLetter(
    message: AgentMessage | undefined,
    record: LogRecord,
    address: RecordAddress,
    reason: number,
    full: DeadLetterRecord,
    minimal?: (refusal: string) => DeadLetterRecord,
    reply?: AgentErrorBody,
  ): Promise<void> {
    const o = this.#o;
    let letter = full;
    let publishError: unknown;
    try {
      await o.deadLetters.write(letter);
    } catch (error) {
      publishError = error;
    }
    if (publishError !== undefined && minimal !== undefined && AgdxError.is(publishError, 'invalid')) {
      letter = minimal(describeError(publishError));
      publishError = undefined;
      try {
        await o.deadLetters.write(letter);
      } catch (error) {
        publishError = error;
      }
    }
    if (o.telemetry !== undefined) {
      try {
        o.telemetry.onDeadLetter({ agent: o.me, message, address, reason });
      } catch {
        // observers never change what happens to the record
      }
    }
    if (o.sink !== undefined) {
      try {
        await o.sink.onDeadLetter(message, letter.capsule, publishError);
      } catch {
        // A sink is an observer; its failure must not change what happens to the record.
      }
    }
    // Not committed: the consumer reads the record again and retries the dead letter (only the
    // letter: the verdict stands, so the handler's attempts are not run again).
    if (publishError !== undefined) {
      this.#unwritten.keep(record, address.partition, { message, reason, letter, minimal: letter === full ? minimal : undefined, reply });
      throw publishError;
    }
    // The letter is written: now the waiting caller learns of it at once.
    if (reply !== undefined && message !== undefined) await this.#sendReply(message, record, address, { message, reason, letter }, reply);
  }
}

function headerTarget(message: AgentMessage): string | undefined {
  const to = message.headers.get('agdx.to');
  if (to === undefined || to.kind !== 'string') return undefined;
  return headerText(to.value);
}

function provenanceOf(message: AgentMessage | undefined): import('@agdx/wire').Provenance | undefined {
  if (message === undefined) return undefined;
  const p = message.provenance;
  return {
    conversation: p.conversation,
    ...(p.parent === undefined ? {} : { parent: p.parent }),
    ...(p.root === undefined ? {} : { root: p.root }),
    ...(p.agent === undefined ? {} : { agent: p.agent.value }),
    ...(p.target === undefined ? {} : { target: p.target.value }),
    ...(p.correlation === undefined ? {} : { correlation: p.correlation }),
    ...(p.idempotencyKey === undefined ? {} : { idempotencyKey: p.idempotencyKey }),
  };
}
