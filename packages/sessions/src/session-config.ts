import { InvalidError, utf8Length } from '@agdx/wire';
import {
  DEFAULT_SESSION_CONTEXT_TOKENS,
  DEFAULT_SESSION_CONTEXT_TURNS,
  DEFAULT_SESSION_MEMORY_NAMESPACE,
  DEFAULT_SESSION_TOPICS,
  SESSION_TURN_KINDS,
  turnKindIndex,
  type SessionTurnKind,
} from './turns/turn-kind.js';

interface Layout {
  readonly stream: string | undefined;
  readonly topics: readonly string[];
  readonly memoryNamespace: string;
  readonly contextTurns: number;
  readonly contextTokens: number;
}

/** Names go into Iggy identifiers and headers, which hold 1 to 255 UTF-8 bytes. */
function checkName(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.length === 0 || utf8Length(value) > 255) {
    throw new InvalidError(`${what} must be a non-empty string of at most 255 UTF-8 bytes`, { context: { field: what } });
  }
  return value;
}

function checkBound(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidError(`${what} must be a non-negative integer`, { context: { field: what } });
  }
  return value;
}

/**
 * A session layout (seed 004 "Custom layout"): the stream, one topic per turn kind, the memory
 * namespace and the context bounds. Immutable: every setter returns a new config. The layout is
 * part of a session's address, so the same id on another layout reads another history.
 */
export class SessionConfig {
  #layout: Layout;

  /** The default layout: the client's default stream, the six default topics, `agent.session`, 50 turns, 4,000 tokens. */
  constructor() {
    this.#layout = {
      stream: undefined,
      topics: DEFAULT_SESSION_TOPICS,
      memoryNamespace: DEFAULT_SESSION_MEMORY_NAMESPACE,
      contextTurns: DEFAULT_SESSION_CONTEXT_TURNS,
      contextTokens: DEFAULT_SESSION_CONTEXT_TOKENS,
    };
  }

  #with(patch: Partial<Layout>): SessionConfig {
    const next = new SessionConfig();
    next.#layout = { ...this.#layout, ...patch };
    return next;
  }

  /** The stream for every session topic (default: the client's default stream). */
  stream(name: string): SessionConfig {
    return this.#with({ stream: checkName(name, 'stream') });
  }

  /**
   * The topic of one turn kind. Two kinds on one topic are refused when the config is used.
   * @throws InvalidError for an unknown kind or an empty topic name.
   */
  topic(kind: SessionTurnKind, topic: string): SessionConfig {
    const index = turnKindIndex(kind);
    const topics = [...this.#layout.topics];
    topics[index] = checkName(topic, 'topic');
    return this.#with({ topics: Object.freeze(topics) });
  }

  /** The memory namespace of `session.memory()`. */
  memoryNamespace(namespace: string): SessionConfig {
    return this.#with({ memoryNamespace: checkName(namespace, 'memory namespace') });
  }

  /** How many turns `context()` keeps. */
  contextTurns(turns: number): SessionConfig {
    return this.#with({ contextTurns: checkBound(turns, 'context turns') });
  }

  /** About how many estimated tokens `context()` keeps. */
  contextTokens(tokens: number): SessionConfig {
    return this.#with({ contextTokens: checkBound(tokens, 'context tokens') });
  }

  /** The configured stream, or undefined for the client's default stream. */
  get streamName(): string | undefined {
    return this.#layout.stream;
  }

  /** The memory namespace. */
  get memoryNamespaceName(): string {
    return this.#layout.memoryNamespace;
  }

  /** The turn bound of `context()`. */
  get contextTurnBound(): number {
    return this.#layout.contextTurns;
  }

  /** The token bound of `context()`. */
  get contextTokenBound(): number {
    return this.#layout.contextTokens;
  }

  /** The six topics in kind order. */
  topics(): string[] {
    return [...this.#layout.topics];
  }

  /** The topic of a kind. @throws InvalidError for an unknown kind. */
  topicFor(kind: SessionTurnKind): string {
    return this.#layout.topics[turnKindIndex(kind)] as string;
  }

  /** The kind whose topic is `topic`, or undefined for a topic outside the layout. */
  kindFor(topic: string): SessionTurnKind | undefined {
    const index = this.#layout.topics.indexOf(topic);
    return index < 0 ? undefined : SESSION_TURN_KINDS[index];
  }

  /**
   * Checks that each kind has its own topic.
   * @throws InvalidError `session turn kinds <a> and <b> share topic <t>, each kind needs its own topic`.
   */
  validate(): this {
    const topics = this.#layout.topics;
    for (let i = 0; i < topics.length; i++) {
      for (let j = i + 1; j < topics.length; j++) {
        if (topics[i] === topics[j]) {
          throw new InvalidError(
            `session turn kinds ${SESSION_TURN_KINDS[i]} and ${SESSION_TURN_KINDS[j]} share topic ${topics[i]}, each kind needs its own topic`,
            { context: { field: 'topics', topic: topics[i] } },
          );
        }
      }
    }
    return this;
  }
}
