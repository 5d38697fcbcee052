/**
 * Turns of a conversation, as an AG-UI run over an existing thread sees them.
 *
 * A turn is one task: it opens with a command that names no tool (the user's request; tool
 * calls are steps inside a turn) or a Submitted task status, and it ends with the first answer
 * carrying its correlation: a response or error that names no tool, or a task status that is
 * terminal (Completed, Canceled, Failed, Rejected) or interrupted (InputRequired: the turn now
 * waits for a human). The first ending wins; later ones change nothing.
 */

import { AgentKind, TaskState, type AgentEnvelope } from '@agdx/wire';
import { TASK_STATUS_OPERATION } from './convert-record.js';
import type { AguiEvent } from './events.js';

/** How a turn ended, as far as a run is concerned. */
export type TurnEnd = { readonly kind: 'finished' } | { readonly kind: 'error'; readonly message: string };

/** The correlation of the turn this record opens, if it opens one. */
export function turnOpenedBy(envelope: AgentEnvelope): string | undefined {
  const correlation = envelope.correlation?.toString();
  if (correlation === undefined) return undefined;
  if (envelope.kind === AgentKind.Command && envelope.tool === undefined) return correlation;
  if (envelope.kind === AgentKind.Status && envelope.operation === TASK_STATUS_OPERATION && envelope.taskState === TaskState.Submitted) return correlation;
  return undefined;
}

/**
 * Whether this record ends the turn `turn`, and how. `errorMessage` is the text a RUN_ERROR of
 * the record would carry (the converter's), used for an ending that is an error.
 */
export function turnEndedBy(envelope: AgentEnvelope, turn: string, errorMessage: string | undefined): TurnEnd | undefined {
  if (envelope.correlation?.toString() !== turn) return undefined;
  switch (envelope.kind) {
    case AgentKind.Response:
      return envelope.tool === undefined ? { kind: 'finished' } : undefined;
    case AgentKind.Error:
      return envelope.tool === undefined ? { kind: 'error', message: errorMessage ?? 'the task failed' } : undefined;
    case AgentKind.Status:
      if (envelope.operation !== TASK_STATUS_OPERATION) return undefined;
      switch (envelope.taskState) {
        case TaskState.Completed:
        case TaskState.Canceled:
        case TaskState.InputRequired:
          return { kind: 'finished' };
        case TaskState.Failed:
        case TaskState.Rejected:
          return { kind: 'error', message: errorMessage ?? 'the task failed' };
        default:
          return undefined;
      }
    default:
      return undefined;
  }
}

/**
 * What one record means for turns, kept instead of the record by readers that replay a thread
 * later (a kept replay, a fold snapshot): the turn it opens, its correlation, and how it would
 * end the turn of that correlation.
 */
export interface TurnFacts {
  /** The correlation of the turn it opens ({@link turnOpenedBy}). */
  readonly opens: string | undefined;
  /** Its correlation. */
  readonly correlation: string | undefined;
  /** How it ends the turn of its own correlation ({@link turnEndedBy}), if it does. */
  readonly ends: TurnEnd | undefined;
}

/** The {@link TurnFacts} of a record; `events` are its converted events (a RUN_ERROR's message names an error ending). */
export function turnFactsOf(envelope: AgentEnvelope, events: readonly AguiEvent[]): TurnFacts {
  const correlation = envelope.correlation?.toString();
  const error = events.find((event) => event.type === 'RUN_ERROR');
  const message = error?.type === 'RUN_ERROR' ? error.message : undefined;
  return { opens: turnOpenedBy(envelope), correlation, ends: correlation === undefined ? undefined : turnEndedBy(envelope, correlation, message) };
}

/** Whether a record with these facts matters to a run: it opens or ends a turn. */
export function concernsTurns(facts: TurnFacts): boolean {
  return facts.opens !== undefined || facts.ends !== undefined;
}

/** Where a run over a thread starts: the thread's latest turn when the request came. */
export interface TurnStart {
  /** The correlation of the latest turn in the log; undefined when the thread has none yet (the first one to open is followed). */
  readonly turn: string | undefined;
}

/** The {@link TurnStart} of a thread from its records so far, in log order. */
export function turnStartOf(records: readonly { readonly envelope: AgentEnvelope }[]): TurnStart {
  let turn: string | undefined;
  for (const record of records) turn = turnOpenedBy(record.envelope) ?? turn;
  return { turn };
}

/** The {@link TurnStart} of a thread from the {@link TurnFacts} of its records so far, in log order. */
export function turnStartOfFacts(facts: Iterable<TurnFacts>): TurnStart {
  let turn: string | undefined;
  for (const f of facts) turn = f.opens ?? turn;
  return { turn };
}
