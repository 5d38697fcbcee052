/**
 * The opt-in `agdx.*` CUSTOM events: what a conversation view needs that the reference mapping
 * (seed 002) drops, namely the user's input, the commands agents send each other, plain replies,
 * human input requests and answers, and the status of the conversation's current turn.
 */

import { AgentTopic } from '@agdx/agents';
import { AgentKind, TaskState, type AgentEnvelope } from '@agdx/wire';
import { bodyText, errorText } from './convert-record.js';
import type { AgdxCustomEvent, AgdxRecordValue, AgdxTurnValue, AguiEvent } from './events.js';
import { turnEndedBy, turnOpenedBy } from './turn.js';

/** Settings of {@link AgdxEventMapper}. */
export interface AgdxEventOptions {
  /** The topic whose commands are requests for human input (default `agent.human_input`). */
  readonly humanInputTopic?: string | undefined;
}

// A frontend's message published by the live endpoint is JSON `{role, id, content}`; a view
// wants the content, not the wrapper.
function displayText(envelope: AgentEnvelope): string {
  if (envelope.kind === AgentKind.Error) return errorText(envelope.body);
  const text = bodyText(envelope.body);
  if (!text.startsWith('{')) return text;
  try {
    const parsed = JSON.parse(text) as unknown;
    const content = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>)['content'] : undefined;
    return typeof content === 'string' ? content : text;
  } catch {
    return text;
  }
}

function recordValue(envelope: AgentEnvelope): AgdxRecordValue {
  return {
    ...(envelope.record !== undefined ? { id: envelope.record.toString() } : {}),
    ...(envelope.correlation !== undefined ? { correlation: envelope.correlation.toString() } : {}),
    from: envelope.source.asStr(),
    ...(envelope.target !== undefined ? { to: envelope.target.asStr() } : {}),
    ...(envelope.operation !== undefined ? { operation: envelope.operation } : {}),
    ...(envelope.tool !== undefined ? { tool: envelope.tool } : {}),
    text: displayText(envelope),
    ...(envelope.kind === AgentKind.Error ? { error: true } : {}),
  };
}

function recordEvent(name: Exclude<AgdxCustomEvent['name'], 'agdx.turn'>, envelope: AgentEnvelope): AgdxCustomEvent {
  return { type: 'CUSTOM', name, value: recordValue(envelope) };
}

function turnEvent(value: AgdxTurnValue): AgdxCustomEvent {
  return { type: 'CUSTOM', name: 'agdx.turn', value };
}

/**
 * Adds `agdx.*` CUSTOM events to a conversation's AG-UI events, record by record in log order.
 * It tracks the conversation's current turn (as `turn.ts` defines turns): a command that arrives
 * while no turn is open is the user's input and opens one; commands while it is open are the
 * agents' steps; the turn ends with its first answer (a response or error naming no tool, or a
 * terminal or input-required task status), and the next command is the user's again.
 */
export class AgdxEventMapper {
  readonly #humanInputTopic: string;
  #turn: string | undefined;

  constructor(options: AgdxEventOptions = {}) {
    this.#humanInputTopic = options.humanInputTopic ?? AgentTopic.HumanInput;
  }

  /** True when `topic` is the human-input topic (its records render only as `agdx.input_*`). */
  isHumanInput(topic: string | undefined): boolean {
    return topic === this.#humanInputTopic;
  }

  /**
   * The CUSTOM events of one record read from `topic` (undefined: the conversation's own topic),
   * given the events the reference mapping gave it (a RUN_ERROR there names the turn's error).
   */
  events(envelope: AgentEnvelope, topic: string | undefined, mapped: readonly AguiEvent[]): AgdxCustomEvent[] {
    if (this.isHumanInput(topic)) return this.#humanInput(envelope);
    const out: AgdxCustomEvent[] = [];
    const opened = this.#turn === undefined ? turnOpenedBy(envelope) : undefined;
    if (envelope.kind === AgentKind.Command) out.push(recordEvent(opened !== undefined ? 'agdx.user_input' : 'agdx.command', envelope));
    if ((envelope.kind === AgentKind.Response || envelope.kind === AgentKind.Error) && envelope.tool === undefined) out.push(recordEvent('agdx.reply', envelope));
    if (opened !== undefined) {
      this.#turn = opened;
      out.push(turnEvent({ correlation: opened, status: 'working' }));
      return out;
    }
    const turn = this.#turn;
    if (turn === undefined) return out;
    const error = mapped.find((event) => event.type === 'RUN_ERROR');
    const message = error?.type === 'RUN_ERROR' ? error.message : envelope.kind === AgentKind.Error ? errorText(envelope.body) : undefined;
    const ended = turnEndedBy(envelope, turn, message);
    if (ended === undefined) return out;
    this.#turn = undefined;
    if (ended.kind === 'error') out.push(turnEvent({ correlation: turn, status: 'error', message: ended.message }));
    else out.push(turnEvent({ correlation: turn, status: envelope.taskState === TaskState.InputRequired && envelope.kind === AgentKind.Status ? 'input_required' : 'finished' }));
    return out;
  }

  #humanInput(envelope: AgentEnvelope): AgdxCustomEvent[] {
    switch (envelope.kind) {
      case AgentKind.Command:
        return [recordEvent('agdx.input_request', envelope)];
      case AgentKind.Response:
      case AgentKind.Error:
        return [recordEvent('agdx.input_response', envelope)];
      default:
        return [];
    }
  }
}
