/** The well-known AGDX topic names. */
export const AgentTopic: {
  /** The session lane: lifecycle, state and (in the shared layout) all agent work. */
  readonly Sessions: 'agent.sessions';
  /** Chunk streams kept off the lane. */
  readonly Streams: 'agent.streams';
  /** Session heartbeats (records expire after one hour). */
  readonly Heartbeats: 'agent.heartbeats';
  /** Operator control (pause, resume, cancel); created on first use. */
  readonly Control: 'agent.control';
  /** Memory records. */
  readonly Memory: 'agent.memory';
  /** Dead letters. */
  readonly Dlq: 'agent.dlq';
  /** Audit records. */
  readonly Audit: 'agent.audit';
  /** Workflow step journal. */
  readonly WorkflowJournal: 'agent.workflow_journal';
  /** Agent cards and registry facts; created on first use. */
  readonly Registry: 'agent.registry';
  /** Session turn topic: commands. */
  readonly Commands: 'agent.commands';
  /** Session turn topic: responses. */
  readonly Responses: 'agent.responses';
  /** Session turn topic: tool calls. */
  readonly ToolCalls: 'agent.tool_calls';
  /** Session turn topic: tool results. */
  readonly ToolResults: 'agent.tool_results';
  /** Session turn topic: model input and output. */
  readonly LlmIo: 'agent.llm_io';
  /** Session turn topic: human input. */
  readonly HumanInput: 'agent.human_input';
} = Object.freeze({
  Sessions: 'agent.sessions',
  Streams: 'agent.streams',
  Heartbeats: 'agent.heartbeats',
  Control: 'agent.control',
  Memory: 'agent.memory',
  Dlq: 'agent.dlq',
  Audit: 'agent.audit',
  WorkflowJournal: 'agent.workflow_journal',
  Registry: 'agent.registry',
  Commands: 'agent.commands',
  Responses: 'agent.responses',
  ToolCalls: 'agent.tool_calls',
  ToolResults: 'agent.tool_results',
  LlmIo: 'agent.llm_io',
  HumanInput: 'agent.human_input',
});

/** A well-known AGDX topic name. */
export type AgentTopic = (typeof AgentTopic)[keyof typeof AgentTopic];

/** How long `agent.heartbeats` keeps records: one hour, in microseconds. */
export const HEARTBEAT_EXPIRY_MICROS: bigint = 3_600_000_000n;

/** Topics `bootstrap()` creates with no expiry (besides the session lane and heartbeats). */
export const BOOTSTRAP_TOPICS: readonly string[] = Object.freeze([
  AgentTopic.Sessions,
  AgentTopic.Streams,
  AgentTopic.Heartbeats,
  AgentTopic.Memory,
  AgentTopic.Dlq,
  AgentTopic.Audit,
  AgentTopic.WorkflowJournal,
  AgentTopic.Commands,
  AgentTopic.Responses,
  AgentTopic.ToolCalls,
  AgentTopic.ToolResults,
  AgentTopic.LlmIo,
  AgentTopic.HumanInput,
]);

/** Topics created on first use rather than by `bootstrap()` (provisioning may own them). */
export const ON_FIRST_USE_TOPICS: readonly string[] = Object.freeze([AgentTopic.Control, AgentTopic.Registry]);
