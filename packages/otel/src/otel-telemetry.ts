/**
 * The OpenTelemetry implementation of `@agdx/agents`' telemetry hook: PRODUCER spans for sends,
 * CONSUMER spans for handled records (children of the send that wrote them, through the
 * `traceparent` header, and linked to it), CLIENT spans for request-to-reply and human-input
 * waits, SERVER spans for bridge calls, INTERNAL spans for session operations, and the metrics.
 */
import {
  context as contextApi,
  INVALID_SPAN_CONTEXT,
  isSpanContextValid,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type SpanContext,
  type SpanOptions,
  type Tracer,
} from '@opentelemetry/api';
import type { AgdxTelemetry, AgentMessage, ChunkStreamEvent, ChunkStreamSpan, DeadLetterEvent, HandleEvent, HandleSpan, MessagePosition, RecordOutcome, SendEvent, SendSpan, ServeEvent, ServeFailure, ServeSpan, ServeStreamSummary, SessionEvent, SessionSpan, WaitEvent, WaitSpan } from '@agdx/agents';
import type { TokenUsage } from '@agdx/wire';
import type { AgdxMetrics } from './agdx-metrics.js';
import { envelopeAttributes, operationOf, toNumber, usageAttributes } from './envelope-attributes.js';
import { LocalParents } from './local-parents.js';
import { AgdxAttr, GenAiAttr, MESSAGING_SYSTEM, MessagingAttr, RpcAttr } from './semantic-conventions.js';
import { errorMessageOf, exceptionOf } from './error-text.js';
import { recordServeStream } from './serve-stream.js';
import { readTraceHeaders, traceHeaders } from './trace-headers.js';

/** An id kept as an object until a text key is really needed (decoded ids encode on `toString`). */
type Text = { toString(): string };

const PRODUCER: SpanOptions = { kind: SpanKind.PRODUCER };
const CONSUMER: SpanOptions = { kind: SpanKind.CONSUMER };
const CLIENT: SpanOptions = { kind: SpanKind.CLIENT };

/** The telemetry hook `instrument` installs. */
export class OtelTelemetry implements AgdxTelemetry {
  readonly #tracer: Tracer;
  readonly #metrics: AgdxMetrics;
  readonly #local = new LocalParents();
  readonly #measuring: boolean;

  /** A hook writing spans to `tracer` and measurements to `metrics`. */
  constructor(tracer: Tracer, metrics: AgdxMetrics) {
    this.#tracer = tracer;
    this.#metrics = metrics;
    this.#measuring = metrics.measuring !== false;
  }

  /** Running handler and wait scopes (0 when everything has ended). */
  get runningScopes(): number {
    return this.#local.size;
  }

  /**
   * A PRODUCER span around one append; its context travels in the record's headers. Nothing
   * (`undefined`) when the span records nothing, carries no trace context and no metric is kept.
   */
  onSend(event: SendEvent): SendSpan | undefined {
    const envelope = event.envelope;
    const parent = this.#parentOf(envelope.source.value, envelope.conversation, envelope.cause);
    const span = this.#tracer.startSpan(`send ${event.topic}`, PRODUCER, parent);
    const carried = carriesContext(span.spanContext());
    if (!carried && !this.#measuring) return undefined;
    if (span.isRecording()) {
      const attributes = envelopeAttributes(envelope, event.stream, event.topic);
      attributes[MessagingAttr.operationName] = 'send';
      attributes[MessagingAttr.operationType] = 'send';
      span.setAttributes(attributes);
    }
    const metrics = this.#metrics;
    const measured: Attributes = { [MessagingAttr.destinationName]: event.topic, [AgdxAttr.kind]: envelope.kind };
    const usage = envelope.usage;
    const operation = operationOf(envelope);
    return {
      headers: carried ? traceHeaders(span.spanContext()) : undefined,
      end(position: MessagePosition | undefined, error?: unknown): void {
        if (position !== undefined) {
          span.setAttribute(MessagingAttr.partitionId, String(position.partition));
          span.setAttribute(AgdxAttr.offset, Number(position.offset));
          metrics.sent.add(1, measured);
          if (usage !== undefined) recordTokens(metrics, usage, operation);
        } else {
          failSpan(span, error);
        }
        span.end();
      },
    };
  }

  /**
   * One PRODUCER span for a whole chunk stream, with an event per append: `chat` for a model
   * answer (with `gen_ai.usage.*` from the terminal chunk), `execute_tool <tool>` for streamed
   * tool arguments, `stream <purpose>` otherwise.
   */
  onChunkStream(event: ChunkStreamEvent): ChunkStreamSpan | undefined {
    const opening = event.opening;
    const purpose = opening.operation;
    const operation = opening.tool !== undefined ? 'execute_tool' : purpose === 'chat' ? 'chat' : undefined;
    const name = opening.tool !== undefined ? `execute_tool ${opening.tool}` : purpose === 'chat' ? 'chat' : `stream ${purpose ?? 'chunks'}`;
    const parent = this.#parentOf(opening.source.value, opening.conversation, opening.cause);
    const span = this.#tracer.startSpan(name, PRODUCER, parent);
    const carried = carriesContext(span.spanContext());
    if (!carried && !this.#measuring) return undefined;
    if (span.isRecording()) {
      const attributes = envelopeAttributes(opening, event.stream, event.topic);
      attributes[MessagingAttr.operationName] = 'send';
      attributes[MessagingAttr.operationType] = 'send';
      if (opening.channel !== undefined) attributes[AgdxAttr.channel] = opening.channel.toString();
      if (operation !== undefined) attributes[GenAiAttr.operationName] = operation;
      span.setAttributes(attributes);
    }
    const metrics = this.#metrics;
    const measured: Attributes = { [MessagingAttr.destinationName]: event.topic, [AgdxAttr.kind]: 'chunk' };
    let chunks = 0;
    return {
      headers: carried ? traceHeaders(span.spanContext()) : undefined,
      appended(count: number): void {
        chunks += count;
        span.addEvent('chunks appended', { [AgdxAttr.chunks]: count });
        metrics.chunks.add(count, measured);
        metrics.sent.add(count, measured);
      },
      end(finishReason: string | undefined, usage: TokenUsage | undefined, error?: unknown): void {
        span.setAttribute(AgdxAttr.chunks, chunks);
        if (finishReason !== undefined) span.setAttribute(GenAiAttr.finishReasons, [finishReason]);
        if (usage !== undefined) {
          span.setAttributes(usageAttributes(usage));
          recordTokens(metrics, usage, operation);
        }
        if (error !== undefined) failSpan(span, error);
        span.end();
      },
    };
  }

  /**
   * A CONSUMER span around a handler, continuing the trace its record's `traceparent` names.
   * Nothing when the span records nothing, carries no trace context, has nothing to hide and no
   * metric is kept: the handler then runs exactly as without instrumentation.
   */
  onHandle(event: HandleEvent): HandleSpan | undefined {
    const message = event.message;
    const envelope = message.envelope;
    const address = event.address;
    const remote = readTraceHeaders(message.headers);
    const tool = envelope?.tool;
    const name = tool !== undefined ? `execute_tool ${tool}` : `process ${address.topic}`;
    const parent = remote === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, remote);
    const options = remote === undefined ? CONSUMER : { kind: SpanKind.CONSUMER, links: [{ context: remote }] };
    const span = this.#tracer.startSpan(name, options, parent);
    if (this.#idle(span)) return undefined;
    if (span.isRecording()) {
      const attributes: Attributes = envelope !== undefined ? envelopeAttributes(envelope, address.stream, address.topic) : plainAttributes(message, address.stream, address.topic);
      // The handling agent is who this span is about; the record's author is the peer.
      attributes[GenAiAttr.agentId] = event.agent.value;
      attributes[GenAiAttr.agentName] = event.agent.value;
      attributes[MessagingAttr.operationName] = 'process';
      attributes[MessagingAttr.operationType] = 'process';
      attributes[MessagingAttr.partitionId] = String(address.partition);
      attributes[AgdxAttr.offset] = Number(address.offset);
      span.setAttributes(attributes);
    }
    const measuring = this.#measuring;
    const started = measuring ? performance.now() : 0;
    const local = this.#local;
    const conversation = message.provenance.conversation;
    const record = envelope?.record;
    const metrics = this.#metrics;
    const agent = event.agent.value;
    return {
      run<T>(attempt: () => Promise<T>): Promise<T> {
        return runScoped(span, local, agent, conversation, record, attempt);
      },
      end(outcome: RecordOutcome, error?: unknown): void {
        span.setAttribute(AgdxAttr.outcome, outcome);
        if (outcome === 'dead-lettered') failSpan(span, error);
        span.end();
        if (!measuring) return;
        const measured: Attributes = { [GenAiAttr.agentId]: agent, [MessagingAttr.destinationName]: address.topic, [AgdxAttr.outcome]: outcome };
        metrics.handled.add(1, measured);
        metrics.handlerDuration.record((performance.now() - started) / 1000, measured);
      },
    };
  }

  /** A CLIENT span from a request (or prompt) to its correlated answer (nothing when idle, as {@link onHandle}). */
  onWait(event: WaitEvent): WaitSpan | undefined {
    const requester = event.requester.value;
    const conversation = event.conversation;
    const target = event.target?.value;
    const name = event.kind === 'request' ? `invoke_agent ${target ?? 'any'}` : `human_input ${target ?? 'any'}`;
    const span = this.#tracer.startSpan(name, CLIENT, this.#parentOf(requester, conversation, undefined));
    if (this.#idle(span)) return undefined;
    if (span.isRecording()) span.setAttributes(waitAttributes(event, conversation.toString(), requester, target));
    const measuring = this.#measuring;
    const started = measuring ? performance.now() : 0;
    const local = this.#local;
    const metrics = this.#metrics;
    return {
      run<T>(send: () => Promise<T>): Promise<T> {
        return runScoped(span, local, requester, conversation, undefined, send);
      },
      end(reply: AgentMessage | undefined, error?: unknown): void {
        const kind = reply?.envelope?.kind;
        if (kind !== undefined) span.setAttribute(AgdxAttr.kind, kind);
        if (reply === undefined) failSpan(span, error);
        else if (kind === 'error') span.setStatus({ code: SpanStatusCode.ERROR, message: 'answered with an error envelope' });
        span.end();
        if (measuring) metrics.replyLatency.record((performance.now() - started) / 1000, { [AgdxAttr.waitKind]: event.kind, [AgdxAttr.outcome]: reply === undefined ? 'failed' : (kind ?? 'plain') });
      },
    };
  }

  /** Counts a dead letter and marks it on the running handle span, if any. */
  onDeadLetter(event: DeadLetterEvent): void {
    if (this.#measuring) this.#metrics.deadLettered.add(1, { [GenAiAttr.agentId]: event.agent.value, [MessagingAttr.destinationName]: event.address.topic, [AgdxAttr.deadLetterReason]: event.reason });
  }

  /**
   * A SERVER span around one call a bridge serves (`a2a SendMessage`, `mcp tools/call`, `agui run`);
   * the sends made while serving it are its children, and an error answer sets its status.
   */
  onServe(event: ServeEvent): ServeSpan {
    const agent = event.agent?.value;
    const known = event.conversation?.toString();
    const parent = agent === undefined ? contextApi.active() : this.#parentOf(agent, known ?? '', undefined);
    const span = this.#tracer.startSpan(`${event.protocol} ${event.method}`, { kind: SpanKind.SERVER }, parent);
    if (span.isRecording()) {
      const attributes: Attributes = { [AgdxAttr.protocol]: event.protocol, [RpcAttr.method]: event.method };
      if (agent !== undefined) attributes[GenAiAttr.agentId] = attributes[GenAiAttr.agentName] = agent;
      if (event.protocol !== 'agui') attributes[RpcAttr.system] = 'jsonrpc';
      if (known !== undefined) attributes[GenAiAttr.conversationId] = known;
      span.setAttributes(attributes);
    }
    const local = this.#local;
    return {
      run<T>(work: () => Promise<T>): Promise<T> {
        // A call speaking as nobody sends nothing: no local parent to register.
        return agent === undefined ? contextApi.with(trace.setSpan(contextApi.active(), span), work) : runScoped(span, local, agent, known, undefined, work);
      },
      end(failure: ServeFailure | undefined, conversation?: string, stream?: ServeStreamSummary): void {
        if (known === undefined && conversation !== undefined) span.setAttribute(GenAiAttr.conversationId, conversation);
        if (stream !== undefined) recordServeStream(span, stream);
        if (failure !== undefined) {
          if (failure.code !== undefined) span.setAttribute(RpcAttr.errorCode, failure.code);
          const message = errorMessageOf(failure) ?? '';
          span.setAttribute(RpcAttr.errorMessage, message);
          span.setStatus({ code: SpanStatusCode.ERROR, message });
        }
        span.end();
      },
    };
  }

  /** An INTERNAL span `session <operation>` around an `@agdx/sessions` append, context read or checkpoint. */
  onSession(event: SessionEvent): SessionSpan {
    const span = this.#tracer.startSpan(`session ${event.operation}`, { kind: SpanKind.INTERNAL }, this.#sessionParent(event.conversation.toString()));
    if (span.isRecording()) {
      const attributes: Attributes = { [AgdxAttr.sessionOperation]: event.operation, [GenAiAttr.conversationId]: event.conversation.toString() };
      if (event.topic !== undefined) attributes[MessagingAttr.destinationName] = event.topic;
      span.setAttributes(attributes);
    }
    return {
      // A turn append's record carries this span's context, so its reader continues the trace.
      headers: event.operation === 'append' ? traceHeaders(span.spanContext()) : undefined,
      end(error?: unknown): void {
        if (error !== undefined) failSpan(span, error);
        span.end();
      },
    };
  }

  // As #parentOf, for a session operation: it knows its session, not its agent.
  #sessionParent(conversation: string): Context {
    const active = contextApi.active();
    if (carriesActiveSpan(active) || this.#local.empty) return active;
    return underLocal(active, this.#local.findInConversation(conversation));
  }

  // The active span when a context manager carries one, else the running local scope. The ids'
  // text is only made when a scope is running: decoded ids encode their text on first use.
  #parentOf(agent: string, conversation: Text, cause: Text | undefined): Context {
    const active = contextApi.active();
    if (carriesActiveSpan(active) || this.#local.empty) return active;
    return underLocal(active, this.#local.find(agent, conversation.toString(), cause?.toString()));
  }

  // A span that records nothing, carries no trace context (a no-op tracer's without a parent; an
  // SDK's unsampled span still carries one), would hide no running scope or active span from the
  // work inside it, with no metric kept: the hook has nothing to do for it.
  #idle(span: Span): boolean {
    return !this.#measuring && !carriesContext(span.spanContext()) && this.#local.empty && trace.getSpan(contextApi.active()) === undefined;
  }
}

// true when a context manager carries a valid span in `active`: it is the parent, no lookup needed.
function carriesActiveSpan(active: Context): boolean {
  const current = trace.getSpan(active);
  return current !== undefined && isSpanContextValid(current.spanContext());
}

// `active` with the running local scope `local` as its span, or `active` itself when none runs.
function underLocal(active: Context, local: SpanContext | undefined): Context {
  return local === undefined ? active : trace.setSpanContext(active, local);
}

// true when `context` is a trace context to continue: a recording span's, or a remote parent's a
// no-op tracer hands on. The no-op tracer's own empty context is matched by identity first,
// which spares the id checks (regular expressions) on every record.
function carriesContext(context: SpanContext): boolean {
  return context !== INVALID_SPAN_CONTEXT && isSpanContextValid(context);
}

/**
 * Runs `work` inside `span`: registered as a local parent and as the active span. A span that
 * carries no trace context is entered only when something is there for it to hide (a running
 * scope, or an active span a caller set), since no send could continue it.
 */
function runScoped<T>(span: Span, local: LocalParents, agent: string, conversation: Text | undefined, record: Text | undefined, work: () => Promise<T>): Promise<T> {
  const active = contextApi.active();
  if (!carriesContext(span.spanContext()) && local.empty && trace.getSpan(active) === undefined) return work();
  return runEntered(span, active, local.enter(agent, conversation?.toString(), record?.toString(), span.spanContext()), work);
}

async function runEntered<T>(span: Span, active: Context, leave: () => void, work: () => Promise<T>): Promise<T> {
  try {
    return await contextApi.with(trace.setSpan(active, span), work);
  } finally {
    leave();
  }
}

function recordTokens(metrics: AgdxMetrics, usage: TokenUsage, operation: string | undefined): void {
  const base: Attributes = operation === undefined ? {} : { [GenAiAttr.operationName]: operation };
  metrics.tokenUsage.record(toNumber(usage.inputTokens), { ...base, [GenAiAttr.tokenType]: 'input' });
  metrics.tokenUsage.record(toNumber(usage.outputTokens), { ...base, [GenAiAttr.tokenType]: 'output' });
}

function waitAttributes(event: WaitEvent, conversation: string, requester: string, target: string | undefined): Attributes {
  const attributes: Attributes = {
    [GenAiAttr.conversationId]: conversation,
    [MessagingAttr.conversationId]: event.correlation.toString(),
    [AgdxAttr.waitKind]: event.kind,
    [MessagingAttr.system]: MESSAGING_SYSTEM,
  };
  if (event.kind === 'request') {
    attributes[GenAiAttr.operationName] = 'invoke_agent';
    if (target !== undefined) {
      attributes[GenAiAttr.agentId] = target;
      attributes[GenAiAttr.agentName] = target;
    }
  } else {
    attributes[GenAiAttr.operationName] = 'human_input';
    attributes[GenAiAttr.agentId] = requester;
  }
  return attributes;
}

function plainAttributes(message: AgentMessage, stream: string, topic: string): Attributes {
  return {
    [MessagingAttr.system]: MESSAGING_SYSTEM,
    [MessagingAttr.destinationName]: topic,
    [AgdxAttr.stream]: stream,
    [AgdxAttr.kind]: 'plain',
    [GenAiAttr.conversationId]: message.provenance.conversation.toString(),
  };
}

// Never throws, whatever `error` is: the span is ended right after, and a throw here would leak it.
function failSpan(span: Span, error: unknown): void {
  const exception = exceptionOf(error);
  if (exception !== undefined) span.recordException(exception);
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessageOf(error) });
}

