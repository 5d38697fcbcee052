import type { AgentMessage } from '@agdx/agents';
import type { SessionTurnKind } from './turn-kind.js';

/** A message read back from one of the session's topics (an {@link AgentMessage} plus its topic). */
export interface ContextMessage extends AgentMessage {
  /** The topic it was read from. */
  readonly topic: string;
}

/** One step of a conversation: its kind (from the topic) and the message from the log. */
export interface SessionTurn {
  /** The turn kind, from the topic it was read on. */
  readonly kind: SessionTurnKind;
  /** The message, with payload, provenance and topic. */
  readonly message: ContextMessage;
}

// ignoreBOM: text that starts with U+FEFF is returned with it (the default decoder drops it).
const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/**
 * The turn's text, decoded as UTF-8 with invalid bytes replaced: the envelope body for an AGDX
 * envelope record (not its CBOR encoding), the payload for a plain turn.
 */
export function sessionTurnText(turn: SessionTurn): string {
  const message = turn.message;
  return decoder.decode(message.envelope !== undefined ? message.envelope.body : message.payload);
}
