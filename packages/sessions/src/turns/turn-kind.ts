import { InvalidError } from '@agdx/wire';

/** The six session turn kinds (seed 004), in kind order: the order reads use to break timestamp ties. */
export const SessionTurnKind: {
  /** An instruction to the agent (`agent.commands`). */
  readonly Instruction: 'instruction';
  /** The final reply (`agent.responses`). */
  readonly Response: 'response';
  /** A model response (`agent.llm_io`). */
  readonly ModelResponse: 'model.response';
  /** A tool call (`agent.tool_calls`). */
  readonly ToolCall: 'tool.call';
  /** A tool result (`agent.tool_results`). */
  readonly ToolResult: 'tool.result';
  /** A human decision (`agent.human_input`). */
  readonly HumanInput: 'human.input';
} = Object.freeze({
  Instruction: 'instruction',
  Response: 'response',
  ModelResponse: 'model.response',
  ToolCall: 'tool.call',
  ToolResult: 'tool.result',
  HumanInput: 'human.input',
});

/** One of the six turn kind strings. */
export type SessionTurnKind = (typeof SessionTurnKind)[keyof typeof SessionTurnKind];

/** The six kinds in kind order. */
export const SESSION_TURN_KINDS: readonly SessionTurnKind[] = Object.freeze([
  'instruction',
  'response',
  'model.response',
  'tool.call',
  'tool.result',
  'human.input',
] as const);

/** The default topic of each kind, in kind order. */
export const DEFAULT_SESSION_TOPICS: readonly string[] = Object.freeze([
  'agent.commands',
  'agent.responses',
  'agent.llm_io',
  'agent.tool_calls',
  'agent.tool_results',
  'agent.human_input',
]);

/** The namespace session memory uses unless the layout names another. */
export const DEFAULT_SESSION_MEMORY_NAMESPACE = 'agent.session';
/** How many turns `context()` keeps by default. */
export const DEFAULT_SESSION_CONTEXT_TURNS = 50;
/** About how many estimated tokens `context()` keeps by default. */
export const DEFAULT_SESSION_CONTEXT_TOKENS = 4000;

/** True for one of the six kind strings. */
export function isSessionTurnKind(value: unknown): value is SessionTurnKind {
  return typeof value === 'string' && (SESSION_TURN_KINDS as readonly string[]).includes(value);
}

/** Index of a kind in kind order. @throws InvalidError for anything else. */
export function turnKindIndex(kind: unknown): number {
  const index = typeof kind === 'string' ? (SESSION_TURN_KINDS as readonly string[]).indexOf(kind) : -1;
  if (index < 0) {
    throw new InvalidError(`unknown session turn kind ${JSON.stringify(String(kind))}; expected one of ${SESSION_TURN_KINDS.join(', ')}`, {
      context: { field: 'kind' },
    });
  }
  return index;
}

/**
 * The default topic of a turn kind.
 * @throws InvalidError for an unknown kind.
 */
export function sessionTurnTopic(kind: SessionTurnKind): string {
  return DEFAULT_SESSION_TOPICS[turnKindIndex(kind)] as string;
}

/** The turn kind of a default topic; undefined for any other topic. */
export function sessionTurnKind(topic: string): SessionTurnKind | undefined {
  const index = DEFAULT_SESSION_TOPICS.indexOf(topic);
  return index < 0 ? undefined : SESSION_TURN_KINDS[index];
}
