import { readFileSync } from 'node:fs';
import { AgentKind, TaskState, isTerminalTaskState, type AgentEnvelope } from '@agdx/wire';
import { envelopeToAgUi, type AguiEvent } from '@agdx/agui';

/** One listed divergence. */
export interface DivergenceRule {
  readonly rule: string;
  readonly reason: string;
}

/** The divergence list of this package. */
export const DIVERGENCES: { readonly split: string; readonly rules: readonly DivergenceRule[] } = JSON.parse(
  readFileSync(new URL('../expectations/divergences.json', import.meta.url), 'utf8'),
) as { split: string; rules: DivergenceRule[] };

/** What seen-channel context a rule needs while walking a case's records. */
export interface WalkContext {
  readonly seenChannels: Set<string>;
}

/**
 * Undo functions: given one record and the events we produced for it, return the events the
 * 0.1.1 reference produces, or undefined when the rule does not apply to this record.
 */
export const UNDO: Readonly<Record<string, (envelope: AgentEnvelope, events: readonly AguiEvent[], context: WalkContext) => AguiEvent[] | undefined>> = {
  // A terminal task status renders something unless a terminal of the same task came first, so
  // no events for one means the rule fired; the reference rendered it as the record alone does.
  'later-terminal-status-renders-nothing': (envelope, events) => {
    if (envelope.kind !== AgentKind.Status || envelope.operation !== 'task' || envelope.correlation === undefined) return undefined;
    if (envelope.taskState === undefined || !isTerminalTaskState(envelope.taskState) || events.length > 0) return undefined;
    return envelopeToAgUi(envelope) ?? [];
  },
  'failed-or-rejected-task-is-run-error': (envelope, events) => {
    if (envelope.kind !== AgentKind.Status || envelope.operation !== 'task') return undefined;
    if (envelope.taskState !== TaskState.Failed && envelope.taskState !== TaskState.Rejected) return undefined;
    return events.map((e) =>
      e.type === 'RUN_ERROR'
        ? { type: 'RUN_FINISHED', threadId: envelope.conversation.toString(), runId: (envelope.correlation ?? envelope.record)?.toString() ?? '' }
        : e,
    );
  },
  'tool-call-result-carries-message-id': (envelope, events) => {
    if ((envelope.kind !== AgentKind.Response && envelope.kind !== AgentKind.Error) || envelope.tool === undefined) return undefined;
    return events.map((e) => {
      if (e.type !== 'TOOL_CALL_RESULT') return e;
      const { messageId: _dropped, ...rest } = e;
      return rest as unknown as AguiEvent;
    });
  },
  'orphan-chunk-opens-its-message': (envelope, events, context) => {
    if (envelope.kind !== AgentKind.Chunk || envelope.channel === undefined) return undefined;
    if (envelope.sequence === 0n || context.seenChannels.has(envelope.channel.toString())) return undefined;
    return events.filter((e) => e.type !== 'TEXT_MESSAGE_START');
  },
};
