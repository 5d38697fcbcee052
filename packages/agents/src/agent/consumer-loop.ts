/**
 * The delivery half of the reliable consumer: it owns a consumer-group membership, reads the
 * partitions the group assigns from a local cursor (so records can be handled while later ones
 * are fetched), hands each partition's records to one serial lane, and commits a partition's
 * offset only after its records were consumed. Order inside a partition is always kept; lanes of
 * different partitions run in parallel up to the configured parallelism.
 *
 * On a log whose waits poll (Iggy, `waitsByPolling`) the loop does not sleep in `waitFor`: each
 * partition is read on its own schedule (partition-pace.ts: at once after a full read; while
 * records come on several partitions, a moment after a read that drained one; while they come on
 * one at most, at once after records and for a few reads after; backing off while a partition
 * reads empty, up to `idleWaitMs`, the agent's `pollInterval`), and the group assignment is
 * re-checked once per `idleWaitMs` (at least {@link ASSIGNMENT_RECHECK_MS}) instead of before
 * every read, since each read, check and commit is a request of its own on a connection that
 * carries one at a time.
 *
 * On a log whose writer wakes the waits (MemoryLog), a loop whose last read found more than one
 * record waits for the end of the current burst (a macrotask hop, see {@link burstEnd}) after it
 * is woken, so the records a burst of requests appends arrive in one read instead of one read and
 * one wake-up each; a loop serving one record at a time reads at once.
 */
import { burstEnd } from '../clock/after-burst.js';
import { CooperativeYield } from '../clock/cooperative-yield.js';
import { afterRead, answered, freshPace, isBusy, type PartitionPace } from './partition-pace.js';
import { AgdxError } from '@agdx/wire';
import type { HandlerTurn } from './handler-turn.js';
import type { GroupMember, LogRecord, LogTransport } from '@agdx/transport';

/** What the loop needs. */
export interface ConsumerLoopOptions {
  /** The log. */
  readonly transport: LogTransport;
  /** Stream of the consumed topic. */
  readonly stream: string;
  /** The consumed topic. */
  readonly topic: string;
  /** Consumer group name. */
  readonly group: string;
  /** Partitions handled at once (1 = serial). */
  readonly parallelism: number;
  /** Records read ahead per partition before reading pauses. */
  readonly maxQueuedRecords: number;
  /**
   * Longest idle wait before the assignment is checked again, in ms; on a log whose waits poll
   * also the longest pause between reads and the age at which a known assignment is re-checked.
   */
  readonly idleWaitMs: number;
  /**
   * Only these partitions of the assignment are handled (a partition-per-agent layout); others the
   * group assigns to this member are left alone, neither read nor committed. Omitted: all.
   */
  readonly partitions?: readonly number[] | undefined;
  /** Pause before a partition whose record failed to consume is read again, in ms. */
  readonly retryDelayMs: number;
  /**
   * Consumes one record. Resolving means the record may be committed; throwing means it stays
   * uncommitted and is read again after `retryDelayMs`. `turn.release()` lets the lane start the
   * next record's handler before this one settled (its answers still being acknowledged).
   */
  readonly consume: (record: LogRecord, partition: number, turn: HandlerTurn, resumes?: number) => Promise<unknown>;
  /**
   * The crash-loop guard (resume-markers.ts): called before a lane created by a start or a
   * takeover handles its first record, it records the resume on the log and resolves with the
   * number of earlier starts that resumed at that record without getting past it. When that is
   * more than 0 the record is consumed alone, `consume` is given the count as `resumes`, and its
   * offset is committed before the next record starts, so a crash further on is counted against
   * the record that caused it. A rejection is reported and the record runs unguarded. Omitted:
   * no guard.
   */
  readonly resuming?: ((partition: number, offset: bigint, signal: AbortSignal) => Promise<number>) | undefined;
  /**
   * Withdraws the marker `resuming` wrote when the lane then did not run its record (a graceful
   * stop, or the partition lost, came first): that start did not die at the record. Failures are
   * reported; omitted: nothing is withdrawn.
   */
  readonly withdrawResume?: ((partition: number, offset: bigint) => Promise<void>) | undefined;
  /**
   * Says, from what `consume` resolved with, that reading the record again would do nothing
   * (a record skipped as not this consumer's work). On a polling log a commit that covers only
   * such records waits longer ({@link LAZY_COMMIT_MS}): a crash before it replays reads, not
   * work. Omitted: every record counts as work.
   */
  readonly replayable?: ((result: unknown) => boolean) | undefined;
  /**
   * Records per partition whose handler ran but whose effects are not yet all acknowledged
   * (default 1: each record settles before the next starts). Commits never pass an unsettled one.
   */
  readonly pipelineDepth?: number | undefined;
  /** Told about errors the loop survives. */
  readonly onError: (error: unknown) => void;
}

interface Lane {
  readonly partition: number;
  /** Next offset to read. */
  cursor: bigint;
  queue: LogRecord[];
  running: boolean;
  /** Bumped when the partition is lost, so a running lane stops. */
  generation: number;
  /** Aborted when the lane is dropped (its partition lost): running handlers' `ctx.signal` follows it. */
  readonly lost: AbortController;
  /** Consumed but not yet committed. */
  pending: bigint | undefined;
  /** No reads before this time (ms, performance-free Date.now) after a failure. */
  retryAt: number;
  /** On a polling log: when this partition is read next (see partition-pace.ts). */
  readonly pace: PartitionPace;
  waiting: boolean;
  /** The pending wait for a record at `arrivalAt`, kept across idle periods. */
  arrival: Promise<unknown> | undefined;
  arrivalAt: bigint;
  /** Ends when the current handler turn does (see {@link HandlerTurn}). */
  turn: Promise<void>;
  /** False once `turn` has ended (saves a microtask per record). */
  turnBusy: boolean;
  /** The commit in flight, and whether another was asked for meanwhile. */
  committing: Promise<void> | undefined;
  recommit: boolean;
  /** A commit put off for a moment (polling logs), so a quiet stretch's records share it. */
  lingering: ReturnType<typeof setTimeout> | undefined;
  /** When the put-off commit is due (performance.now() ms). */
  lingerDue: number;
  /** The consumed, uncommitted records include work (not only replayable ones). */
  pendingWork: boolean;
  /** Created by a start or takeover and not yet past the crash-loop guard (see `resuming`). */
  fresh: boolean;
  /** Wakes a running lane that waits for more records. */
  nudge: (() => void) | undefined;
  /** The promise `nudge` settles, shared by the waits of one idle stretch. */
  nudged: Promise<void> | undefined;
}

/** A started record of a lane run. */
interface Unsettled {
  readonly offset: bigint;
  ok: boolean;
  /** Settled, either way. */
  done: boolean;
  /** Consumed, and reading it again would do nothing (see `replayable`). */
  replayable: boolean;
  /** Never rejects: a failure is recorded in the lane run. */
  settled: Promise<void>;
}

/** What one lane run keeps. */
interface LaneRun {
  readonly generation: number;
  sinceCommit: number;
  /** The earliest record that failed to consume. */
  failed: { readonly offset: bigint; readonly error: unknown } | undefined;
}

const READ_BATCH = 256;
const COMMIT_EVERY = 32;
/**
 * How long an idle commit of work waits on a polling log: the commits of one partition are at
 * most ten a second however fast its records come (a crash replays at most this much work, far
 * less than Kafka's 5 s auto-commit).
 */
export const COMMIT_LINGER_MS = 100;
/**
 * How long an idle commit waits on a polling log when it covers only replayable records (skipped
 * as another agent's work): on a topic several agents share, those are most of what each agent
 * reads, and committing them as eagerly as work multiplied the commits (one request each).
 */
export const LAZY_COMMIT_MS = 250;
/** How often a graceful stop tries to commit a lane's offset (a failed commit is tried again). */
const STOP_COMMIT_TRIES = 3;
const LANE_QUANTUM = 64;
/** The per-partition read pauses on a polling log (see partition-pace.ts). */
export { EMPTY_PARTITION_PAUSE_MS, DRAINED_PAUSE_MS, MAX_DRAINED_PAUSE_MS, DRAINED_TARGET_RECORDS, HOT_READS, HOT_WINDOW_MS } from './partition-pace.js';
/**
 * Shortest time between two assignment checks on a polling log (each is a request): an agent
 * with a short `pollInterval` still asks at most ten times a second. A commit refused for a lost
 * partition makes it ask at once.
 */
export const ASSIGNMENT_RECHECK_MS = 100;

const SETTLED: Promise<void> = Promise.resolve();

/**
 * One record's handler turn on its lane: taken when the record starts, ended when the handler
 * returned or the record settled (whichever is first; ending twice is harmless). A class, not a
 * set of closures, since a lane takes one per record.
 */
class RecordTurn implements HandlerTurn {
  readonly #lane: Lane;
  readonly #mine: Promise<void>;
  readonly #again: (lane: Lane) => Promise<() => void>;
  #end!: () => void;

  constructor(lane: Lane, again: (lane: Lane) => Promise<() => void>) {
    this.#lane = lane;
    this.#again = again;
    this.#mine = new Promise<void>((resolve) => (this.#end = resolve));
    lane.turnBusy = true;
    lane.turn = this.#mine;
  }

  release(): void {
    if (this.#lane.turn === this.#mine) this.#lane.turnBusy = false;
    this.#end();
  }

  again(): Promise<() => void> {
    return this.#again(this.#lane);
  }

  get signal(): AbortSignal {
    return this.#lane.lost.signal;
  }
}

/** One consumer-group member's read / consume / commit loop. */
export class ConsumerLoop {
  readonly #o: ConsumerLoopOptions;
  #member: GroupMember | undefined;
  readonly #lanes = new Map<number, Lane>();
  /**
   * Lanes dropped (their partition lost) while a handler of theirs still ran, by partition. A
   * partition given back meanwhile gets no new lane until its old one finished: the new lane
   * re-reads from the group's offset, so it would run the same record's handler side by side
   * with the old one (handlers of one partition never overlap).
   */
  readonly #retired = new Map<number, Lane>();
  readonly #ready: Lane[] = [];
  #active = 0;
  #stopping = false;
  #hardStopped = false;
  #wake: (() => void) | undefined;
  #owned = '';
  #memberWait: Promise<unknown> | undefined;
  readonly #lowWater: number;
  readonly #stop = new AbortController();
  readonly #idle = new Set<() => void>();
  /** Set when the transport's waits poll: the loop paces its own reads, per partition. */
  readonly #polling: boolean;
  /** Polling log: the last round found records on several partitions (see partition-pace.ts). */
  #busy = false;
  #assignment: readonly number[] = [];
  #assignmentAt = -Infinity;
  /** The last read that found records found more than one: work comes in bursts. */
  #bursty = false;

  /** A loop; {@link start} joins the group. */
  constructor(options: ConsumerLoopOptions) {
    this.#o = options;
    this.#lowWater = Math.floor(options.maxQueuedRecords / 2);
    this.#polling = options.transport.waitsByPolling === true;
  }

  /** Joins the consumer group. */
  async start(): Promise<void> {
    this.#member = await this.#o.transport.joinGroup({ stream: this.#o.stream, topic: this.#o.topic, group: this.#o.group });
  }

  /** True after a hard stop: nothing is committed any more. */
  get hardStopped(): boolean {
    return this.#hardStopped;
  }

  /** Reads and dispatches until {@link stop} or {@link abort}. */
  async run(): Promise<void> {
    const member = this.#member;
    if (member === undefined) throw new Error('ConsumerLoop.run() before start()');
    const o = this.#o;
    const turn = new CooperativeYield();
    while (!this.#stopping) {
      const pause = turn.maybeYield();
      if (pause !== undefined) await pause;
      let owned: readonly number[];
      try {
        const assigned = await this.#assigned(member);
        owned = o.partitions === undefined ? assigned : assigned.filter((p) => o.partitions?.includes(p) === true);
        await this.#sync(owned);
      } catch (error) {
        if (this.#stopping) break;
        // A closed member or connection cannot come back; anything else is retried after a pause.
        if (AgdxError.is(error, 'closed')) throw error;
        o.onError(error);
        await new Promise((resolve) => setTimeout(resolve, o.retryDelayMs));
        continue;
      }
      if (owned.length === 0 && o.partitions !== undefined) {
        // A standby member (the group gave the agent's partition to another): nothing to read
        // until a rebalance, which the next assignment check after one idle wait notices.
        await this.#standBy();
        continue;
      }
      let progressed = false;
      let largest = 0;
      let full = false;
      const polling = this.#polling;
      // On a polling log only the partitions whose read is due are read in this round.
      const now = polling ? performance.now() : 0;
      // Records on several partitions: pace for fewer reads; on one at most: for latency.
      const busy = polling && isBusy(this.#lanes.values(), now);
      this.#busy = busy;
      for (const partition of owned) {
        if (this.#stopping) break;
        const lane = this.#lanes.get(partition);
        if (lane === undefined || lane.queue.length >= o.maxQueuedRecords || lane.retryAt > Date.now() || (polling && lane.pace.dueAt > now)) continue;
        const generation = lane.generation;
        let records: readonly LogRecord[];
        try {
          records = await o.transport.read({ stream: o.stream, topic: o.topic, partition, offset: lane.cursor, maxCount: READ_BATCH });
        } catch (error) {
          if (this.#stopping) break;
          o.onError(error);
          lane.retryAt = Date.now() + o.retryDelayMs;
          continue;
        }
        if (polling) afterRead(lane.pace, records.length, records.length === READ_BATCH, performance.now(), o.idleWaitMs, busy);
        if (records.length === 0) continue;
        if (lane.generation !== generation) continue;
        lane.cursor = (records[records.length - 1] as LogRecord).offset + 1n;
        for (const record of records) lane.queue.push(record);
        progressed = true;
        if (records.length > largest) largest = records.length;
        if (records.length === READ_BATCH) full = true;
        this.#schedule(lane);
      }
      if (progressed) {
        this.#bursty = largest > 1;
        // A full read may have left records behind.
        if (full) continue;
      }
      if (this.#stopping) break;
      if (polling) await this.#untilDue(owned);
      else {
        // Nothing new, or every read was short (the partitions drained): wait rather than read
        // again, since an empty read is a loop turn of its own; the wait returns at once when
        // records arrived meanwhile.
        await this.#waitForWork(member, owned);
        // Woken by the first append of a burst: let the burst finish appending, then read it all.
        if (this.#bursty && !this.#stopping) await burstEnd();
      }
    }
  }

  /** True while a lane has records queued behind the one being handled (more answers are coming). */
  get backlog(): boolean {
    for (const lane of this.#lanes.values()) if (lane.queue.length > 0) return true;
    return false;
  }

  /** Waits `idleWaitMs`, or less when stopped. */
  async #standBy(): Promise<void> {
    const signal = this.#stop.signal;
    if (signal.aborted) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, this.#o.idleWaitMs);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /**
   * The member's partitions; on a polling log an answer younger than `idleWaitMs` (at least
   * {@link ASSIGNMENT_RECHECK_MS}) is reused.
   */
  async #assigned(member: GroupMember): Promise<readonly number[]> {
    if (!this.#polling) return member.assignment();
    const now = performance.now();
    // A lost commit clears #owned: ask again at once rather than keep reading a lost partition.
    if (this.#owned !== '' && now - this.#assignmentAt < Math.max(this.#o.idleWaitMs, ASSIGNMENT_RECHECK_MS)) return this.#assignment;
    const owned = await member.assignment();
    this.#assignment = owned;
    this.#assignmentAt = performance.now();
    return owned;
  }

  /**
   * Polling log: waits until the first owned partition's read is due (at most `idleWaitMs`), or
   * until a lane frees up or the loop stops. A partition that cannot be read now (its queue full,
   * or retrying after a failure) counts from when it can: at the earliest in a millisecond, so
   * the loop never spins.
   */
  async #untilDue(owned: readonly number[]): Promise<void> {
    const now = performance.now();
    const wall = Date.now();
    let due = now + this.#o.idleWaitMs;
    for (const partition of owned) {
      const lane = this.#lanes.get(partition);
      if (lane === undefined) continue;
      let at = lane.pace.dueAt;
      if (lane.retryAt > wall) at = Math.max(at, now + (lane.retryAt - wall));
      if (lane.queue.length >= this.#o.maxQueuedRecords) at = Math.max(at, now + 1);
      if (at < due) due = at;
    }
    if (due <= now || this.#stopping) return;
    const settled = new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([settled, new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(1, Math.ceil(due - now)))))]);
    } finally {
      clearTimeout(timer);
      this.#wake = undefined;
    }
  }

  /** Stops reading; resolves once running lanes finished their current record and committed. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#stop.abort();
    this.#wake?.();
    await this.#whenIdle();
    await this.#flushCommits();
    await this.#leave();
  }

  /**
   * Commits what every lane consumed (put-off commits at once) and waits for the commits in
   * flight; an offset whose commit failed is tried again, up to {@link STOP_COMMIT_TRIES} times.
   */
  async #flushCommits(): Promise<void> {
    for (let tries = 0; tries < STOP_COMMIT_TRIES; tries++) {
      let asked = false;
      for (const lane of this.#lanes.values()) {
        if (lane.lingering !== undefined || lane.pending !== undefined) {
          asked = true;
          this.#commitSoon(lane, lane.generation);
        }
      }
      for (const lane of this.#lanes.values()) while (lane.committing !== undefined) await lane.committing;
      if (!asked) return;
    }
  }

  /** Hard stop: no further commits, no waiting for handlers, leaves the group at once. */
  async abort(): Promise<void> {
    this.#hardStopped = true;
    this.#stopping = true;
    this.#stop.abort();
    this.#wake?.();
    for (const lane of this.#lanes.values()) clearTimeout(lane.lingering);
    await this.#leave();
  }

  async #leave(): Promise<void> {
    try {
      await this.#member?.leave();
    } catch (error) {
      if (!AgdxError.is(error, 'closed')) this.#o.onError(error);
    }
  }

  #whenIdle(): Promise<void> {
    if (this.#active === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.add(resolve));
  }

  async #sync(owned: readonly number[]): Promise<void> {
    const signature = owned.join(',');
    const changed = signature !== this.#owned;
    this.#owned = signature;
    for (const [partition, lane] of this.#lanes) {
      // After a rebalance an idle lane re-reads from the group's offset: the partition may have
      // been owned by another member in between (moved away and back unobserved).
      const stale = changed && !lane.running && !lane.waiting && lane.queue.length === 0 && lane.pending === undefined;
      if (stale || !owned.includes(partition)) this.#drop(lane);
    }
    for (const partition of owned) {
      if (this.#lanes.has(partition) || this.#retired.has(partition)) continue;
      const stored = await this.#o.transport.getOffset({
        stream: this.#o.stream,
        topic: this.#o.topic,
        partition,
        consumer: { kind: 'group', name: this.#o.group },
      });
      if (this.#lanes.has(partition)) continue;
      this.#lanes.set(partition, {
        partition,
        cursor: stored === undefined ? 0n : stored + 1n,
        queue: [],
        running: false,
        generation: 0,
        lost: new AbortController(),
        pending: undefined,
        retryAt: 0,
        pace: freshPace(),
        waiting: false,
        arrival: undefined,
        arrivalAt: -1n,
        turn: Promise.resolve(),
        turnBusy: false,
        committing: undefined,
        recommit: false,
        lingering: undefined,
        lingerDue: 0,
        pendingWork: false,
        fresh: this.#o.resuming !== undefined,
        nudge: undefined,
        nudged: undefined,
      });
    }
  }

  /** Forgets a lane (its partition is lost or must be re-read); one still running is retired until it finishes. */
  #drop(lane: Lane): void {
    lane.generation++;
    lane.lost.abort();
    lane.queue = [];
    lane.pending = undefined;
    this.#lanes.delete(lane.partition);
    if (lane.running) this.#retired.set(lane.partition, lane);
  }

  #schedule(lane: Lane): void {
    if (lane.running) {
      lane.nudge?.();
      lane.nudge = undefined;
      lane.nudged = undefined;
      return;
    }
    if (lane.waiting || lane.queue.length === 0) return;
    if (this.#active < this.#o.parallelism) {
      void this.#runLane(lane);
    } else {
      lane.waiting = true;
      this.#ready.push(lane);
    }
  }

  async #runLane(lane: Lane): Promise<void> {
    lane.running = true;
    this.#active++;
    const generation = lane.generation;
    const depth = this.#o.pipelineDepth ?? 1;
    // Records whose handler ran, in offset order, until all their effects are acknowledged.
    const unsettled: Unsettled[] = [];
    const state: LaneRun = { generation, sinceCommit: 0, failed: undefined };
    let handled = 0;
    const turn = new CooperativeYield();
    try {
      while (!this.#stopping && lane.generation === generation && state.failed === undefined) {
        if (lane.queue.length === 0 || unsettled.length >= depth) {
          if (unsettled.length === 0) break;
          // Answers in flight: wait for the oldest to settle, or (with room) for more records.
          // With room, the wait is for the newest instead: one read's answers leave in one append
          // and settle together, so one wait serves them all instead of one race per record.
          const oldest = unsettled[0] as Unsettled;
          const newest = unsettled[unsettled.length - 1] as Unsettled;
          await (lane.queue.length === 0 && unsettled.length < depth ? Promise.race([(newest.done ? oldest : newest).settled, this.#nudged(lane)]) : oldest.settled);
          this.#advance(lane, unsettled, state);
          continue;
        }
        const pause = turn.maybeYield();
        if (pause !== undefined) await pause;
        if (this.#stopping || lane.generation !== generation || lane.queue.length === 0) continue;
        // Handlers of one partition never overlap: wait until the previous one returned.
        // (A retry may queue its turn meanwhile, so look again after each.)
        while (lane.turnBusy) await lane.turn;
        if (this.#stopping || lane.generation !== generation || lane.queue.length === 0) continue;
        const record = lane.queue.shift() as LogRecord;
        // A full lane makes the reader wait; wake it at half, not after every record.
        const refill = lane.queue.length === this.#lowWater;
        if (lane.fresh) {
          lane.fresh = false;
          const resumed = await this.#resumed(lane, record, state, unsettled);
          if (this.#hardStopped) return;
          if (resumed !== 'normal') {
            if (refill) this.#wake?.();
            continue;
          }
        }
        const entry = this.#start(lane, record, state);
        unsettled.push(entry);
        if (this.#hardStopped) return;
        if (depth === 1) {
          await entry.settled;
          this.#advance(lane, unsettled, state);
        }
        if (refill) this.#wake?.();
        // With every slot taken and other partitions waiting, a busy partition yields after a
        // quantum so it cannot starve them (serial mode has a single slot).
        if (++handled >= LANE_QUANTUM && this.#ready.length > 0) break;
      }
      // Stopping, yielding or failed: what was started still settles before the lane lets go.
      for (const entry of unsettled) await entry.settled;
      this.#advance(lane, unsettled, state);
      if (this.#hardStopped) return;
      // The commit goes on in the background: the lane is free for the next record at once, and
      // stop() waits for it.
      this.#commitSoon(lane, generation, true);
      const failed = state.failed;
      if (failed !== undefined) {
        // A handler given up on because its partition was lost is no error: the new owner has it.
        if (!(lane.lost.signal.aborted && AgdxError.is(failed.error, 'cancelled'))) this.#o.onError(failed.error);
        if (lane.generation === generation) {
          // Read the failed record again after a pause; everything after it was not committed.
          lane.queue = [];
          lane.cursor = failed.offset;
          lane.retryAt = Date.now() + this.#o.retryDelayMs;
        }
      }
    } finally {
      lane.running = false;
      lane.nudge = undefined;
      lane.nudged = undefined;
      // A retired lane is done: its partition may get a lane again (the wake below asks).
      if (this.#retired.get(lane.partition) === lane) this.#retired.delete(lane.partition);
      this.#active--;
      this.#next();
      // Records queued while the lane was committing (or left by a yield) found it running and
      // were not scheduled; queue it again, behind the lanes that were waiting.
      if (!this.#stopping && lane.generation === generation && this.#lanes.get(lane.partition) === lane) this.#schedule(lane);
      // Quiet polling log: this partition's answers are out, so the next request may follow
      // any moment; read it again at once (the wake below starts the round).
      if (this.#polling && !this.#busy) answered(lane.pace, performance.now());
      this.#wake?.();
    }
  }

  /**
   * The first record of a lane created by a start or a takeover, through the crash-loop guard:
   * `normal` when no earlier start died at it (the caller starts it as usual), `done` when it was
   * consumed alone and committed, `gone` when the lane stopped or lost its partition meanwhile
   * (the record stays uncommitted).
   */
  async #resumed(lane: Lane, record: LogRecord, state: LaneRun, unsettled: Unsettled[]): Promise<'normal' | 'done' | 'gone'> {
    const resuming = this.#o.resuming;
    if (resuming === undefined) return 'normal';
    let resumes = 0;
    let marked = false;
    try {
      resumes = await resuming(lane.partition, record.offset, this.#stop.signal);
      marked = true;
    } catch (error) {
      if (this.#stopping) return 'gone';
      // Fail open: an unguarded resume is what every start was before the guard, and a marker
      // topic the agent may not write must not stall its partitions.
      this.#o.onError(error);
    }
    if (this.#stopping || lane.generation !== state.generation) {
      // The marker is written but the record will not run here: withdraw it, or clean stops and
      // rebalances between marker and handler would add up to a dead letter for a record no
      // start ever ran. A hard stop is a death, and its marker stays.
      if (marked && !this.#hardStopped) await this.#withdraw(lane.partition, record.offset);
      return 'gone';
    }
    if (resumes === 0) return 'normal';
    // An earlier start resumed here and never got past it. This record runs alone and its offset
    // is committed before the next starts: a crash while a later record runs (pipelined beside it,
    // or before a lazy commit) then resumes after it, and is not counted against it.
    const entry = this.#start(lane, record, state, resumes);
    unsettled.push(entry);
    await entry.settled;
    this.#advance(lane, unsettled, state);
    if (entry.ok && !this.#hardStopped && lane.generation === state.generation) {
      this.#commitSoon(lane, state.generation);
      while (lane.committing !== undefined) await lane.committing;
    }
    return 'done';
  }

  /** Withdraws a resume marker whose record this lane did not run; a failure is only reported. */
  async #withdraw(partition: number, offset: bigint): Promise<void> {
    const withdraw = this.#o.withdrawResume;
    if (withdraw === undefined) return;
    try {
      await withdraw(partition, offset);
    } catch (error) {
      this.#o.onError(error);
    }
  }

  /** Starts consuming `record`; its handler turn ends when the handler returned or the record settled. */
  #start(lane: Lane, record: LogRecord, state: LaneRun, resumes?: number): Unsettled {
    const turn = new RecordTurn(lane, this.#againFor);
    const entry: Unsettled = { offset: record.offset, ok: false, done: false, replayable: false, settled: SETTLED };
    const replayable = this.#o.replayable;
    entry.settled = this.#o.consume(record, lane.partition, turn, resumes).then(
      (result) => {
        turn.release();
        entry.ok = true;
        entry.done = true;
        if (replayable !== undefined) entry.replayable = replayable(result);
      },
      (error: unknown) => {
        turn.release();
        entry.done = true;
        // The earliest failure is where the lane re-reads from.
        if (state.failed === undefined || record.offset < state.failed.offset) state.failed = { offset: record.offset, error };
      },
    );
    return entry;
  }

  // Bound once per loop: every record's turn asks for another turn through it.
  readonly #againFor = (lane: Lane): Promise<() => void> => this.#again(lane);


  /** A retry of a record whose handler turn ended: queues a turn behind the current one. */
  async #again(lane: Lane): Promise<() => void> {
    const prior = lane.turn;
    let end!: () => void;
    const mine = new Promise<void>((resolve) => (end = resolve));
    lane.turnBusy = true;
    const next = prior.then(() => mine);
    lane.turn = next;
    await prior;
    return () => {
      if (lane.turn === next) lane.turnBusy = false;
      end();
    };
  }

  /** Marks the settled prefix consumed and commits it now and then (in the background). */
  #advance(lane: Lane, unsettled: Unsettled[], state: LaneRun): void {
    let moved = false;
    while (unsettled.length > 0 && (unsettled[0] as Unsettled).ok) {
      const entry = unsettled.shift() as Unsettled;
      lane.pending = entry.offset;
      if (!entry.replayable) lane.pendingWork = true;
      state.sinceCommit++;
      moved = true;
    }
    if (!moved || this.#hardStopped) return;
    const full = state.sinceCommit >= COMMIT_EVERY;
    if (full || (lane.queue.length === 0 && unsettled.length === 0)) {
      state.sinceCommit = 0;
      this.#commitSoon(lane, state.generation, !full);
    }
  }

  /**
   * One commit per lane at a time; a commit asked for meanwhile follows it with the newest offset.
   * An idle commit on a polling log waits {@link COMMIT_LINGER_MS} first ({@link LAZY_COMMIT_MS}
   * when it covers only skipped records): there a commit is a request of its own (two on classic
   * Iggy: ownership check, store) on a connection that carries one request at a time, and one per
   * record doubled the requests of an agent answering one record at a time. Records handled in
   * the meantime share it; every 32nd record and stop() commit at once.
   */
  #commitSoon(lane: Lane, generation: number, idle = false): void {
    if (idle && this.#polling && !this.#stopping) {
      const ms = lane.pendingWork ? COMMIT_LINGER_MS : LAZY_COMMIT_MS;
      // Work joining a lazy commit brings it forward; a later idle point never puts it off.
      if (lane.lingering !== undefined && lane.lingerDue <= performance.now() + ms) return;
      this.#commitIn(lane, generation, ms);
      return;
    }
    if (lane.lingering !== undefined) {
      clearTimeout(lane.lingering);
      lane.lingering = undefined;
    }
    if (lane.committing !== undefined) {
      lane.recommit = true;
      return;
    }
    lane.committing = this.#commit(lane, generation).finally(() => {
      lane.committing = undefined;
      if (lane.recommit) {
        lane.recommit = false;
        this.#commitSoon(lane, generation);
      }
    });
  }

  /** Resolves when records are queued for a running lane. */
  #nudged(lane: Lane): Promise<void> {
    return (lane.nudged ??= new Promise<void>((resolve) => (lane.nudge = resolve)));
  }

  #next(): void {
    while (this.#active < this.#o.parallelism) {
      const lane = this.#ready.shift();
      if (lane === undefined) break;
      lane.waiting = false;
      if (this.#lanes.get(lane.partition) !== lane || lane.queue.length === 0) continue;
      void this.#runLane(lane);
    }
    if (this.#active === 0) {
      for (const resolve of this.#idle) resolve();
      this.#idle.clear();
    }
  }

  async #commit(lane: Lane, generation: number): Promise<void> {
    const offset = lane.pending;
    if (offset === undefined || this.#hardStopped || lane.generation !== generation) return;
    const work = lane.pendingWork;
    lane.pending = undefined;
    lane.pendingWork = false;
    try {
      await this.#member?.commit(lane.partition, offset);
    } catch (error) {
      // Losing the partition to a rebalance makes the commit a conflict: the new owner reads
      // the record again (at least once), so there is nothing to repair here.
      if (AgdxError.is(error, 'conflict')) {
        if (this.#lanes.get(lane.partition) === lane) this.#drop(lane);
        this.#owned = '';
      } else if (!AgdxError.is(error, 'closed')) {
        this.#o.onError(error);
        this.#commitFailed(lane, generation, offset, work);
      }
    }
  }

  /**
   * A commit that failed (not for a lost partition): its offset is pending again, unless a newer
   * one is, and is committed again after `retryDelayMs`. Dropping it would leave a quiet
   * partition uncommitted until its next record, and a graceful stop would not commit it at all,
   * so a restart would handle the record again.
   */
  #commitFailed(lane: Lane, generation: number, offset: bigint, work: boolean): void {
    if (this.#hardStopped || lane.generation !== generation) return;
    if (lane.pending === undefined) lane.pending = offset;
    if (work) lane.pendingWork = true;
    if (this.#stopping) return;
    this.#commitIn(lane, generation, this.#o.retryDelayMs);
  }

  /** Puts the lane's commit off by `ms`, replacing a put-off commit already set. */
  #commitIn(lane: Lane, generation: number, ms: number): void {
    clearTimeout(lane.lingering);
    lane.lingerDue = performance.now() + ms;
    lane.lingering = setTimeout(() => {
      lane.lingering = undefined;
      this.#commitSoon(lane, generation);
    }, ms);
  }

  async #waitForWork(member: GroupMember, owned: readonly number[]): Promise<void> {
    const o = this.#o;
    const settled = new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
    const races: Promise<unknown>[] = [settled];
    let busy = this.#active > 0;
    let retrying = false;
    for (const partition of owned) {
      const lane = this.#lanes.get(partition);
      if (lane === undefined) continue;
      if (lane.queue.length > 0 || lane.running) busy = true;
      if (lane.retryAt > Date.now()) {
        retrying = true;
        continue;
      }
      if (lane.queue.length >= o.maxQueuedRecords) continue;
      races.push(this.#arrival(lane));
    }
    // The member's wait also wakes on a rebalance, but it counts uncommitted records as new, so
    // it only joins the race when nothing is in flight.
    // Partitions left alone are never committed, so the member's wait would always see them as
    // new: with a partition filter, a rebalance is noticed at the next idle timeout instead.
    if (!busy && !retrying && o.partitions === undefined) races.push((this.#memberWait ??= this.#settleLater(member.waitFor(o.idleWaitMs, { signal: this.#stop.signal }), () => (this.#memberWait = undefined))));
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (races.length === 1 || retrying) {
      const ms = retrying ? Math.min(o.retryDelayMs, o.idleWaitMs) : o.idleWaitMs;
      races.push(new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))));
    }
    try {
      await Promise.race(races);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      this.#wake = undefined;
    }
  }

  // Waits are kept across idle periods instead of being aborted and re-created each time: an
  // abort costs an exception object per wait, and the hot path goes idle after nearly every
  // record. A kept wait ends by itself at the next append or after idleWaitMs.
  #arrival(lane: Lane): Promise<unknown> {
    if (lane.arrival !== undefined && lane.arrivalAt === lane.cursor) return lane.arrival;
    const o = this.#o;
    const at = lane.cursor;
    const wait = this.#settleLater(
      o.transport.waitFor({ stream: o.stream, topic: o.topic, partition: lane.partition, offset: at, timeoutMs: o.idleWaitMs, signal: this.#stop.signal }),
      () => {
        if (lane.arrival === wait) lane.arrival = undefined;
      },
    );
    lane.arrival = wait;
    lane.arrivalAt = at;
    return wait;
  }

  #settleLater(wait: Promise<unknown>, done: () => void): Promise<unknown> {
    return wait.then(
      (value) => {
        done();
        return value;
      },
      () => {
        done();
        return false;
      },
    );
  }
}
