import { AgdxError, ConversationId, CorrelationId, InvalidError, RecordId, type AgentEnvelope } from '@agdx/wire';
import { burstEnd } from '../clock/after-burst.js';
import { CooperativeYield } from '../clock/cooperative-yield.js';
import { PollPacer } from '../clock/poll-pacer.js';
import { partitionForKey, watchAbort, type LogRecord } from '@agdx/transport';
import { checkLayoutDeclaration } from '../layouts/layout-declaration-check.js';
import { routeRecord } from '../layouts/stream-layout.js';
import type { ClientCore } from '../client/client-core.js';
import { CancelledError, SkippedRecordError, TimeoutError, type SkipReason } from '../errors.js';
import { readAgentMessage, type AgentMessage } from '../message/agent-message.js';
import { checkInstance, checkObject, checkSignal, toAgentId, type AgentIdLike } from '../send/refinements.js';
import { answersRequest, type ReplyCriteria } from './reply-rules.js';
import { signerCheck, speaksAsSigner, type ReplySignerPolicy, type SignerCheck } from './reply-signers.js';
import type { Verifier, VerifiedPrincipal } from './verifier.js';
import { AnsweredReplies } from './answered-replies.js';
import { DeadlineQueue, type Timed } from './deadline-queue.js';

/** What to wait for, and for how long. */
export interface ReplyWaitOptions {
  /** The request's correlation. */
  readonly correlation: CorrelationId;
  /** The request's session. */
  readonly conversation: ConversationId;
  /** The requester (the request's source): a reply addressed to another agent never answers. */
  readonly requester?: AgentIdLike | undefined;
  /** The request's record id: the request itself never answers. */
  readonly request?: RecordId | undefined;
  /**
   * With a verifier: who may answer (required then). A reply counts only when its key is enrolled
   * for an agent this policy accepts and the reply's `source` is that agent.
   */
  readonly expectFrom?: ReplySignerPolicy | undefined;
  /** @deprecated Use `expectFrom`; the same as `expectFrom: expectedSigner` when `expectFrom` is not set. */
  readonly expectedSigner?: string | undefined;
  /**
   * Overrides the client's verifier for this wait (`null` turns verification off). With a
   * verifier, an unsigned reply, an unknown key, an invalid signature, a `source` that is not the
   * key's agent or a signer outside `expectFrom` never resolves the wait; key validity is judged
   * at the broker timestamp.
   */
  readonly verifier?: Verifier | null | undefined;
  /** Required: give up after this many milliseconds of the client clock (TimeoutError). */
  readonly timeoutMs: number;
  /** Aborting rejects with CancelledError. */
  readonly signal?: AbortSignal | undefined;
  /** Message of the TimeoutError (default `reply`). */
  readonly timeoutMessage?: string | undefined;
  /** Message of the CancelledError (default `reply wait aborted`). */
  readonly cancelMessage?: string | undefined;
}

/** A registered wait: the hub is already reading the reply topic from where it stood at registration. */
export interface PendingReply {
  /** Settles with the first matching reply, or TimeoutError / CancelledError. */
  readonly reply: Promise<AgentMessage>;
  /** Stops waiting; `reply` rejects with CancelledError. Idempotent. */
  cancel(): void;
  /**
   * Says the request is now on the log. Where waits poll (Iggy), the reader of the reply's
   * partition looks at once and stays hot, since an answer can only come from now on; a no-op
   * elsewhere. Optional to call.
   */
  sent(): void;
}

/**
 * One registered wait, and the {@link PendingReply} handed to its caller: a class rather than a
 * set of closures, since a busy requester registers one per request.
 */
class Waiter implements PendingReply, Timed {
  readonly reply: Promise<AgentMessage>;
  readonly criteria: ReplyCriteria;
  readonly allowed: SignerCheck | undefined;
  readonly verifier: Verifier | undefined;
  settled = false;
  /** The hub's timeouts, once this wait's is armed there. */
  deadlines: DeadlineQueue<Waiter> | undefined = undefined;
  /** See {@link Timed}: kept by the deadline queue. */
  deadline = 0;
  slot = -1;
  /** What the TimeoutError says, and the timeout it reports. */
  timeoutMessage = 'reply';
  timeoutMs = 0;
  /** Stops watching the caller's signal, once watched. */
  unwatch: (() => void) | undefined = undefined;
  /** The readers' pacers when waits poll, and the one of the reply's partition when it is known. */
  pacers: readonly PollPacer[] | undefined = undefined;
  pacer: PollPacer | undefined = undefined;
  readonly #key: string;
  readonly #cancelMessage: string;
  readonly #done: (key: string, waiter: Waiter) => void;
  #resolve!: (message: AgentMessage) => void;
  #reject!: (error: unknown) => void;

  constructor(key: string, criteria: ReplyCriteria, allowed: SignerCheck | undefined, verifier: Verifier | undefined, cancelMessage: string, done: (key: string, waiter: Waiter) => void) {
    this.#key = key;
    this.criteria = criteria;
    this.allowed = allowed;
    this.verifier = verifier;
    this.#cancelMessage = cancelMessage;
    this.#done = done;
    this.reply = new Promise<AgentMessage>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  resolve(message: AgentMessage): void {
    if (this.#finish()) this.#resolve(message);
  }

  reject(error: unknown): void {
    if (!this.#finish()) return;
    // A caller that never awaits (it cancelled) must not see an unhandled rejection; only a
    // rejected wait pays for the extra handler.
    this.reply.catch(ignore);
    this.#reject(error);
  }

  cancel(): void {
    if (!this.settled) this.reject(new CancelledError(this.#cancelMessage));
  }

  expire(): void {
    if (!this.settled) this.reject(new TimeoutError(this.timeoutMessage, { context: { timeoutMs: this.timeoutMs } }));
  }

  fail(error: unknown): void {
    if (!this.settled) this.reject(error);
  }

  sent(): void {
    if (this.settled) return;
    if (this.pacer !== undefined) this.pacer.active();
    else for (const p of this.pacers ?? []) p.active();
  }

  #finish(): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.deadlines?.remove(this);
    this.unwatch?.();
    this.#done(this.#key, this);
    return true;
  }
}

function ignore(): void {}

interface Run {
  readonly controller: AbortController;
  readonly cursors: bigint[];
  /** One per partition when the transport's waits poll; `undefined` when the writer wakes them. */
  readonly pacers: PollPacer[] | undefined;
}

const READ_BATCH = 200;
const PUMP_WAIT_MS = 30_000;
// Readers outlive the last wait briefly, so back-to-back requests skip re-seeding; records read
// meanwhile are skipped without being decoded.
const IDLE_GRACE_MS = 200;
/**
 * How long a passed layout-declaration check holds for the waits that follow: a declaration
 * changes only at a deliberate migration (`replaceLayout`), which waits then see within a second.
 */
const LAYOUT_CHECK_HOLD_MICROS = 1_000_000n;

/** Checks a wait timeout: finite and non-negative (there is no default). */
export function checkTimeoutMs(timeoutMs: number, what: string = 'timeoutMs'): void {
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs < 0) {
    throw new InvalidError(`${what} must be a non-negative finite number of milliseconds`, { context: { field: what } });
  }
}

/**
 * Correlated waits on one reply topic of one stream, shared by every request of a client. A
 * registration seeds the hub at the topic's tail (each partition's next offset) BEFORE the
 * request is sent, so no reply can slip past. While waits are pending, one reader per partition
 * follows the topic and serves every wait on it: woken by the transport's `waitFor` when the
 * writer wakes waits (MemoryLog), or, when waits poll (Iggy, `waitsByPolling`), reading at once
 * after each registration and while replies flow, backing off while idle. Woken with several
 * waits pending, a reader first lets the current burst of appends finish (a macrotask hop, no
 * timer), so one read serves every reply of the burst. Shortly after the
 * last wait settles the readers stop, and the next registration seeds again.
 */
export class ReplyHub {
  /** Stream. */
  readonly stream: string;
  /** Reply topic. */
  readonly topic: string;
  readonly #core: ClientCore;
  /** The timeouts of the pending waits, on the client clock. */
  readonly #deadlines: DeadlineQueue<Waiter>;
  /** Pending waits by correlation: one waiter (nearly always), or several sharing a correlation. */
  readonly #waiters = new Map<string, Waiter | Waiter[]>();
  #count = 0;
  #run: Run | undefined;
  #starting: Promise<Run> | undefined;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  /**
   * When the stream's layout declaration last agreed with the client's (clock µs). A passed check
   * holds for {@link LAYOUT_CHECK_HOLD_MICROS}, so under load the waits cost no describe each (on
   * Iggy one would be a request of its own before every send); a failed check is never held, so
   * every wait of a wrong-layout client fails. Concurrent waits share one check in flight.
   */
  #layoutChecked: bigint | undefined;
  #layoutCheck: Promise<void> | undefined;
  /**
   * The record ids of replies that answered a wait: a signature does not cover where a reply was
   * appended, so a copy of one verifies anywhere, and a caller that waits again on a correlation
   * (an A2A SubscribeToTask on a task that already answered once) would take the copy. A record
   * id answers once.
   */
  readonly #answered = new AnsweredReplies();

  /** @internal Use `client.replies(topic)`. */
  constructor(core: ClientCore, stream: string, topic: string) {
    this.#core = core;
    this.#deadlines = new DeadlineQueue<Waiter>(core.clock);
    this.stream = stream;
    this.topic = topic;
  }

  /** Number of pending waits. */
  get pending(): number {
    return this.#count;
  }

  /**
   * Registers a wait and resolves once the hub is reading from the current tail: send the
   * request after this resolves, then await `reply`.
   * @throws InvalidError for a bad timeout, or a verified wait without `expectFrom`;
   * LayoutMismatchError when the stream's layout declaration (`agdx.layout`) contradicts the
   * client's layout; a transport error when the topic cannot be described.
   */
  async expect(options: ReplyWaitOptions): Promise<PendingReply> {
    return this.register(options);
  }

  /**
   * @internal {@link ReplyHub.expect} without a promise of its own when none is needed: with
   * the readers running, a held layout check and no pacers (the common case under load on an
   * in-process log) the wait is registered synchronously and returned, else a promise of it.
   * @throws as `expect` rejects (synchronously for invalid options).
   */
  register(options: ReplyWaitOptions): PendingReply | Promise<PendingReply> {
    checkObject(options, 'options');
    checkTimeoutMs(options.timeoutMs);
    checkInstance(options.correlation, CorrelationId, 'correlation');
    checkInstance(options.conversation, ConversationId, 'conversation');
    // Anything but a RecordId (its text, say) would never equal a reply's record: the rule that
    // a request never answers itself would be off without a word.
    if (options.request !== undefined) checkInstance(options.request, RecordId, 'request');
    const signal = checkSignal(options.signal);
    const cancelMessage = options.cancelMessage ?? 'reply wait aborted';
    if (signal?.aborted === true) throw new CancelledError(cancelMessage, { cause: signal.reason });
    if (this.#core.shared.closed) throw new CancelledError('the client is closed');
    const verifier = options.verifier === null ? undefined : (options.verifier ?? this.#core.verifier);
    const allowed = verifier === undefined ? undefined : allowedSigners(options);
    // A client given another layout than the stream declares would wait for a reply (and send a
    // request) where the writers never put them: fail now rather than at the timeout. Checked
    // before the wait registers, nothing per record; see #layoutChecked for how often.
    const check = this.#checkLayout();
    const run = this.#run;
    if (check === undefined && run !== undefined && run.pacers === undefined) return this.#arm(this.#enrol(options, allowed, verifier, cancelMessage), options, cancelMessage);
    return this.#registerLater(options, check, allowed, verifier, cancelMessage);
  }

  /** The rest of {@link ReplyHub.register} when it has something to await. */
  async #registerLater(options: ReplyWaitOptions, check: Promise<void> | undefined, allowed: SignerCheck | undefined, verifier: Verifier | undefined, cancelMessage: string): Promise<PendingReply> {
    if (check !== undefined) {
      await check;
      if (this.#core.shared.closed) throw new CancelledError('the client is closed');
    }
    const waiter = this.#enrol(options, allowed, verifier, cancelMessage);
    // Running readers (the common case under load) need no await: one async hop less per request.
    if (this.#run === undefined) {
      try {
        await this.#ensureRunning();
      } catch (error) {
        waiter.reject(error);
        throw error;
      }
    }
    // The request goes out next: the reader of the partition its reply will land on looks at once
    // and stays hot for it.
    const pacers = this.#run?.pacers;
    waiter.pacers = pacers;
    waiter.pacer = pacers === undefined ? undefined : await this.#expectOn(pacers, waiter.criteria);
    return this.#arm(waiter, options, cancelMessage);
  }

  /** A new wait for `options`, registered (the readers' dispatch sees it from now on). */
  #enrol(options: ReplyWaitOptions, allowed: SignerCheck | undefined, verifier: Verifier | undefined, cancelMessage: string): Waiter {
    const criteria: ReplyCriteria = {
      correlation: options.correlation,
      conversation: options.conversation,
      requester: options.requester === undefined ? undefined : toAgentId(options.requester),
      request: options.request,
    };
    const key = options.correlation.toString();
    const waiter = new Waiter(key, criteria, allowed, verifier, cancelMessage, this.#settled);
    this.#add(key, waiter);
    return waiter;
  }

  /** Watches the caller's signal and arms the timeout of a registered wait. */
  #arm(waiter: Waiter, options: ReplyWaitOptions, cancelMessage: string): Waiter {
    const signal = options.signal;
    // One listener per signal however many waits share it; a signal that fired while the hub
    // was starting still cancels the wait.
    if (signal !== undefined) waiter.unwatch = watchAbort(signal, () => waiter.reject(new CancelledError(cancelMessage, { cause: signal.reason })));
    if (!waiter.settled) {
      waiter.timeoutMessage = options.timeoutMessage ?? 'reply';
      waiter.timeoutMs = options.timeoutMs;
      // Every wait of the hub times out through one clock timer (see DeadlineQueue).
      try {
        this.#deadlines.add(waiter, options.timeoutMs);
      } catch (error) {
        // A clock whose timer throws: the wait is not left registered (pending for good, keeping
        // the readers running) behind the caller's error.
        waiter.reject(error);
        throw error;
      }
      waiter.deadlines = this.#deadlines;
    }
    return waiter;
  }

  /**
   * Registers a wait and awaits it. The hub starts reading at the tail when called, so call it
   * before the request is sent (or use {@link ReplyHub.expect}).
   */
  async wait(options: ReplyWaitOptions): Promise<AgentMessage> {
    return (await this.expect(options)).reply;
  }

  /** Rejects every pending wait with CancelledError and stops the readers. */
  close(): void {
    for (const w of this.#all()) w.reject(new CancelledError('the client is closed'));
    this.#stop();
  }

  /**
   * Wakes the reader of the partition the reply is routed to when the responder uses the same
   * layout (by conversation key, or the requester's declared partition), or every reader when
   * that cannot be told, and returns that reader's pacer (none: every reader). Only latency
   * depends on the guess: every partition is still read.
   */
  async #expectOn(pacers: readonly PollPacer[], criteria: ReplyCriteria): Promise<PollPacer | undefined> {
    const route = routeRecord(this.#core.layout, this.topic, 'response', criteria.requester?.value, criteria.conversation.toString());
    let partition: number | undefined;
    if ('partition' in route.routing) partition = route.routing.partition;
    else if ('key' in route.routing) partition = await partitionForKey(route.routing.key, pacers.length).catch(() => undefined);
    const pacer = partition === undefined ? undefined : pacers[partition];
    if (pacer !== undefined) pacer.active();
    else for (const p of pacers) p.active();
    return pacer;
  }

  /** The layout check a wait must await, or `undefined` while a passed check holds. */
  #checkLayout(): Promise<void> | undefined {
    const clock = this.#core.clock;
    if (this.#layoutChecked !== undefined && clock.nowMicros() - this.#layoutChecked < LAYOUT_CHECK_HOLD_MICROS) return undefined;
    if (this.#layoutCheck !== undefined) return this.#layoutCheck;
    // It does not take a caller's signal: an abort meanwhile cancels the wait once registered.
    const check = checkLayoutDeclaration(this.#core.transport, this.stream, this.#core.layout).then(
      () => {
        this.#layoutChecked = clock.nowMicros();
        this.#layoutCheck = undefined;
      },
      (error: unknown) => {
        this.#layoutChecked = undefined;
        this.#layoutCheck = undefined;
        throw error;
      },
    );
    this.#layoutCheck = check;
    return check;
  }

  #scheduleIdleStop(): void {
    if (this.#idleTimer !== undefined) return;
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = undefined;
      if (this.#count === 0) this.#stop();
    }, IDLE_GRACE_MS);
  }

  #add(key: string, waiter: Waiter): void {
    const found = this.#waiters.get(key);
    if (found === undefined) this.#waiters.set(key, waiter);
    else if (Array.isArray(found)) found.push(waiter);
    else this.#waiters.set(key, [found, waiter]);
    this.#count++;
    if (this.#idleTimer !== undefined) {
      clearTimeout(this.#idleTimer);
      this.#idleTimer = undefined;
    }
  }

  // Bound once per hub: every waiter reports its settling through it.
  readonly #settled = (key: string, waiter: Waiter): void => this.#remove(key, waiter);

  #remove(key: string, waiter: Waiter): void {
    const found = this.#waiters.get(key);
    if (found === waiter) this.#waiters.delete(key);
    else {
      const at = Array.isArray(found) ? found.indexOf(waiter) : -1;
      if (at === -1) return;
      (found as Waiter[]).splice(at, 1);
      if ((found as Waiter[]).length === 0) this.#waiters.delete(key);
    }
    if (--this.#count === 0) {
      if (this.#core.shared.closed) this.#stop();
      else this.#scheduleIdleStop();
    }
  }

  #stop(): void {
    if (this.#idleTimer !== undefined) {
      clearTimeout(this.#idleTimer);
      this.#idleTimer = undefined;
    }
    const run = this.#run;
    this.#run = undefined;
    run?.controller.abort();
  }

  async #ensureRunning(): Promise<void> {
    if (this.#run !== undefined) return;
    if (this.#starting === undefined) {
      this.#starting = this.#seed().finally(() => {
        this.#starting = undefined;
      });
    }
    const run = await this.#starting;
    if (this.#run === undefined && this.#count > 0) {
      this.#run = run;
      run.cursors.forEach((_, partition) => void this.#pump(run, partition));
    }
  }

  async #seed(): Promise<Run> {
    const description = await this.#core.transport.describeTopic({ stream: this.stream, topic: this.topic });
    const cursors = description.partitions.map((p) => p.nextOffset);
    const pacers = this.#core.transport.waitsByPolling === true ? cursors.map(() => new PollPacer()) : undefined;
    return { controller: new AbortController(), cursors, pacers };
  }

  async #pump(run: Run, partition: number): Promise<void> {
    const transport = this.#core.transport;
    const signal = run.controller.signal;
    const stream = this.stream;
    const topic = this.topic;
    const turn = new CooperativeYield();
    // After a short read the partition was drained, so the next read would come back empty:
    // wait first (a wait returns at once when records arrived meanwhile).
    let drained = false;
    // When waits poll, a waitFor before each read would cost a request and its back-off sleep:
    // read directly and let the pacer time the next read.
    const pacer = run.pacers?.[partition];
    try {
      while (!signal.aborted) {
        const pause = turn.maybeYield();
        if (pause !== undefined) await pause;
        const offset = run.cursors[partition] as bigint;
        if (pacer === undefined && drained) {
          if (!(await transport.waitFor({ stream, topic, partition, offset, timeoutMs: PUMP_WAIT_MS, signal }))) continue;
          // With several waits pending, the first reply's append may be the first of a burst:
          // let the burst finish, then serve every wait it answers from one read.
          if (this.#count > 1) await burstEnd();
        }
        const records = await transport.read({ stream, topic, partition, offset, maxCount: READ_BATCH, signal });
        drained = records.length < READ_BATCH;
        if (records.length === 0) {
          await pacer?.idle(signal);
          continue;
        }
        pacer?.active();
        for (const record of records) {
          if (signal.aborted) return;
          // Only a verified wait needs to await; plain replies settle synchronously.
          const verifying = this.#dispatch(record, partition);
          if (verifying !== undefined) await verifying;
          run.cursors[partition] = record.offset + 1n;
        }
      }
    } catch (error) {
      if (signal.aborted || AgdxError.is(error, 'cancelled')) return;
      // The log failed under us: fail the waits rather than leave them hanging until their timeout,
      // and retire this run (its other readers too) so the next wait seeds fresh readers instead
      // of registering with dead ones.
      if (this.#run === run) {
        this.#run = undefined;
        run.controller.abort();
        for (const w of this.#all()) w.reject(error);
      }
    }
  }

  #dispatch(record: LogRecord, partition: number): Promise<void> | undefined {
    if (this.#count === 0) return undefined;
    let message: AgentMessage;
    try {
      message = readAgentMessage(record, { stream: this.stream, topic: this.topic });
    } catch (error) {
      // An undecodable record answers nothing; the waits go on, and the owner hears where it is.
      this.#report('undecodable', record, partition, 'skipped an undecodable record on a reply topic', error);
      return undefined;
    }
    const envelope = message.envelope;
    if (envelope === undefined || envelope.correlation === undefined) return undefined;
    if (envelope.kind !== 'response' && envelope.kind !== 'error') return undefined;
    const found = this.#waiters.get(envelope.correlation.toString());
    if (found === undefined) return undefined;
    const id = envelope.record;
    if (id !== undefined && this.#answered.has(id)) {
      this.#report('replayed', record, partition, `a copy of reply ${id.toString()}, which already answered a wait`);
      return undefined;
    }
    let verified: Waiter[] | undefined;
    let answered = false;
    // Settling a waiter removes it from the list, so several are walked on a copy.
    const several = Array.isArray(found) ? [...found] : undefined;
    for (let i = 0, n = several?.length ?? 1; i < n; i++) {
      const waiter = several === undefined ? (found as Waiter) : (several[i] as Waiter);
      if (waiter.settled || !answersRequest(envelope, waiter.criteria)) continue;
      if (waiter.verifier === undefined) {
        waiter.resolve(message);
        answered = true;
      } else (verified ??= []).push(waiter);
    }
    // Not answered before: the check above said so.
    if (answered && id !== undefined) this.#answered.add(id);
    return verified === undefined ? undefined : this.#dispatchVerified(record, partition, message, envelope, verified, id);
  }

  /** Every pending wait, in a new array (settling one changes the map). */
  #all(): Waiter[] {
    const all: Waiter[] = [];
    for (const found of this.#waiters.values()) {
      if (Array.isArray(found)) all.push(...found);
      else all.push(found);
    }
    return all;
  }

  async #dispatchVerified(record: LogRecord, partition: number, message: AgentMessage, envelope: AgentEnvelope, waiters: readonly Waiter[], id: RecordId | undefined): Promise<void> {
    for (const waiter of waiters) {
      let principal: VerifiedPrincipal;
      try {
        principal = await (waiter.verifier as Verifier).verifyAt(envelope, record.timestampMicros, record.headers);
      } catch (error) {
        // Unsigned, unknown key, bad signature, key outside its window: never an answer.
        this.#report('unverified', record, partition, 'a reply failed verification', error);
        continue;
      }
      if (!speaksAsSigner(envelope, principal)) {
        this.#report('source-mismatch', record, partition, `a reply from \`${envelope.source.value}\` was signed by a key of \`${principal.principal}\``);
        continue;
      }
      if (waiter.allowed !== undefined && !waiter.allowed(principal, envelope)) {
        this.#report('signer-not-allowed', record, partition, `a reply signed by \`${principal.principal}\` is not from an agent the wait accepts`);
        continue;
      }
      waiter.resolve({ ...message, verifiedPrincipal: principal });
      // Several verified waits on one reply: it is remembered once.
      if (id !== undefined && !this.#answered.has(id)) this.#answered.add(id);
    }
  }

  #report(reason: SkipReason, record: LogRecord, partition: number, message: string, cause?: unknown): void {
    const onError = this.#core.onError;
    if (onError === undefined) return;
    try {
      onError(new SkippedRecordError(reason, { stream: this.stream, topic: this.topic, partition, offset: record.offset }, message, { cause }));
    } catch {
      // An observer's failure must not stop the readers.
    }
  }
}

/**
 * The signer check of a verified wait: `expectFrom`, else the deprecated `expectedSigner`.
 * @throws InvalidError when neither is set: an untargeted verified wait must say whom it trusts.
 */
function allowedSigners(options: ReplyWaitOptions): SignerCheck {
  const policy = options.expectFrom ?? options.expectedSigner;
  if (policy === undefined) {
    throw new InvalidError('a verified wait needs `expectFrom`: the agent (or agents, or a predicate) whose signed reply may answer it', {
      context: { field: 'expectFrom' },
    });
  }
  return signerCheck(policy);
}
