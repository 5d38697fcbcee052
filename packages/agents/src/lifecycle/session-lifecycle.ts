import { ContentType, TaskState, type AgentEnvelope, type AgentId, type ConversationId, type SessionEnd, type SessionStart } from '@agdx/wire';
import { defaultSessionStart, sessionEndEnvelope, sessionStartEnvelope, sessionTransitionEnvelope, SESSIONS_TOPIC } from './session-records.js';

/** Appends a lifecycle envelope to the session lane (ct cbor; signed when the agent signs). */
export type LanePublisher = (envelope: AgentEnvelope) => Promise<unknown>;

const MAX_REMEMBERED_ENDS = 16_384;

/**
 * Writes an agent's session lifecycle records on `agent.sessions` and keeps the "first terminal
 * wins" rule on the writer side: once this process ended a session it never writes another
 * start, transition or end for it. Readers still apply the rule on the lane, since another
 * process may end the session too.
 */
export class SessionLifecycle {
  readonly #agent: AgentId;
  readonly #publish: LanePublisher;
  readonly #ended = new Set<string>();

  /** A writer for `agent`. */
  constructor(agent: AgentId, publish: LanePublisher) {
    this.#agent = agent;
    this.#publish = publish;
  }

  /** The lane topic. */
  get topic(): string {
    return SESSIONS_TOPIC;
  }

  /** True when this process ended `session`. */
  ended(session: ConversationId): boolean {
    return this.#ended.has(session.toString());
  }

  /** Writes a start (Submitted or Working); false after the session ended. */
  async start(session: ConversationId, options: Partial<Omit<SessionStart, 'agent' | 'sdk'>> = {}, taskState: number = TaskState.Working): Promise<boolean> {
    if (this.ended(session)) return false;
    await this.#publish(sessionStartEnvelope(session, this.#agent, defaultSessionStart(this.#agent, options), taskState));
    return true;
  }

  /** Writes a non-terminal transition; false after the session ended. */
  async transition(session: ConversationId, taskState: number): Promise<boolean> {
    if (this.ended(session)) return false;
    await this.#publish(sessionTransitionEnvelope(session, this.#agent, taskState, { actor: this.#agent }));
    return true;
  }

  /** Writes the terminal end; false when this process already ended the session (first terminal wins). */
  async end(session: ConversationId, taskState: number, end: SessionEnd = {}): Promise<boolean> {
    const key = session.toString();
    if (this.#ended.has(key)) return false;
    const envelope = sessionEndEnvelope(session, this.#agent, taskState, end);
    this.#ended.add(key);
    if (this.#ended.size > MAX_REMEMBERED_ENDS) {
      const oldest = this.#ended.values().next();
      if (oldest.done !== true) this.#ended.delete(oldest.value);
    }
    try {
      await this.#publish(envelope);
    } catch (error) {
      this.#ended.delete(key);
      throw error;
    }
    return true;
  }
}

/** The content type of every lifecycle record. */
export const LIFECYCLE_CONTENT_TYPE: number = ContentType.cbor;
