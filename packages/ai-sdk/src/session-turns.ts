import type { MessagePosition } from '@agdx/agents';
import { sessionTurnText, type ContextPolicy, type Session, type SessionTurn, type SessionTurnKind } from '@agdx/sessions';
import { MintUlid, InvalidError, RecordId } from '@agdx/wire';
import type { ModelMessage } from 'ai';
import { decodeTurnPayload, encodeTurnPayload, type TurnPayload } from './turn-payload.js';

/** The turn kind a message is stored as: the model request as `instruction`, its answer as `model.response`, tool output as `tool.result`. */
export function turnKindOf(message: ModelMessage): SessionTurnKind {
  switch (message.role) {
    case 'assistant':
      return 'model.response';
    case 'tool':
      return 'tool.result';
    default:
      return 'instruction';
  }
}

/**
 * Appends AI SDK messages to a session as turns, one turn per message, in order. Pass only what is
 * new in this call (the user's prompt, the model's answer): `context()` already holds the rest.
 * @returns the log position of each turn.
 */
export async function appendModelMessages(
  session: Session,
  messages: readonly ModelMessage[],
  options: { readonly call?: string | undefined; readonly firstSeq?: number | undefined; readonly signal?: AbortSignal | undefined } = {},
): Promise<MessagePosition[]> {
  if (!Array.isArray(messages)) throw new InvalidError('messages must be an array of AI SDK messages', { context: { field: 'messages' } });
  const call = options.call ?? MintUlid.mint(RecordId).toString();
  let seq = options.firstSeq ?? 0;
  const positions: MessagePosition[] = [];
  for (const message of messages) {
    if (typeof message !== 'object' || message === null || typeof (message as { role?: unknown }).role !== 'string') {
      throw new InvalidError('each message must be an AI SDK message with a role', { context: { field: 'messages' } });
    }
    positions.push(await session.append(turnKindOf(message), encodeTurnPayload(call, seq, message), { signal: options.signal }));
    seq += 1;
  }
  return positions;
}

interface Placed {
  readonly payload: TurnPayload | undefined;
  readonly message: ModelMessage;
}

// A turn another writer appended as plain text still belongs in the context; its kind gives the role.
function plainMessage(turn: SessionTurn): ModelMessage | undefined {
  const text = sessionTurnText(turn);
  switch (turn.kind) {
    case 'instruction':
    case 'human.input':
      return { role: 'user', content: text };
    case 'response':
    case 'model.response':
      return { role: 'assistant', content: text };
    default:
      // Plain tool turns carry no call id, and a tool result without its call is refused by models.
      return undefined;
  }
}

// Turns of one call written within one broker microsecond may come back in topic order; their seq
// restores the order they were written in.
function restoreCallOrder(placed: Placed[]): void {
  let start = 0;
  while (start < placed.length) {
    const call = placed[start]!.payload?.call;
    let end = start + 1;
    while (call !== undefined && end < placed.length && placed[end]!.payload?.call === call) end += 1;
    if (end - start > 1) {
      const run = placed.slice(start, end).sort((a, b) => a.payload!.seq - b.payload!.seq);
      placed.splice(start, run.length, ...run);
    }
    start = end;
  }
}

type Part = { readonly type: string; readonly toolCallId?: unknown; readonly providerExecuted?: unknown };

function partsOf(message: ModelMessage): readonly Part[] | undefined {
  return Array.isArray(message.content) ? (message.content as readonly Part[]) : undefined;
}

/**
 * Keeps tool calls and results paired. A context policy may cut the history between a call and
 * its result; models refuse a result without its call and a call without its result, so the
 * orphan half is dropped (calls the provider executed itself need no result).
 */
function pairTools(messages: ModelMessage[]): ModelMessage[] {
  const answered = new Set<unknown>();
  const called = new Set<unknown>();
  for (const message of messages) {
    for (const part of partsOf(message) ?? []) if (part.type === 'tool-result') answered.add(part.toolCallId);
  }
  const out: ModelMessage[] = [];
  for (const message of messages) {
    const parts = partsOf(message);
    if (parts === undefined) {
      out.push(message);
      continue;
    }
    const kept = parts.filter((part) => {
      if (part.type === 'tool-call') {
        if (part.providerExecuted === true || answered.has(part.toolCallId)) {
          called.add(part.toolCallId);
          return true;
        }
        return false;
      }
      if (part.type === 'tool-result') return called.has(part.toolCallId);
      return true;
    });
    if (kept.length > 0) out.push({ ...message, content: kept } as ModelMessage);
  }
  return out;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * True for a byte-for-byte copy of a turn this package wrote that was already read (the same
 * call, place and bytes): a plain turn carries no record id, so the session reads keep a copy
 * appended again, and a model refuses a tool result given twice. A turn with the same call and
 * place but other bytes is another message and is kept.
 */
function isCopy(written: Map<string, Uint8Array>, payload: TurnPayload, body: Uint8Array): boolean {
  const place = `${payload.seq} ${payload.call}`;
  const first = written.get(place);
  if (first === undefined) {
    written.set(place, body);
    return false;
  }
  return sameBytes(first, body);
}

/**
 * The AI SDK messages of session turns, ready to pass as `messages` to the next call: turns this
 * package wrote give back their message, plain turns give a user (`instruction`, `human.input`)
 * or assistant (`response`, `model.response`) text message, and plain tool turns are left out.
 * A byte-for-byte copy of a turn this package wrote is taken once, at its first position.
 */
export function modelMessagesFromTurns(turns: readonly SessionTurn[]): ModelMessage[] {
  if (!Array.isArray(turns)) throw new InvalidError('turns must be an array of session turns', { context: { field: 'turns' } });
  const placed: Placed[] = [];
  const written = new Map<string, Uint8Array>();
  for (const turn of turns) {
    const message = turn.message;
    const body = message.envelope !== undefined ? message.envelope.body : message.payload;
    const payload = decodeTurnPayload(body);
    if (payload !== undefined && isCopy(written, payload, body)) continue;
    const model = payload?.message ?? plainMessage(turn);
    if (model !== undefined) placed.push({ payload, message: model });
  }
  restoreCallOrder(placed);
  return pairTools(placed.map((entry) => entry.message));
}

/** `modelMessagesFromTurns` of the session's context: `context()`, or `contextWith(policy)`. */
export async function sessionModelMessages(session: Session, policy?: ContextPolicy): Promise<ModelMessage[]> {
  return modelMessagesFromTurns(policy === undefined ? await session.context() : await session.contextWith(policy));
}
