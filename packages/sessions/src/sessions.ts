import { AgentTopic, type ActionGovernor, type AgdxClient, type HeartbeatRegistry } from '@agdx/agents';
import { ConversationId, InvalidError } from '@agdx/wire';
import { topicTails } from './checkpoint/checkpoint.js';
import { MissingTopicError } from './errors.js';
import { LaneGuard } from './lifecycle/lane-guard.js';
import { SessionReads } from './reads/session-reads.js';
import { Session } from './session.js';
import { SessionConfig } from './session-config.js';
import { resolveStream, type SessionsRuntime } from './sessions-runtime.js';

/** Options of {@link sessions} beside the layout. */
export interface SessionsOptions {
  /**
   * Checks each append as a send before the write. `AgdxClient` does not expose the governor it
   * was built with, so pass the same one here for session appends.
   */
  readonly governor?: ActionGovernor | undefined;
  /** Heartbeat registry: `begin()` takes a lease on it. */
  readonly heartbeats?: HeartbeatRegistry | undefined;
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
  constructor(runtime: SessionsRuntime) {
    this.#runtime = runtime;
    this.#reads = new SessionReads(runtime);
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

  /** Session reads served from the log: list, get, events, state, links, sources, changes. */
  get reads(): SessionReads {
    return this.#reads;
  }

  /**
   * Prepares the stream. With the default layout on the client's default stream this runs the
   * client's `bootstrap(partitions)` (the agent topics, the six turn topics and `agent.sessions`).
   * A custom stream or custom topics are never created here: each must exist already, and a
   * missing one is a MissingTopicError naming it (create it with `transport.ensureTopic`).
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
    for (const topic of [...topics, AgentTopic.Memory]) {
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
    governor: options.governor,
    heartbeats: options.heartbeats,
    lane: new LaneGuard(client),
    stream: () => resolveStream(client, config),
  };
  return new Sessions(runtime);
}
