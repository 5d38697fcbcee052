import { AgentCtx, logPositionOf, type AgdxChunkWriter, type AgdxSend, type AgdxSendBuilder, type AgentIdLike, type Signer } from '@agdx/agents';
import { CorrelationId, InvalidError, type AgentErrorBody, type LogPosition, type RecordId } from '@agdx/wire';

/**
 * Where a model call is recorded when no agent context is at hand: the send verbs of
 * `client.agdx(topic, source, conversation)` and the correlation the records answer.
 */
export interface ModelStreamTarget {
  /** The send verbs (topic, author and session). */
  readonly send: AgdxSend;
  /** The correlation of the request the model call answers. */
  readonly correlation: CorrelationId;
  /** The addressee of every record (`agdx.to`), usually the requester. */
  readonly target?: AgentIdLike | undefined;
  /** The request record the answer names as its cause, with its log position. */
  readonly cause?: { readonly record: RecordId; readonly at?: LogPosition | undefined } | undefined;
  /** Signs the response and the tool records (chunks are never signed). */
  readonly signer?: Signer | undefined;
}

/** An agent handler's context (answers on `respondOn`) or an explicit {@link ModelStreamTarget}. */
export type ModelStreamDestination = AgentCtx | ModelStreamTarget;

/** @internal The record writers a recorder needs, resolved once from a destination. */
export interface ResolvedDestination {
  readonly correlation: CorrelationId;
  open(purpose: 'chat' | 'reasoning' | 'tool_args'): AgdxChunkWriter;
  respond(body: Uint8Array): AgdxSendBuilder;
  fail(correlation: CorrelationId, error: AgentErrorBody): AgdxSendBuilder;
  answer(correlation: CorrelationId, body: Uint8Array): AgdxSendBuilder;
}

interface Addressing {
  readonly send: AgdxSend;
  readonly correlation: CorrelationId;
  readonly target: AgentIdLike | undefined;
  readonly cause: RecordId | undefined;
  readonly causeAt: LogPosition | undefined;
  readonly signer: Signer | undefined;
}

function fromContext(ctx: AgentCtx, signer: Signer | undefined): Addressing {
  const topic = ctx.respondOn;
  if (topic === undefined) throw new InvalidError('recording a model call on an agent context requires the agent to configure respondOn', { context: { field: 'respondOn' } });
  const message = ctx.message;
  const envelope = message.envelope;
  const correlation = envelope?.correlation ?? (message.provenance.correlation === undefined ? undefined : CorrelationId.tryParse(message.provenance.correlation));
  if (correlation === undefined) throw new InvalidError('recording a model call needs a handled message with a correlation', { context: { field: 'correlation' } });
  return {
    send: ctx.client.agdx(topic, ctx.agent, ctx.conversation),
    correlation,
    target: envelope?.source ?? message.provenance.agent,
    cause: envelope?.record,
    causeAt: envelope?.record === undefined ? undefined : logPositionOf(message.id),
    signer,
  };
}

function fromTarget(target: ModelStreamTarget): Addressing {
  if (typeof target !== 'object' || target === null || typeof target.send?.respond !== 'function') {
    throw new InvalidError('a model stream destination is an AgentCtx or { send, correlation }', { context: { field: 'destination' } });
  }
  if (!(target.correlation instanceof CorrelationId)) throw new InvalidError('a model stream target needs a CorrelationId', { context: { field: 'correlation' } });
  return {
    send: target.send,
    correlation: target.correlation,
    target: target.target,
    cause: target.cause?.record,
    causeAt: target.cause?.at,
    signer: target.signer,
  };
}

/** @internal Resolves a destination; `signer` signs answers written through an agent context. */
export function resolveDestination(destination: ModelStreamDestination, signer: Signer | undefined): ResolvedDestination {
  const to = destination instanceof AgentCtx ? fromContext(destination, signer) : fromTarget(destination);
  const address = (builder: AgdxSendBuilder): AgdxSendBuilder => {
    if (to.target !== undefined) builder.withTarget(to.target);
    if (to.cause !== undefined) builder.withCause(to.cause, to.causeAt);
    if (to.signer !== undefined) builder.signedBy(to.signer);
    return builder;
  };
  return {
    correlation: to.correlation,
    open(purpose) {
      const writer = to.send.stream(to.correlation, purpose);
      if (to.target !== undefined) writer.withTarget(to.target);
      if (to.cause !== undefined) writer.withCause(to.cause, to.causeAt);
      return writer;
    },
    respond: (body) => address(to.send.respond(to.correlation, body)),
    answer: (correlation, body) => address(to.send.respond(correlation, body)),
    fail: (correlation, error) => address(to.send.fail(correlation, error)),
  };
}
