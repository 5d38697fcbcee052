import { tracedSession, type AgdxClient, type MessagePosition } from '@agdx/agents';
import { ConversationId, InvalidError, UnsupportedError } from '@agdx/wire';
import { Checkpoint } from './checkpoint/checkpoint.js';
import { Chain, LastN, TokenBudget, type ContextPolicy } from './context/context-policy.js';
import { keepToolPairs } from './context/tool-pairs.js';
import type { SessionConfig } from './session-config.js';
import type { SessionsRuntime } from './sessions-runtime.js';
import { appendPlain } from './turns/append-turn.js';
import {
  atCheckpointBounds,
  readConversationKeyed,
  sinceCheckpointBounds,
  windowedBounds,
  type PartitionBounds,
} from './turns/read-turns.js';
import type { ContextMessage, SessionTurn } from './turns/session-turn.js';
import { firstCopies } from './turns/turn-copies.js';
import { readTurnWindow } from './turns/turn-window.js';
import { visitConversation } from './turns/merged-turns.js';
import type { SessionTurnKind } from './turns/turn-kind.js';
import { SessionMemory } from './memory/session-memory.js';
import { SessionLifecycleWriter } from './lifecycle/lifecycle-writer.js';

const encoder = new TextEncoder();

/** The Context scope a session reads through: the client, the stream, the conversation and its topics. */
export interface SessionScope {
  /** The client. */
  readonly client: AgdxClient;
  /** The stream the session's topics live on. */
  readonly stream: string;
  /** The conversation. */
  readonly conversation: ConversationId;
  /** The layout's topics, in kind order. */
  readonly topics: readonly string[];
  /** Reads this conversation's messages on any topics of the stream, ordered like turns, each envelope once (a later copy with its record id is left out). */
  read(topics: readonly string[], bounds?: PartitionBounds, signal?: AbortSignal): Promise<ContextMessage[]>;
}

/** A fold step of `stateAt` and `replay`. */
export type TurnFold<S> = (state: S, turn: SessionTurn) => S;

/**
 * One conversation seen as typed turns (seed 004). Opening a session does no I/O; the first
 * append writes the first turn.
 */
export class Session {
  readonly #runtime: SessionsRuntime;
  readonly #conversation: ConversationId;
  readonly #scope: SessionScope;
  #lifecycle: SessionLifecycleWriter | undefined;

  /** @internal Built by `Sessions.open`. */
  constructor(runtime: SessionsRuntime, conversation: ConversationId) {
    this.#runtime = runtime;
    this.#conversation = conversation;
    const topics = runtime.config.topics();
    this.#scope = Object.freeze({
      client: runtime.client,
      get stream(): string {
        return runtime.stream();
      },
      conversation,
      topics,
      read: (readTopics: readonly string[], bounds: PartitionBounds = windowedBounds, signal?: AbortSignal) => {
        const stream = runtime.stream();
        // the open window is kept between reads, so a repeated context read costs what the log gained
        if (bounds === windowedBounds) return readTurnWindow(runtime, stream, conversation, readTopics, signal);
        const keyed = readConversationKeyed(runtime.client.transport, stream, readTopics, conversation, bounds, signal, runtime.onError, runtime.client.layout);
        return keyed.then((found) => firstCopies(found).map((k) => k.message));
      },
    });
  }

  /** The conversation id: the session's address together with its layout. */
  get conversation(): ConversationId {
    return this.#conversation;
  }

  /** The layout in use. */
  get config(): SessionConfig {
    return this.#runtime.config;
  }

  /** The underlying Context scope, to read a topic outside the session or apply your own policy. */
  get scope(): SessionScope {
    return this.#scope;
  }

  /**
   * Writes one turn on its kind's topic: a plain agent message with the conversation in its
   * provenance, keyed by the conversation. The governor, when installed, checks it first. With a
   * telemetry hook on the client the record also carries the hook's trace context (`traceparent`,
   * `tracestate`), so a reader or an agent handling the turn continues the trace.
   * @throws InvalidError for an unknown kind; PolicyBlockedError on a deny; NoStreamError without a stream.
   */
  async append(kind: SessionTurnKind, data: Uint8Array | string, options: { readonly signal?: AbortSignal } = {}): Promise<MessagePosition> {
    const topic = this.#runtime.config.topicFor(kind);
    const payload = typeof data === 'string' ? encoder.encode(data) : data;
    if (!(payload instanceof Uint8Array)) throw new InvalidError('turn data must be bytes or a string', { context: { field: 'data' } });
    const write = (telemetryHeaders: ReadonlyArray<readonly [string, string]> | undefined): Promise<MessagePosition> => appendPlain({
      transport: this.#runtime.client.transport,
      governor: this.#runtime.governor,
      stream: this.#runtime.stream(),
      topic,
      conversation: this.#conversation,
      payload,
      telemetryHeaders,
      signal: options.signal,
    });
    return tracedSession(this.#runtime.client.telemetry, () => ({ operation: 'append', conversation: this.#conversation, topic }), write);
  }

  #turns(messages: readonly ContextMessage[]): SessionTurn[] {
    const config = this.#runtime.config;
    const turns: SessionTurn[] = [];
    for (const message of messages) {
      const kind = config.kindFor(message.topic);
      if (kind !== undefined) turns.push({ kind, message });
    }
    return turns;
  }

  /** The default context: `contextWith(Chain([LastN(contextTurns), TokenBudget(contextTokens)]))`. */
  context(): Promise<SessionTurn[]> {
    const config = this.#runtime.config;
    return this.contextWith(new Chain([new LastN(config.contextTurnBound), new TokenBudget(config.contextTokenBound)]));
  }

  /**
   * The session's turns within the read window (the newest {@link CONTEXT_READ_WINDOW} records of
   * each partition), chosen by `policy`, without the half of a tool exchange the policy cut from
   * the other (a result whose call it left out, a call whose results it left out), which model
   * APIs refuse.
   */
  async contextWith(policy: ContextPolicy): Promise<SessionTurn[]> {
    if (typeof (policy as Partial<ContextPolicy> | undefined)?.select !== 'function') throw new InvalidError('contextWith takes a context policy');
    return tracedSession(this.#runtime.client.telemetry, () => ({ operation: 'context', conversation: this.#conversation }), async () => {
      const history = await this.#scope.read(this.#scope.topics, windowedBounds);
      const selected = policy.select(history);
      if (!Array.isArray(selected)) throw new InvalidError('a context policy must return an array of messages from its history');
      const config = this.#runtime.config;
      return this.#turns(keepToolPairs(history, selected, (topic) => config.kindFor(topic)));
    });
  }

  /** The newest turns within the read window, oldest first, with no policy applied. */
  async turns(): Promise<SessionTurn[]> {
    return this.#turns(await this.#scope.read(this.#scope.topics, windowedBounds));
  }

  /** Where each partition of each of the session's topics ends now (a bookmark on the client). */
  checkpoint(): Promise<Checkpoint> {
    return tracedSession(this.#runtime.client.telemetry, () => ({ operation: 'checkpoint', conversation: this.#conversation }), () =>
      Checkpoint.capture(this.#runtime.client.transport, this.#runtime.stream(), this.#scope.topics),
    );
  }

  /** Every turn before the checkpoint (offset 0 up to its offsets; partitions it does not name read nothing). */
  async turnsAt(checkpoint: Checkpoint): Promise<SessionTurn[]> {
    checkCheckpoint(checkpoint);
    return this.#turns(await this.#scope.read(this.#scope.topics, atCheckpointBounds(checkpoint)));
  }

  /** Every turn from the checkpoint to the tails seen when the call starts (the whole range, not the window). */
  async turnsSince(checkpoint: Checkpoint): Promise<SessionTurn[]> {
    checkCheckpoint(checkpoint);
    return this.#turns(await this.#scope.read(this.#scope.topics, sinceCheckpointBounds(checkpoint)));
  }

  /**
   * Folds the turns up to the checkpoint from `initial`, in `turnsAt` order, as they are read: one
   * page of each partition is held at a time, never the whole range.
   * @throws InvalidError for a value that is not a Checkpoint, or a fold that is not a function.
   */
  async stateAt<S>(checkpoint: Checkpoint, initial: S, fold: TurnFold<S>): Promise<S> {
    checkCheckpoint(checkpoint);
    return this.#fold(atCheckpointBounds(checkpoint), initial, fold);
  }

  /**
   * Folds the turns after the checkpoint from `state` (for example your state saved with the
   * checkpoint), in `turnsSince` order, as they are read: one page of each partition is held at a
   * time, never the whole range.
   * @throws InvalidError for a value that is not a Checkpoint, or a fold that is not a function.
   */
  async replay<S>(checkpoint: Checkpoint, state: S, fold: TurnFold<S>): Promise<S> {
    checkCheckpoint(checkpoint);
    return this.#fold(sinceCheckpointBounds(checkpoint), state, fold);
  }

  async #fold<S>(bounds: PartitionBounds, initial: S, fold: TurnFold<S>): Promise<S> {
    if (typeof fold !== 'function') throw new InvalidError('a fold must be a function of (state, turn)');
    const runtime = this.#runtime;
    const config = runtime.config;
    let state = initial;
    await visitConversation(
      runtime.client.transport,
      runtime.stream(),
      this.#scope.topics,
      this.#conversation,
      bounds,
      (message) => {
        const kind = config.kindFor(message.topic);
        if (kind !== undefined) state = fold(state, { kind, message });
      },
      undefined,
      runtime.onError,
      runtime.client.layout,
    );
    return state;
  }

  /** Memory for this conversation in the layout's namespace, or in `namespace`. */
  memory(namespace?: string): SessionMemory {
    return new SessionMemory(this.#runtime, this.#conversation, namespace ?? this.#runtime.config.memoryNamespaceName);
  }

  /**
   * The shared knowledge graph `name`. A plain log serves none.
   * @throws UnsupportedError on a deployment without a managed graph, never a silent no-op.
   */
  graph(name: string): never {
    throw new UnsupportedError(`graph ${JSON.stringify(String(name))} needs a deployment that serves a shared graph; this log serves none`, {
      context: { feature: 'graph', graph: String(name) },
    });
  }

  /** The lifecycle writer of this session on `agent.sessions` (begin, transition, end, fail, cancel, state). */
  get lifecycle(): SessionLifecycleWriter {
    this.#lifecycle ??= new SessionLifecycleWriter(this.#runtime, this.#conversation);
    return this.#lifecycle;
  }
}

function checkCheckpoint(checkpoint: unknown): void {
  if (!(checkpoint instanceof Checkpoint)) throw new InvalidError('expected a Checkpoint (use Checkpoint.fromJSON for a saved one)');
}
