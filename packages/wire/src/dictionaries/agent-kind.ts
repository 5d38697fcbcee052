/** The six envelope kinds (a closed vocabulary: a new kind needs an `agdx.av` bump). */
export const AgentKind: {
  readonly Command: 'command';
  readonly Response: 'response';
  readonly Event: 'event';
  readonly Chunk: 'chunk';
  readonly Status: 'status';
  readonly Error: 'error';
} = {
  Command: 'command',
  Response: 'response',
  Event: 'event',
  Chunk: 'chunk',
  Status: 'status',
  Error: 'error',
};

/** One of the six envelope kinds. */
export type AgentKind = (typeof AgentKind)[keyof typeof AgentKind];

/** True when `text` names an envelope kind. */
export function isAgentKind(text: unknown): text is AgentKind {
  return (
    text === 'command' || text === 'response' || text === 'event' || text === 'chunk' || text === 'status' || text === 'error'
  );
}
