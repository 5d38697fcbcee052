import type { Signer } from '@agdx/agents';
import type { Session } from '@agdx/sessions';
import { AgentErrorCode, ContentType, CorrelationId, InvalidError, MAX_AGENT_STRING_BYTES, MAX_METADATA_VALUE_BYTES, MintUlid, RecordId, utf8Length, type AgentErrorBody, type BlobStore, type TokenUsage } from '@agdx/wire';
import type { ModelMessage } from 'ai';
import { resolveDestination, type ModelStreamDestination, type ResolvedDestination } from './destination.js';
import { seedFinishReason } from './finish-reason.js';
import { errorMessage, jsonText } from './json-text.js';
import { checkModelPrice, costMicrosOf, type ModelPrice } from './model-price.js';
import { appendModelMessages } from './session-turns.js';
import { StepMessages } from './step-messages.js';
import { tokenUsageOf, type AiSdkUsage } from './token-usage.js';
import { StreamWriters } from './stream-writers.js';
import { ABORTED, cancel, cappedStr, field, iteratorOf, nextOrAbort, partsOf, str, type ModelStreamPart, type ModelStreamSource } from './stream-parts.js';

export type { ModelStreamPart, ModelStreamSource } from './stream-parts.js';

/** Options of {@link recordModelStream}. */
export interface RecordModelStreamOptions {
  /** The model's price: the response's usage then carries `cost_micros`. */
  readonly price?: ModelPrice | undefined;
  /** `gen_ai.provider.name` on the response (the AI SDK stream does not name the provider). */
  readonly provider?: string | undefined;
  /** `gen_ai.request.model` on the response: the model asked for, when it may differ from the one that answered. */
  readonly requestModel?: string | undefined;
  /** Buffers chunks: at most `maxChunks` per append, flushed after `lingerMs` (checked on writes). Default: one append per delta. */
  readonly buffer?: { readonly maxChunks: number; readonly lingerMs: number } | undefined;
  /** Aborting stops reading the model stream, cancels it and ends the chunk streams with a `Cancelled` error (give `streamText` the same signal as `abortSignal` to stop the model call: its `fullStream` is a copy). */
  readonly signal?: AbortSignal | undefined;
  /** Signs the response and the tool records written through an agent context (an `AgentCtx` does not lend its key). */
  readonly signer?: Signer | undefined;
  /** Claim-checks response and tool-result bodies at or above `threshold` bytes into `store`. */
  readonly claimCheck?: { readonly store: BlobStore; readonly threshold: number } | undefined;
  /** Also appends the call to this session: `request` first, then each step's messages as it finishes. */
  readonly session?: Session | undefined;
  /** The messages new in this call (usually the user's prompt), appended to `session` before the answer. */
  readonly request?: readonly ModelMessage[] | undefined;
}

/** How a recorded model call ended. */
export interface ModelStreamOutcome {
  /** `finished` (the stream reached its finish), `failed` (a model error, or a stream cut short) or `aborted`. */
  readonly status: 'finished' | 'failed' | 'aborted';
  /** The finish reason written (`stop`, `tool_calls`, `length`, …), or `error` / `cancelled` when it did not finish. */
  readonly finishReason: string;
  /** The model that answered (`gen_ai.response.model`), when the stream named it. */
  readonly modelId: string | undefined;
  /** The whole call's usage as written on the response (with `costMicros` when priced). */
  readonly usage: TokenUsage | undefined;
  /** The text of the last step (the AI SDK's `text`): the response body. */
  readonly text: string;
  /** Steps that finished. */
  readonly steps: number;
  /** The AI SDK messages of the finished steps (assistant and tool messages). */
  readonly messages: readonly ModelMessage[];
  /** The response record, when the call finished. */
  readonly response: RecordId | undefined;
  /** The model's error, when it failed. */
  readonly error: unknown;
}

const encoder = new TextEncoder();

function checkOptions(options: RecordModelStreamOptions): void {
  if (options.price !== undefined) checkModelPrice(options.price);
  if (options.request !== undefined && options.session === undefined) throw new InvalidError('request messages need a session to be appended to', { context: { field: 'request' } });
  if (options.request !== undefined && !Array.isArray(options.request)) throw new InvalidError('request must be an array of AI SDK messages', { context: { field: 'request' } });
  for (const field of ['provider', 'requestModel'] as const) {
    const value = options[field];
    if (value !== undefined && (typeof value !== 'string' || value.length === 0)) throw new InvalidError(`${field} must be a non-empty string`, { context: { field } });
    if (value !== undefined && utf8Length(value) > MAX_METADATA_VALUE_BYTES) throw new InvalidError(`${field} must be at most ${MAX_METADATA_VALUE_BYTES} UTF-8 bytes`, { context: { field } });
  }
}

type Ending = { readonly status: 'aborted' } | { readonly status: 'failed'; readonly error: unknown };

/**
 * Records one model call made with the AI SDK: reads its full stream and writes reasoning, text
 * and tool-call arguments to chunk streams (purposes `reasoning`, `chat`, `tool_args`), each tool
 * result or tool error as its own record (operation `execute_tool`, the tool's name, a correlation
 * of its own and `gen_ai.tool.call.id`), and, at the end, the response: the last step's text with
 * the finish reason, the model id (`gen_ai.response.model`) and the whole call's usage
 * (`cost_micros` when `price` is given). Each write is awaited before the next part is read, so a
 * slow log slows the model stream and nothing is dropped. A model error, an abort or a stream cut
 * short ends every open chunk stream with an error record (one plain error when none was open),
 * so no stream is left half-open; the outcome says which.
 * @throws InvalidError for bad options (before anything is read); a transport or policy error
 * when the log refuses a write (the model stream is then cancelled, open streams failed where the
 * log still accepts it).
 */
export async function recordModelStream(source: ModelStreamSource, destination: ModelStreamDestination, options: RecordModelStreamOptions = {}): Promise<ModelStreamOutcome> {
  checkOptions(options);
  const parts = partsOf(source);
  const to = resolveDestination(destination, options.signer);
  const recorder = new ModelCallRecorder(to, options);
  return recorder.run(parts);
}

class ModelCallRecorder {
  readonly #to: ResolvedDestination;
  readonly #options: RecordModelStreamOptions;
  readonly #writers: StreamWriters;
  readonly #call = MintUlid.mint(RecordId).toString();
  readonly #toolNames = new Map<string, string>();
  readonly #toolCorrelations = new Map<string, CorrelationId>();
  // Calls whose arguments were streamed (tool-input parts); the others are written whole at tool-call.
  readonly #streamedInputs = new Set<string>();
  readonly #messages: ModelMessage[] = [];
  #seq = 0;
  #step = new StepMessages();
  #steps = 0;
  #lastText = '';
  #modelId: string | undefined;
  #finishReason: string | undefined;
  #totalUsage: AiSdkUsage | undefined;

  constructor(to: ResolvedDestination, options: RecordModelStreamOptions) {
    this.#to = to;
    this.#options = options;
    this.#writers = new StreamWriters(to, options.buffer);
  }

  async run(parts: AsyncIterable<ModelStreamPart>): Promise<ModelStreamOutcome> {
    const session = this.#options.session;
    if (session !== undefined && this.#options.request !== undefined) {
      await appendModelMessages(session, this.#options.request, { call: this.#call, firstSeq: this.#seq });
      this.#seq += this.#options.request.length;
    }
    const iterator = iteratorOf(parts);
    let ending: Ending | undefined;
    try {
      ending = await this.#consume(iterator);
    } catch (error) {
      // The log refused a write: stop the model, close what can still be closed, report the log's error.
      await cancel(iterator);
      await this.#writers.failAll(errorBody(AgentErrorCode.Internal, 'the model call could not be recorded', false)).catch(() => undefined);
      throw error;
    }
    if (ending !== undefined) return this.#end(ending, iterator);
    return this.#finish();
  }

  async #consume(iterator: AsyncIterator<ModelStreamPart>): Promise<Ending | undefined> {
    const signal = this.#options.signal;
    for (;;) {
      if (signal?.aborted === true) return { status: 'aborted' };
      let next: IteratorResult<ModelStreamPart>;
      try {
        next = await nextOrAbort(iterator, signal);
      } catch (error) {
        if (error === ABORTED) return { status: 'aborted' };
        return { status: 'failed', error };
      }
      if (next.done === true) return this.#finishReason === undefined ? { status: 'failed', error: new InvalidError('the model stream ended before its finish part') } : undefined;
      const part = next.value;
      if (typeof part !== 'object' || part === null) continue;
      if (part.type === 'abort') return { status: 'aborted' };
      if (part.type === 'error') return { status: 'failed', error: field(part, 'error') };
      await this.#apply(part);
    }
  }

  async #apply(part: ModelStreamPart): Promise<void> {
    const id = str(part, 'id') ?? '';
    switch (part.type) {
      case 'reasoning-start':
      case 'text-start':
        this.#writers.open(part.type === 'text-start' ? 'text' : 'reasoning', id);
        return;
      case 'reasoning-delta':
      case 'text-delta': {
        const kind = part.type === 'text-delta' ? 'text' : 'reasoning';
        const text = str(part, 'text') ?? str(part, 'delta') ?? '';
        if (text.length === 0) return;
        this.#step.addText(kind, id, text);
        await this.#writers.write(kind, id, text);
        return;
      }
      case 'reasoning-end':
        this.#step.endText('reasoning', id);
        await this.#writers.finish('reasoning', id, 'stop');
        return;
      case 'text-end':
        // The chat stream stays open: its finish reason is the step's, known only at `finish-step`.
        this.#step.endText('text', id);
        return;
      case 'tool-input-start':
        this.#streamedInputs.add(id);
        this.#writers.open('tool', id, cappedStr(part, 'toolName', MAX_AGENT_STRING_BYTES));
        return;
      case 'tool-input-delta':
        this.#streamedInputs.add(id);
        await this.#writers.write('tool', id, str(part, 'delta') ?? '');
        return;
      case 'tool-input-end':
        await this.#writers.finish('tool', id, 'stop');
        return;
      case 'tool-call':
        return this.#toolCall(part);
      case 'tool-result':
        return this.#toolResult(part);
      case 'tool-error':
        return this.#toolFailure(part, errorBody(AgentErrorCode.ToolFailure, errorMessage(field(part, 'error')), false));
      case 'tool-output-denied':
        return this.#toolFailure(part, errorBody(AgentErrorCode.Unauthorized, 'the tool execution was denied', false));
      case 'finish-step':
        return this.#finishStep(part);
      case 'finish':
        this.#finishReason = seedFinishReason(field(part, 'finishReason'));
        this.#totalUsage = field(part, 'totalUsage') as AiSdkUsage | undefined;
        return;
      default:
        // start, start-step, sources, files, custom, raw and ping parts carry nothing AGDX records.
        return;
    }
  }

  async #toolCall(part: ModelStreamPart): Promise<void> {
    const callId = cappedStr(part, 'toolCallId', MAX_METADATA_VALUE_BYTES);
    const toolName = cappedStr(part, 'toolName', MAX_AGENT_STRING_BYTES);
    // A call without an id or a tool cannot be answered or replayed; there is nothing to record.
    if (callId === undefined || toolName === undefined) return;
    this.#toolNames.set(callId, toolName);
    const input = field(part, 'input');
    // A provider that sends whole calls (no input deltas) still gets its arguments on the log.
    if (!this.#streamedInputs.has(callId)) {
      this.#writers.open('tool', callId, toolName);
      await this.#writers.write('tool', callId, jsonText(input));
    }
    await this.#writers.finish('tool', callId, 'stop');
    // An invalid call (input the schema refused) stays in the history too: its tool-error answers it.
    this.#step.addCall(callId, toolName, input, field(part, 'providerExecuted') === true);
  }

  #toolCorrelation(callId: string): CorrelationId {
    let correlation = this.#toolCorrelations.get(callId);
    if (correlation === undefined) {
      correlation = MintUlid.mint(CorrelationId);
      this.#toolCorrelations.set(callId, correlation);
    }
    return correlation;
  }

  async #toolResult(part: ModelStreamPart): Promise<void> {
    // A preliminary result is a progress report; the final one follows.
    if (field(part, 'preliminary') === true) return;
    const callId = cappedStr(part, 'toolCallId', MAX_METADATA_VALUE_BYTES) ?? '';
    const toolName = cappedStr(part, 'toolName', MAX_AGENT_STRING_BYTES) ?? this.#toolNames.get(callId) ?? '';
    const output = field(part, 'output');
    const builder = this.#to.answer(this.#toolCorrelation(callId), encoder.encode(jsonText(output))).contentType(ContentType.json);
    await this.#send(this.#toolRecord(builder, callId, toolName));
    this.#step.addResult(callId, toolName, output);
  }

  async #toolFailure(part: ModelStreamPart, body: AgentErrorBody): Promise<void> {
    const callId = cappedStr(part, 'toolCallId', MAX_METADATA_VALUE_BYTES) ?? '';
    const toolName = cappedStr(part, 'toolName', MAX_AGENT_STRING_BYTES) ?? this.#toolNames.get(callId) ?? '';
    await this.#send(this.#toolRecord(this.#to.fail(this.#toolCorrelation(callId), body), callId, toolName));
    if (part.type === 'tool-error') this.#step.addError(callId, toolName, body.message ?? '');
    else this.#step.addDenied(callId, toolName);
  }

  #toolRecord<B extends ReturnType<ResolvedDestination['fail']>>(builder: B, callId: string, toolName: string): B {
    builder.withOperation('execute_tool').withMetadata('gen_ai.tool.call.id', callId);
    if (toolName.length > 0) builder.withTool(toolName);
    return builder;
  }

  async #send(builder: ReturnType<ResolvedDestination['fail']>): Promise<RecordId> {
    const claim = this.#options.claimCheck;
    if (claim !== undefined) builder.claimCheck(claim.store, claim.threshold);
    return builder.send();
  }

  async #finishStep(part: ModelStreamPart): Promise<void> {
    const response = field(part, 'response');
    const modelId = typeof response === 'object' && response !== null ? (response as { modelId?: unknown }).modelId : undefined;
    // A model id the metadata cannot carry is left out like a missing one: it must not lose the response.
    if (typeof modelId === 'string' && modelId.length > 0 && utf8Length(modelId) <= MAX_METADATA_VALUE_BYTES) this.#modelId = modelId;
    await this.#closeStep(seedFinishReason(field(part, 'finishReason')), tokenUsageOf(field(part, 'usage') as AiSdkUsage | undefined));
  }

  async #closeStep(finishReason: string, usage: TokenUsage | undefined): Promise<void> {
    await this.#writers.finishStep(finishReason, usage);
    const messages = this.#step.messages();
    this.#lastText = this.#step.text();
    this.#step = new StepMessages();
    this.#steps += 1;
    this.#messages.push(...messages);
    const session = this.#options.session;
    if (session !== undefined && messages.length > 0) {
      await appendModelMessages(session, messages, { call: this.#call, firstSeq: this.#seq });
      this.#seq += messages.length;
    }
  }

  async #finish(): Promise<ModelStreamOutcome> {
    const finishReason = this.#finishReason ?? 'other';
    // A stream without finish-step parts (a hand-made one) still closes its last step: the call ended.
    if (this.#step.messages().length > 0) await this.#closeStep(finishReason, undefined);
    else await this.#writers.finishStep(finishReason, undefined);
    const usage = pricedUsage(this.#totalUsage, this.#options.price);
    // A response body may not be empty: a call that wrote no text (only tool calls) answers with its messages as JSON.
    const builder =
      this.#lastText.length > 0
        ? this.#to.respond(encoder.encode(this.#lastText))
        : this.#to.respond(encoder.encode(jsonText(this.#messages))).contentType(ContentType.json);
    builder.withOperation('chat').withFinishReason(finishReason).withUsage(usage);
    if (this.#modelId !== undefined) builder.withMetadata('gen_ai.response.model', this.#modelId);
    if (this.#options.requestModel !== undefined) builder.withMetadata('gen_ai.request.model', this.#options.requestModel);
    if (this.#options.provider !== undefined) builder.withMetadata('gen_ai.provider.name', this.#options.provider);
    const response = await this.#send(builder);
    return this.#outcome('finished', finishReason, usage, response, undefined);
  }

  async #end(ending: Ending, iterator: AsyncIterator<ModelStreamPart>): Promise<ModelStreamOutcome> {
    await cancel(iterator);
    const body =
      ending.status === 'aborted'
        ? errorBody(AgentErrorCode.Cancelled, 'the model call was aborted', false)
        : errorBody(AgentErrorCode.Internal, `the model call failed: ${errorMessage(ending.error)}`, retryable(ending.error));
    const failed = await this.#writers.failAll(body);
    if (failed === 0) await this.#send(this.#to.fail(this.#to.correlation, body).withOperation('chat'));
    const reason = ending.status === 'aborted' ? 'cancelled' : 'error';
    return this.#outcome(ending.status, reason, undefined, undefined, ending.status === 'failed' ? ending.error : undefined);
  }

  #outcome(status: ModelStreamOutcome['status'], finishReason: string, usage: TokenUsage | undefined, response: RecordId | undefined, error: unknown): ModelStreamOutcome {
    return { status, finishReason, modelId: this.#modelId, usage, text: this.#lastText, steps: this.#steps, messages: [...this.#messages], response, error };
  }
}

// The model reports its usage, so it is advisory like the counts themselves: a cost past u64
// (absurd counts at a real price) is left out rather than losing the response that answers the request.
function pricedUsage(usage: AiSdkUsage | undefined, price: ModelPrice | undefined): TokenUsage {
  const unpriced = tokenUsageOf(usage);
  if (price === undefined) return unpriced;
  try {
    return { ...unpriced, costMicros: costMicrosOf(unpriced, price) };
  } catch {
    return unpriced;
  }
}

function retryable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { isRetryable?: unknown }).isRetryable === true;
}

function errorBody(code: number, message: string, isRetryable: boolean): AgentErrorBody {
  return { code, message: message.length > 1024 ? `${message.slice(0, 1021)}...` : message, retryable: isRetryable };
}

