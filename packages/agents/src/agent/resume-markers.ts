/**
 * Crash-loop protection that survives restarts, kept on the log. Handler attempts are counted in
 * the process, so a record whose handling kills the process (out of memory, a native crash, an
 * uncaught exception from a handler's timer, a host's hard time limit) would be retried for ever:
 * the restarted agent resumes at the same committed offset with its count at zero. So before a
 * lane handles its first record after it (re)started or took over a partition, it appends a small
 * "resuming at partition P offset O" marker to {@link RESUME_MARKER_TOPIC} and counts the markers
 * for the same (stream, topic, group, partition, offset) among the records just before its own.
 * A resume that got past its record leaves no further marker there, so the count says how many
 * starts died at (or were hard-stopped on) this record. One append and one read per resume per
 * partition; nothing on the normal path.
 */
import { NotFoundError, type LogRecord, type LogTransport } from '@agdx/transport';
import { InvalidError } from '@agdx/wire';

/** The SDK-owned topic of resume markers, created on first use (one partition, 1 h expiry). */
export const RESUME_MARKER_TOPIC = 'agdx.resumes';

/** Markers older than this are expired by the log (where it expires records). */
export const RESUME_MARKER_EXPIRY_MICROS = 3_600_000_000n;

/** The default number of marker-topic records looked back over before a resume's own marker. */
export const DEFAULT_RESUME_LOOK_BACK = 512;

/** Largest look-back accepted: the read is bounded, and so is the work of counting. */
export const MAX_RESUME_LOOK_BACK = 65_536;

/** A marker payload larger than this is not one of ours and is not looked at. */
const MAX_MARKER_BYTES = 2_048;

/** Marker format version (the `v` field). */
const MARKER_VERSION = 1;

/** Records per read while looking back. */
const READ_BATCH = 1_024;

/** How an agent guards against records that crash its process (`crashLoopGuard(...)` on its builder). */
export interface CrashLoopGuardOptions {
  /**
   * How many earlier starts may have resumed at a record without getting past it before the next
   * start dead-letters it (`RetryExhausted`) without running the handler. Default: the retry
   * policy's `maxAttempts`.
   */
  readonly maxResumes?: number | undefined;
  /**
   * How many records of the marker topic (every agent of the stream writes there) are looked back
   * over before a resume's own marker (default {@link DEFAULT_RESUME_LOOK_BACK}). Markers pushed
   * out of the window by others' resumes no longer count.
   */
  readonly lookBack?: number | undefined;
}

/** Validated guard settings: off, or on with both limits. */
export type CrashLoopGuardSettings = false | { readonly maxResumes: number | undefined; readonly lookBack: number };

/**
 * Checks {@link CrashLoopGuardOptions} once, on the builder.
 * @throws InvalidError for a `maxResumes` or `lookBack` that is not a safe integer ≥ 1, or a
 * `lookBack` over {@link MAX_RESUME_LOOK_BACK}.
 */
export function checkCrashLoopGuard(options: CrashLoopGuardOptions | false): CrashLoopGuardSettings {
  if (options === false) return false;
  if (typeof options !== 'object' || options === null) throw new InvalidError('crashLoopGuard takes an options object or false', { context: { field: 'crashLoopGuard' } });
  const { maxResumes, lookBack } = options;
  if (maxResumes !== undefined && (!Number.isSafeInteger(maxResumes) || maxResumes < 1)) {
    throw new InvalidError('crashLoopGuard.maxResumes must be a safe integer of at least 1', { context: { field: 'crashLoopGuard.maxResumes' } });
  }
  if (lookBack !== undefined && (!Number.isSafeInteger(lookBack) || lookBack < 1 || lookBack > MAX_RESUME_LOOK_BACK)) {
    throw new InvalidError(`crashLoopGuard.lookBack must be a safe integer from 1 to ${MAX_RESUME_LOOK_BACK}`, { context: { field: 'crashLoopGuard.lookBack' } });
  }
  return Object.freeze({ maxResumes, lookBack: lookBack ?? DEFAULT_RESUME_LOOK_BACK });
}

/** Where the guarded consumer reads: what a marker names besides its partition and offset. */
export interface ResumeMarkerScope {
  /** Stream of the consumed topic (the marker topic lives on it too). */
  readonly stream: string;
  /** The consumed topic. */
  readonly topic: string;
  /** The consumer group whose committed offset the agent resumed at. */
  readonly group: string;
  /** The agent, for readers of the markers (not matched: the group owns the offset). */
  readonly agent: string;
  /** This agent handle, for readers of the markers (not matched). */
  readonly instance: string;
}

/** Appends resume markers and counts the earlier ones for the same record. */
export class ResumeMarkers {
  readonly #transport: LogTransport;
  readonly #scope: ResumeMarkerScope;
  readonly #lookBack: bigint;
  readonly #encoder = new TextEncoder();
  /** What follows the identity in a withdrawal (see {@link ResumeMarkers.withdraw}). */
  readonly #withdrawal = new TextEncoder().encode('"withdrawn":true,');
  #ready: Promise<void> | undefined;

  /** Markers of one consumer (stream, topic, group) on `transport`. */
  constructor(transport: LogTransport, scope: ResumeMarkerScope, lookBack: number) {
    this.#transport = transport;
    this.#scope = scope;
    this.#lookBack = BigInt(lookBack);
  }

  /**
   * Appends the marker of a resume at `offset` of `partition`, then counts the markers for the
   * same record among the look-back window of records before it on the marker's partition.
   * Resolves with that count (0: no earlier start resumed here within the window).
   */
  async resuming(partition: number, offset: bigint, signal?: AbortSignal): Promise<number> {
    await (this.#ready ??= this.#ensure(signal));
    const s = this.#scope;
    const id = identity(s, partition, offset);
    const needle = this.#encoder.encode(id);
    // `agent` and `instance` follow the identity, for whoever reads the markers; never matched.
    const tail = JSON.stringify({ agent: s.agent, instance: s.instance }).slice(1);
    // Keyed by the consumer's partition: on a provisioned topic with several partitions the
    // markers of one record still share a partition, so one read finds them all.
    const marker = {
      stream: s.stream,
      topic: RESUME_MARKER_TOPIC,
      routing: { key: `${s.group}\u0000${s.topic}\u0000${partition}` },
      records: [{ payload: this.#encoder.encode(id + tail) }],
      signal,
    };
    let appended;
    try {
      appended = await this.#transport.append(marker);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      // The topic was deleted since it was ensured (an operator clearing forged markers): create
      // it again, or every later start of this handle would run unguarded and report the error.
      this.#ready = undefined;
      await (this.#ready ??= this.#ensure(signal));
      appended = await this.#transport.append(marker);
    }
    const own = appended.baseOffset;
    let next = own > this.#lookBack ? own - this.#lookBack : 0n;
    let count = 0;
    let withdrawn = 0;
    // The marker is on the log now: the reads take no abort signal, so a graceful stop that
    // arrives meanwhile still learns the count and can withdraw the marker (see `withdraw`).
    scan: while (next < own) {
      const left = own - next;
      const records = await this.#transport.read({
        stream: s.stream,
        topic: RESUME_MARKER_TOPIC,
        partition: appended.partition,
        offset: next,
        maxCount: left < BigInt(READ_BATCH) ? Number(left) : READ_BATCH,
      });
      if (records.length === 0) break;
      for (const record of records) {
        if (record.offset >= own) break scan;
        if (!startsWith(record.payload, needle)) continue;
        if (startsWith(record.payload, this.#withdrawal, needle.length)) withdrawn++;
        else count++;
      }
      next = (records[records.length - 1] as LogRecord).offset + 1n;
    }
    // A withdrawal whose marker fell out of the window cancels an older one: counting low only
    // lets a record run once more, as without the guard.
    return count > withdrawn ? count - withdrawn : 0;
  }

  /**
   * Withdraws the marker of a resume at `offset` of `partition` that never ran its record (the
   * agent was stopped cleanly, or lost the partition, between the marker and the handler): that
   * start did not die at the record, so it must not count against it. Appends a withdrawal (the
   * marker's identity, then `"withdrawn":true`) that cancels one marker when counting.
   */
  async withdraw(partition: number, offset: bigint): Promise<void> {
    const s = this.#scope;
    const tail = JSON.stringify({ withdrawn: true, agent: s.agent, instance: s.instance }).slice(1);
    await this.#transport.append({
      stream: s.stream,
      topic: RESUME_MARKER_TOPIC,
      routing: { key: `${s.group}\u0000${s.topic}\u0000${partition}` },
      records: [{ payload: this.#encoder.encode(identity(s, partition, offset) + tail) }],
    });
  }

  /** Creates the marker topic when it is missing (1 partition, markers expire after an hour). */
  async #ensure(signal: AbortSignal | undefined): Promise<void> {
    try {
      await this.#transport.describeTopic({ stream: this.#scope.stream, topic: RESUME_MARKER_TOPIC }, { signal });
    } catch (error) {
      if (!(error instanceof NotFoundError)) {
        this.#ready = undefined;
        throw error;
      }
      try {
        await this.#transport.ensureTopic({ stream: this.#scope.stream, topic: RESUME_MARKER_TOPIC }, { partitions: 1, messageExpiryMicros: RESUME_MARKER_EXPIRY_MICROS }, { signal });
      } catch (created) {
        this.#ready = undefined;
        throw created;
      }
    }
  }
}

/**
 * The identifying start of a marker's JSON text, fields in a fixed order and ending with the comma
 * before `agent`: two markers are for the same record exactly when their payloads start with the
 * same identity, so counting compares bytes and decodes nothing. A record in any other form
 * (another field order, garbage, a forgery in another shape) counts for nothing.
 */
function identity(scope: ResumeMarkerScope, partition: number, offset: bigint): string {
  const head = JSON.stringify({ v: MARKER_VERSION, stream: scope.stream, topic: scope.topic, group: scope.group, partition, offset: offset.toString() });
  return `${head.slice(0, -1)},`;
}

/** True when `payload` (at most {@link MAX_MARKER_BYTES}) holds `needle` from byte `at` on. */
function startsWith(payload: Uint8Array, needle: Uint8Array, at: number = 0): boolean {
  if (payload.length > MAX_MARKER_BYTES || payload.length < at + needle.length) return false;
  for (let i = 0; i < needle.length; i++) if (payload[at + i] !== needle[i]) return false;
  return true;
}
