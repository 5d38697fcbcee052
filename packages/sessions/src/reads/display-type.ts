import { SESSION_PARKED_OPERATION, SESSION_UNPARKED_OPERATION, TaskState, type AgentEnvelope } from '@agdx/wire';

const CONTROL_OPERATIONS: ReadonlySet<string> = new Set(['session_pause', 'session_resume', 'session_cancel', 'force_cancel']);
const MODEL_OPERATIONS: ReadonlySet<string> = new Set(['chat', 'text_completion', 'generate_content']);

/**
 * The timeline display type of an envelope read on `topic` (runtime facts §3.9). `isStart` tells
 * a Working start from a Working transition.
 */
export function envelopeDisplayType(envelope: AgentEnvelope, topic: string, isStart: boolean): string {
  const op = envelope.operation;
  const role = envelope.metadata?.get('role');
  switch (envelope.kind) {
    case 'status': {
      if (op === 'progress' && topic === 'agent.heartbeats') return 'session.heartbeat';
      if (op === 'task') return 'task.status';
      if (op !== 'session') return 'agent.message';
      switch (envelope.taskState) {
        case TaskState.Submitted:
          return 'session.submitted';
        case TaskState.Working:
          return isStart ? 'session.started' : 'session.resumed';
        case TaskState.Paused:
          return 'session.paused';
        case TaskState.Completed:
          return 'session.completed';
        case TaskState.Failed:
        case TaskState.Rejected:
          return 'session.failed';
        case TaskState.Canceled:
          return 'session.canceled';
        default:
          return 'task.status';
      }
    }
    case 'command':
      if (op !== undefined && CONTROL_OPERATIONS.has(op)) return topic === 'agent.control' ? 'session.control' : 'unauthorized_control';
      if (role === 'user') return 'user.message';
      if (op !== undefined && MODEL_OPERATIONS.has(op)) return 'model.request';
      if (op === 'execute_tool') return 'tool.call';
      if (op === 'invoke_agent') return 'agent.handoff';
      return 'agent.message';
    case 'event':
      if (role === 'user') return 'user.message';
      if (op === 'state_delta' || op === 'state_snapshot') return 'state.updated';
      if (op === 'context_assembled') return 'context.assembled';
      if (op === 'context_compacted') return 'context.compacted';
      if (op === 'context_retrieved') return 'context.retrieved';
      if (op === 'policy_decision') return 'policy.decision';
      if (op === SESSION_PARKED_OPERATION) return 'session.parked';
      if (op === SESSION_UNPARKED_OPERATION) return 'session.unparked';
      return 'agent.message';
    case 'response':
      if (op !== undefined && MODEL_OPERATIONS.has(op)) return 'model.response';
      if (op === 'execute_tool') return 'tool.result';
      return 'agent.message';
    case 'error':
      return op === 'execute_tool' ? 'tool.result' : 'error';
    case 'chunk':
      return op === 'chat' || op === 'reasoning' ? 'model.stream' : 'agent.message';
    default:
      return 'agent.message';
  }
}

/** Display types of records that are not envelopes. */
export const PlainDisplayType: {
  readonly MemoryCreated: 'memory.created';
  readonly MemoryForgotten: 'memory.forgotten';
  readonly MemoryFeedback: 'memory.feedback';
  readonly DeadLetter: 'dead_letter';
  readonly Undecodable: 'undecodable';
  readonly Invalid: 'invalid';
  readonly AgentMessage: 'agent.message';
} = Object.freeze({
  MemoryCreated: 'memory.created',
  MemoryForgotten: 'memory.forgotten',
  MemoryFeedback: 'memory.feedback',
  DeadLetter: 'dead_letter',
  Undecodable: 'undecodable',
  Invalid: 'invalid',
  AgentMessage: 'agent.message',
});
