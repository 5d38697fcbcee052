/**
 * Runs that a RunAgentInput starts: when the client's newest message is the user's, the live
 * endpoint publishes it as a command in the conversation, and the run follows that command's
 * turn to its answer.
 */

import type { AgdxClient, AgentIdLike } from '@agdx/agents';
import { AgentId, ContentType, CorrelationId, MintUlid, type ConversationId } from '@agdx/wire';

/** Where the endpoint publishes the user's input of a run (option `startRuns`). */
export interface AguiRunStart {
  /** The topic the command goes to (default: the topic the endpoint reads, so the answer is seen). */
  readonly topic?: string | undefined;
  /** Who the command is from: the frontend's agent id. */
  readonly source: AgentIdLike;
  /** The agent that answers; without it every agent on the topic receives the command. */
  readonly target?: AgentIdLike | undefined;
}

/** The user's new input of a run: the text of the last message, when the user sent it. */
export interface UserInput {
  /** The client's message id. */
  readonly id: string;
  /** The message text (text parts joined). */
  readonly text: string;
}

/** The messages of a RunAgentInput, as far as this module reads them. */
type InputMessage = { readonly id: string; readonly role: string; readonly content?: unknown };

function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const parts = content.filter((part): part is { type: 'text'; text: string } => typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'text');
  return parts.length > 0 ? parts.map((part) => part.text).join('') : undefined;
}

/**
 * The user's input a run carries: the last message when its role is `user` and it has text.
 * HttpAgent sends the whole history each run; a run whose last message is not the user's (a
 * re-run, or one after the assistant answered) starts nothing.
 */
export function userInputOf(messages: readonly InputMessage[]): UserInput | undefined {
  const last = messages[messages.length - 1];
  if (last === undefined || last.role !== 'user') return undefined;
  const text = textOf(last.content);
  return text === undefined ? undefined : { id: last.id, text };
}

/**
 * Publishes the user's input as a command of the conversation (JSON `{role, id, content}`) and
 * returns its correlation, which names the run's turn.
 * @throws the publish errors of `@agdx/agents`.
 */
export async function startRun(client: AgdxClient, start: AguiRunStart, topic: string, conversation: ConversationId, input: UserInput, signal: AbortSignal): Promise<CorrelationId> {
  const correlation = MintUlid.mint(CorrelationId);
  const source = typeof start.source === 'string' ? AgentId.new(start.source) : start.source;
  const body = new TextEncoder().encode(JSON.stringify({ role: 'user', id: input.id, content: input.text }));
  const builder = client.agdx(start.topic ?? topic, source, conversation).command(correlation, body).contentType(ContentType.json);
  if (start.target !== undefined) builder.withTarget(start.target);
  await builder.send({ signal });
  return correlation;
}
