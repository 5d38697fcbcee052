/**
 * Dispatch classification (seed 000 "Dispatch"): a reliable consumer classifies every record
 * before its handler sees it. The author (source) never decides the class, so an agent can send
 * work to itself.
 */
import { BROADCAST_ADDRESSEE, SessionControlOperation, type AgentEnvelope } from '@agdx/wire';

/** What a consumer does with a record. */
export const DispatchClass: {
  /** A command this agent serves: handed to the handler. */
  readonly Work: 'work';
  /** A response, error or chunk: for correlated waits, skipped by the consumer. */
  readonly Reply: 'reply';
  /** A status record (task, session lifecycle, heartbeat): the runtime's, skipped by handlers. */
  readonly Lifecycle: 'lifecycle';
  /** A session control request on `agent.control`: applied by the runtime. */
  readonly Control: 'control';
  /** Events and commands this agent does not serve: skipped and committed. */
  readonly Observational: 'observational';
  /** Addressed to another agent, or not meant for a handler at all: skipped and committed. */
  readonly Foreign: 'foreign';
} = {
  Work: 'work',
  Reply: 'reply',
  Lifecycle: 'lifecycle',
  Control: 'control',
  Observational: 'observational',
  Foreign: 'foreign',
};

/** A dispatch class. */
export type DispatchClass = (typeof DispatchClass)[keyof typeof DispatchClass];

/** The operations an agent serves: every operation, or a fixed list. */
export type HandledOperations = 'any' | readonly string[];

/** The topic session control requests count on. */
export const AGENT_CONTROL_TOPIC = 'agent.control';

const CONTROL_OPERATIONS: ReadonlySet<string> = new Set<string>([
  SessionControlOperation.Pause,
  SessionControlOperation.Resume,
  SessionControlOperation.Cancel,
  SessionControlOperation.ForceCancel,
]);

/** True for `session_pause`, `session_resume`, `session_cancel` and `force_cancel`. */
export function isControlOperation(operation: string | undefined): boolean {
  return operation !== undefined && CONTROL_OPERATIONS.has(operation);
}

function serves(handled: HandledOperations, operation: string | undefined): boolean {
  if (handled === 'any') return true;
  return operation !== undefined && handled.includes(operation);
}

/** The envelope fields classification reads. */
export type ClassifiedEnvelope = Pick<AgentEnvelope, 'kind' | 'target' | 'operation'>;

/**
 * Classifies an AGDX envelope read from `topic` by the agent `me` that serves `handled`.
 * Only a command for a served operation addressed to `me`, to every agent or to no agent is
 * work; a control operation counts only on `agent.control`. Skipping records addressed to
 * another agent is routing, not an access boundary: only separate topics with separate grants
 * keep agents from reading each other's records.
 */
export function classifyEnvelope(envelope: ClassifiedEnvelope, topic: string, me: string, handled: HandledOperations): DispatchClass {
  switch (envelope.kind) {
    case 'status':
      return DispatchClass.Lifecycle;
    case 'response':
    case 'error':
    case 'chunk':
      return DispatchClass.Reply;
    case 'event':
      return DispatchClass.Observational;
    default:
      break;
  }
  const target = envelope.target;
  if (target !== undefined && target.value !== me) return DispatchClass.Foreign;
  const operation = envelope.operation;
  if (isControlOperation(operation)) return topic === AGENT_CONTROL_TOPIC ? DispatchClass.Control : DispatchClass.Observational;
  if (topic === AGENT_CONTROL_TOPIC) return DispatchClass.Foreign;
  return serves(handled, operation) ? DispatchClass.Work : DispatchClass.Observational;
}

/** The provenance fields generic (envelope-less) classification reads. */
export interface GenericDispatchFields {
  /** The addressee (`agdx.to`), `*` meaning every agent. */
  readonly target?: string | undefined;
  /** The causal parent, when the record names one. */
  readonly cause?: string | undefined;
  /** The correlation, when the record carries one. */
  readonly correlation?: string | undefined;
}

/**
 * Classifies a generic (plain, envelope-less) record: another agent's record is foreign, any
 * generic record on `agent.control` is foreign, a record with both a causal parent and a
 * correlation is a reply, everything else is work.
 */
export function classifyGeneric(fields: GenericDispatchFields, topic: string, me: string): DispatchClass {
  const target = fields.target;
  if (target !== undefined && target !== me && target !== BROADCAST_ADDRESSEE) return DispatchClass.Foreign;
  if (topic === AGENT_CONTROL_TOPIC) return DispatchClass.Foreign;
  if (fields.cause !== undefined && fields.correlation !== undefined) return DispatchClass.Reply;
  return DispatchClass.Work;
}
