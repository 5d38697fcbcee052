/// <reference lib="esnext.disposable" preserve="true" />
/**
 * Session heartbeats (seed 000 "Heartbeats"): a process that holds a lease on a session lists it
 * in a heartbeat on `agent.heartbeats`, keyed by process, at most 2,048 sessions per record,
 * every 60 s by default or a fifth of the shortest idle timeout held when that is shorter.
 */
import {
  AgentEnvelope,
  ContentType,
  ConversationId,
  encodeSessionHeartbeat,
  HEARTBEAT_OPERATION,
  HEARTBEAT_TOPIC,
  MintUlid,
  RecordId,
  splitHeartbeatSessions,
  type AgentId,
} from '@agdx/wire';
import type { Clock } from '../clock/clock.js';

/** The default heartbeat period. */
export const DEFAULT_HEARTBEAT_MS = 60_000;
/** The default idle timeout of a session (5 min). */
export const DEFAULT_SESSION_IDLE_TIMEOUT_MS = 300_000;
/** The shortest heartbeat period, whatever the idle timeouts. */
export const MIN_HEARTBEAT_MS = 10;

/** Publishes one heartbeat envelope on `agent.heartbeats` (content type cbor). */
export type HeartbeatPublisher = (topic: string, envelope: AgentEnvelope) => Promise<unknown>;

/** A held lease; release it (or `using` it) when the process stops working on the session. */
export interface SessionLease {
  /** The leased session. */
  readonly session: ConversationId;
  /** Gives the lease back (idempotent). The last release of a session drops it from heartbeats. */
  release(): void;
  /** Same as {@link SessionLease.release}. */
  [Symbol.dispose](): void;
}

/** How a {@link HeartbeatRegistry} beats. */
export interface HeartbeatOptions {
  /** The agent heartbeats name as source. */
  readonly agent: AgentId;
  /** The stream name written in the heartbeat body. */
  readonly stream: string;
  /** Time and sleeps. */
  readonly clock: Clock;
  /** Appends a heartbeat envelope. */
  readonly publish: HeartbeatPublisher;
  /** The default period (default 60 s). */
  readonly heartbeatMs?: number | undefined;
  /** A process id (default a fresh ULID text); the heartbeat conversation derives from it. */
  readonly process?: string | undefined;
  /** Told about a failed publish (the next tick retries). */
  readonly onError?: ((error: unknown) => void) | undefined;
}

/**
 * Ref-counted session leases and the timer that lists them on `agent.heartbeats`. The timer
 * runs at the shortest interval among held leases (`max(min(heartbeatMs, idle / 5), 10 ms)`)
 * and stops when the last lease is released.
 */
export class HeartbeatRegistry {
  readonly #options: HeartbeatOptions;
  readonly #heartbeatMs: number;
  /** The process id written in heartbeats. */
  readonly process: string;
  readonly #conversation: ConversationId;
  readonly #held = new Map<string, { session: ConversationId; counts: Map<number, number> }>();
  #timer: AbortController | undefined;
  #intervalMs = 0;
  #closed = false;

  /** A registry; nothing is published until a lease is taken. */
  constructor(options: HeartbeatOptions) {
    this.#options = options;
    this.#heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    this.process = options.process ?? MintUlid.mint(RecordId).toString();
    this.#conversation = ConversationId.derive(`heartbeat/${this.process}`);
  }

  /** Sessions currently held, sorted by text. */
  sessions(): ConversationId[] {
    return [...this.#held.keys()].sort().map((key) => (this.#held.get(key) as { session: ConversationId }).session);
  }

  /** The period the timer runs at now (0 when no lease is held). */
  get intervalMs(): number {
    return this.#held.size === 0 ? 0 : this.#intervalMs;
  }

  /**
   * Takes a lease on `session`; `idleTimeoutMs` (default 5 min) shortens the period to a fifth
   * of it.
   */
  acquire(session: ConversationId, idleTimeoutMs: number = DEFAULT_SESSION_IDLE_TIMEOUT_MS): SessionLease {
    const interval = Math.max(Math.min(this.#heartbeatMs, idleTimeoutMs / 5), MIN_HEARTBEAT_MS);
    const key = session.toString();
    let entry = this.#held.get(key);
    if (entry === undefined) {
      entry = { session, counts: new Map() };
      this.#held.set(key, entry);
    }
    entry.counts.set(interval, (entry.counts.get(interval) ?? 0) + 1);
    this.#reschedule();
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      const current = this.#held.get(key);
      if (current === undefined) return;
      const left = (current.counts.get(interval) ?? 1) - 1;
      if (left <= 0) current.counts.delete(interval);
      else current.counts.set(interval, left);
      if (current.counts.size === 0) this.#held.delete(key);
      this.#reschedule();
    };
    return { session, release, [Symbol.dispose]: release };
  }

  /** Publishes the current heartbeat records now (one per 2,048 sessions). */
  async beat(): Promise<void> {
    const sessions = this.sessions();
    if (sessions.length === 0) return;
    for (const chunk of splitHeartbeatSessions(sessions)) {
      const body = encodeSessionHeartbeat({ process: this.process, stream: this.#options.stream, sessions: chunk });
      const envelope = AgentEnvelope.status(MintUlid.mint(RecordId), this.#conversation, this.#options.agent, HEARTBEAT_OPERATION).withBody(body);
      await this.#options.publish(HEARTBEAT_TOPIC, envelope);
    }
  }

  /** Stops the timer and forgets every lease. */
  close(): void {
    this.#closed = true;
    this.#held.clear();
    this.#stop();
  }

  #shortest(): number {
    let shortest = 0;
    for (const entry of this.#held.values()) {
      for (const interval of entry.counts.keys()) if (shortest === 0 || interval < shortest) shortest = interval;
    }
    return shortest;
  }

  #stop(): void {
    this.#timer?.abort();
    this.#timer = undefined;
    this.#intervalMs = 0;
  }

  // Releasing the last lease does not cancel the pending sleep (that would churn a timer per
  // handled record); the timer loop sees no lease at its next wake, publishes nothing and ends.
  #reschedule(): void {
    if (this.#closed) return;
    const interval = this.#shortest();
    if (interval === 0) return;
    if (interval === this.#intervalMs && this.#timer !== undefined) return;
    this.#stop();
    this.#intervalMs = interval;
    const timer = new AbortController();
    this.#timer = timer;
    void this.#run(interval, timer.signal);
  }

  async #run(interval: number, signal: AbortSignal): Promise<void> {
    for (;;) {
      try {
        await this.#options.clock.sleep(interval, signal);
      } catch {
        return;
      }
      if (signal.aborted) return;
      if (this.#held.size === 0 || this.#shortest() !== interval) {
        // No lease left, or a shorter one arrived meanwhile: this loop ends here.
        if (this.#timer?.signal === signal) this.#stop();
        if (this.#held.size === 0) return;
        this.#reschedule();
        return;
      }
      try {
        await this.beat();
      } catch (error) {
        // A failed publish retries on the next tick.
        this.#options.onError?.(error);
      }
    }
  }
}
