import { type ActionGovernor, type AgdxClient, type HeartbeatRegistry } from '@agdx/agents';
import { ConversationId, InvalidError, type SkippedRecordHandler } from '@agdx/wire';
import { topicTails } from './checkpoint/checkpoint.js';
import { MissingTopicError } from './errors.js';
import { LaneGuard } from './lifecycle/lane-guard.js';
import type { FoldSnapshotWritten } from './reads/fold-snapshot-store.js';
import {
  readsOf,
  SessionReads,
  type SessionChangesView,
  type SessionEventsPage,
  type SessionLinksView,
  type SessionListFilter,
  type SessionPage,
  type SessionSourcesView,
  type SessionStateView,
} from './reads/session-reads.js';
import type { SessionInfo } from './reads/session-fold.js';
import { Session } from './session.js';
import { SessionConfig } from './session-config.js';
import { resolveStream, type SessionsRuntime } from './sessions-runtime.js';
import { turnWindowUsage, type TurnWindowUsage } from './turns/turn-window.js';

/** Options of {@link sessions} beside the layout. */
export interface SessionsOptions {
  /**
   * Checks each append as a send before the write. Defaults to the governor the client was built
   * with, so session appends are governed like every other send of that client.
   */
  readonly governor?: ActionGovernor | undefined;
  /** Heartbeat registry: `begin()` takes a lease on it. */
  readonly heartbeats?: HeartbeatRegistry | undefined;
  /**
   * Receives each record a read skipped, as a `CodecError` naming its stream, topic, partition and
   * offset with the decode failure as `cause`: an undecodable record met by the session reads, the
   * turn and context reads or the memory fold, and an envelope whose heartbeat, state or end body
   * cannot be read. Reads go on past it. The session reads keep their fold, so they report a record
   * once, when the fold first meets it; turn, context and memory reads report it on each read.
   */
  readonly onError?: SkippedRecordHandler | undefined;
  /**
   * Whether the session reads start from the newest fold snapshot on `agent.snapshots` when one
   * checks out against the log (default true). Off, the first read folds the retained log.
   */
  readonly snapshots?: boolean | undefined;
  /**
   * Write a fold snapshot after a session read that folded at least this many records since the
   * previous snapshot (default: only when {@link Sessions.snapshot} is called).
   */
  readonly snapshotEvery?: number | undefined;
}

/** What {@link Sessions.bootstrap} ensured. */
export interface SessionsBootstrapResult {
  /** The stream. */
  readonly stream: string;
  /** Topics checked (custom layouts) or created (default layout). */
  readonly topics: readonly string[];
}

/**
 * The session factory (seed 004 `laser.sessions()`): opens sessions on one layout. Building it
 * does no I/O; network work happens only in the verbs.
 */
export class Sessions {
  readonly #runtime: SessionsRuntime;
  readonly #reads: SessionReads;

  /** @internal Use {@link sessions}. */
  constructor(runtime: SessionsRuntime, options: Pick<SessionsOptions, 'snapshots' | 'snapshotEvery'> = {}) {
    this.#runtime = runtime;
    this.#reads = readsOf(runtime, options);
  }

  /** The layout in use. */
  get config(): SessionConfig {
    return this.#runtime.config;
  }

  /** The session named `id`: its conversation is `ConversationId.derive(id)`, the same in every SDK. */
  create(id: string): Session {
    if (typeof id !== 'string') throw new InvalidError('a session id must be a string', { context: { field: 'id' } });
    return this.open(ConversationId.derive(id));
  }

  /** A new session with a fresh random conversation; keep `session.conversation` to open it again. */
  start(): Session {
    return this.open(ConversationId.new());
  }

  /** The session of an existing conversation. Nothing is created on the server. */
  open(conversation: ConversationId): Session {
    if (!(conversation instanceof ConversationId)) throw new InvalidError('open takes a ConversationId', { context: { field: 'conversation' } });
    return new Session(this.#runtime, conversation);
  }

  /**
   * What the context and turn read windows this factory keeps hold now: conversations, turns and
   * their payload and header bytes, within `MAX_CACHED_TURN_WINDOWS`, `MAX_CACHED_TURNS`
   * and `MAX_CACHED_TURN_BYTES`.
   */
  get turnWindows(): TurnWindowUsage {
    return turnWindowUsage(this.#runtime);
  }

  /** Session reads served from the log: list, get, events, state, links, sources, changes. */
  get reads(): SessionReads {
    return this.#reads;
  }

  /** Sessions of the stream, newest first (see {@link SessionReads.list}). */
  list(filter?: SessionListFilter, signal?: AbortSignal): Promise<SessionPage> {
    return this.#reads.list(filter, signal);
  }

  /** One session's summary (see {@link SessionReads.get}). */
  get(id: ConversationId | string, signal?: AbortSignal): Promise<SessionInfo | undefined> {
    return this.#reads.get(id, signal);
  }

  /** One session's timeline (see {@link SessionReads.events}). */
  events(id: ConversationId | string, options?: { readonly limit?: number; readonly cursor?: string; readonly signal?: AbortSignal }): Promise<SessionEventsPage> {
    return this.#reads.events(id, options);
  }

  /** One session's state (see {@link SessionReads.state}). */
  state(id: ConversationId | string, historyLimit?: number, signal?: AbortSignal): Promise<SessionStateView> {
    return this.#reads.state(id, historyLimit, signal);
  }

  /** One session's parent, root and children (see {@link SessionReads.links}). */
  links(id: ConversationId | string, signal?: AbortSignal): Promise<SessionLinksView> {
    return this.#reads.links(id, signal);
  }

  /** Fold frontiers and gaps (see {@link SessionReads.sources}). */
  sources(id: ConversationId | string, signal?: AbortSignal): Promise<SessionSourcesView> {
    return this.#reads.sources(id, signal);
  }

  /**
   * Writes a fold snapshot of the session reads to `agent.snapshots` (see {@link SessionReads.snapshot}),
   * so that a new process starts its session reads there.
   */
  snapshot(signal?: AbortSignal): Promise<FoldSnapshotWritten> {
    return this.#reads.snapshot(signal);
  }

  /** The stream's change feed after `after` (see {@link SessionReads.changes}). */
  changes(after?: bigint, limit?: number, signal?: AbortSignal): Promise<SessionChangesView> {
    return this.#reads.changes(after, limit, signal);
  }

  /**
   * Polls the change feed every `pollEveryMs` (on the client's clock) and yields the ids of the
   * sessions that changed since the previous poll, coalesced per poll, starting after the rows
   * retained when it starts. Stops when `signal` aborts.
   */
  async *watch(pollEveryMs: number, signal?: AbortSignal): AsyncGenerator<ConversationId[], void, undefined> {
    if (!Number.isSafeInteger(pollEveryMs) || pollEveryMs <= 0) throw new InvalidError('pollEveryMs must be a positive integer', { context: { field: 'pollEveryMs' } });
    const aborted = (): boolean => signal?.aborted === true;
    let after = await this.#reads.latestChange(signal);
    while (!aborted()) {
      try {
        await this.#runtime.client.clock.sleep(pollEveryMs, signal);
      } catch (error) {
        if (aborted()) return;
        throw error;
      }
      const changed = new Map<string, ConversationId>();
      for (;;) {
        const page = await this.#reads.changes(after, 0, signal);
        for (const row of page.rows) for (const id of row.sessions) changed.set(id.toString(), id);
        const last = page.rows.at(-1);
        if (last === undefined) break;
        after = last.seq;
      }
      if (changed.size > 0) yield [...changed.values()];
    }
  }

  /**
   * Prepares the stream. With the default layout on the client's default stream this runs the
   * client's `bootstrap(partitions)` (the agent topics, the six turn topics and `agent.sessions`).
   * A custom stream or custom topics are never created here: each of the six turn topics must
   * exist already, and a missing one is a MissingTopicError naming it (create it with
   * `transport.ensureTopic`). Memory on a custom stream also needs `agent.memory` there;
   * `remember` names it when it is missing.
   */
  async bootstrap(partitions: number, signal?: AbortSignal): Promise<SessionsBootstrapResult> {
    const runtime = this.#runtime;
    const stream = runtime.stream();
    const topics = runtime.config.topics();
    const custom = runtime.config.streamName !== undefined && runtime.config.streamName !== runtime.client.defaultStream;
    const defaults = new SessionConfig().topics();
    const customTopics = custom || topics.some((t, i) => t !== defaults[i]);
    if (!custom) {
      await runtime.client.withDefaultStream(stream).bootstrap(partitions, { signal });
      if (!customTopics) return { stream, topics };
    }
    for (const topic of topics) {
      if ((await topicTails(runtime.client.transport, stream, topic, signal)) === undefined) {
        throw new MissingTopicError(
          `session topic ${JSON.stringify(topic)} does not exist on stream ${JSON.stringify(stream)}; custom streams and topics are not created by bootstrap, ensure them first`,
          { context: { stream, topic } },
        );
      }
    }
    return { stream, topics };
  }
}

/**
 * The session factory for `client` (seed 004 writes `laser.sessions(config?)`; here it is
 * `sessions(laser, config?)`, because the agents client cannot depend on this package).
 * Validates the layout and does no I/O.
 * @throws InvalidError when two kinds share a topic.
 */
export function sessions(client: AgdxClient, config: SessionConfig = new SessionConfig(), options: SessionsOptions = {}): Sessions {
  if (!(config instanceof SessionConfig)) throw new InvalidError('sessions takes a SessionConfig', { context: { field: 'config' } });
  config.validate();
  const runtime: SessionsRuntime = {
    client,
    config,
    governor: options.governor ?? client.governor,
    heartbeats: options.heartbeats,
    lane: new LaneGuard(client),
    onError: options.onError,
    stream: () => resolveStream(client, config),
  };
  return new Sessions(runtime, { snapshots: options.snapshots, snapshotEvery: options.snapshotEvery });
}
