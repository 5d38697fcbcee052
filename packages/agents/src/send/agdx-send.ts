import {
  CorrelationId,
  decodeAgentErrorBody,
  RecordId,
  type AgentErrorBody,
  type AgentId,
  type ConversationId,
} from '@agdx/wire';
import { RejectedError } from '../errors.js';
import type { WaitEvent } from '../telemetry/agdx-telemetry.js';
import { sendAndWait } from '../telemetry/guarded-telemetry.js';
import { replyTopicFor } from '../layouts/stream-layout.js';
import { agentMessageBody, resolveAgentMessageBody } from '../message/agent-message.js';
import { checkTimeoutMs } from '../replies/reply-hub.js';
import type { ReplySignerPolicy } from '../replies/reply-signers.js';
import type { Verifier } from '../replies/verifier.js';
import { AgdxChunkWriter } from '../streaming/chunk-writer.js';
import { AgdxSendBuilder, type SendTarget } from './agdx-send-builder.js';
import { encodeErrorBody } from './error-body.js';
import { checkBytes, checkObject, checkText, toAgentId, type AgentIdLike } from './refinements.js';

/** Options of {@link AgdxSend.requestInput}. */
export interface RequestInputOptions {
  /** Aborting rejects with CancelledError. */
  readonly signal?: AbortSignal | undefined;
  /** The approver: only it receives the prompt (`agdx.to`). Without it every agent on the topic does. */
  readonly target?: AgentIdLike | undefined;
  /** With a verifier: who may answer (defaults to the target; required without one). */
  readonly expectFrom?: ReplySignerPolicy | undefined;
  /** @deprecated Use `expectFrom`; the same as `expectFrom: expectedSigner` when `expectFrom` is not set. */
  readonly expectedSigner?: string | undefined;
  /** Overrides the client's verifier for the answer (`null` turns verification off). */
  readonly verifier?: Verifier | null | undefined;
}

const REJECTED = 'the input request was rejected';

/**
 * The verbs of `client.agdx(topic, source, conversation)`: each starts an envelope (or a chunk
 * stream) from `source` in `conversation`, published on `topic` of the client's default stream.
 */
export class AgdxSend {
  readonly #to: SendTarget;

  /** @internal Use `client.agdx(...)`. */
  constructor(to: SendTarget) {
    this.#to = to;
  }

  /** The topic records are published on (before any layout redirect). */
  get topicName(): string {
    return this.#to.topic;
  }

  /** The author. */
  get source(): AgentId {
    return this.#to.source;
  }

  /** The session. */
  get conversation(): ConversationId {
    return this.#to.conversation;
  }

  /** A command (expects a reply or an effect) with a fresh record id. */
  command(correlation: CorrelationId, body: Uint8Array): AgdxSendBuilder {
    return new AgdxSendBuilder(this.#to, 'command', this.#to.core.mint(RecordId), correlation, body);
  }

  /** A response answering `correlation`. */
  respond(correlation: CorrelationId, body: Uint8Array): AgdxSendBuilder {
    return new AgdxSendBuilder(this.#to, 'response', this.#to.core.mint(RecordId), correlation, body);
  }

  /** An event (expects nothing); `withCorrelation` ties it to a request. */
  emit(body: Uint8Array): AgdxSendBuilder {
    return new AgdxSendBuilder(this.#to, 'event', this.#to.core.mint(RecordId), undefined, body);
  }

  /** A status signal with an empty body (`task` also needs a correlation and a task state). */
  status(operation: string): AgdxSendBuilder {
    return new AgdxSendBuilder(this.#to, 'status', this.#to.core.mint(RecordId), undefined, new Uint8Array(0)).withOperation(operation);
  }

  /**
   * An error answering `correlation`; the body is the CBOR AgentErrorBody and the content type stays `cbor`.
   * @throws InvalidError for a body readers could not decode (a code outside 0..255, a message
   * that is not a string or over 1 MiB, ...): see `encodeErrorBody`.
   */
  fail(correlation: CorrelationId, error: AgentErrorBody): AgdxSendBuilder {
    return new AgdxSendBuilder(this.#to, 'error', this.#to.core.mint(RecordId), correlation, encodeErrorBody(error));
  }

  /** A chunk stream under `correlation`; `purpose` (`chat`, `reasoning`, `tool_args`) rides the opening chunk. */
  stream(correlation: CorrelationId, purpose: string): AgdxChunkWriter {
    const to = this.#to;
    return new AgdxChunkWriter(to.core, to.stream, to.topic, to.source, to.conversation, correlation, purpose);
  }

  /**
   * Asks for input: publishes `prompt` as an unsigned command with a fresh correlation, then waits
   * on `replyTopic` for the correlated response (its body is returned, claim checks followed when
   * the client has a blob store) or error (RejectedError with the error body's message). The
   * reply reader is seeded at the tail before the prompt is sent.
   * @throws InvalidError for a missing or bad timeout; TimeoutError `the AGDX reply`;
   * CancelledError `AGDX reply wait aborted`; RejectedError.
   */
  async requestInput(replyTopic: string, prompt: Uint8Array, timeoutMs: number, options: RequestInputOptions = {}): Promise<Uint8Array> {
    checkTimeoutMs(timeoutMs);
    checkText(replyTopic, 'replyTopic');
    checkBytes(prompt, 'prompt');
    checkObject(options, 'options');
    const to = this.#to;
    const core = to.core;
    const target = options.target === undefined ? undefined : toAgentId(options.target);
    const correlation = core.mint(CorrelationId);
    const command = this.command(correlation, prompt);
    if (target !== undefined) command.withTarget(target);
    const hub = core.hub(to.stream, replyTopicFor(core.layout, replyTopic, to.source.value));
    const pending = await hub.expect({
      correlation,
      conversation: to.conversation,
      requester: to.source,
      request: command.recordId,
      expectFrom: options.expectFrom ?? options.expectedSigner ?? target?.value,
      verifier: options.verifier,
      timeoutMs,
      signal: options.signal,
      timeoutMessage: 'the AGDX reply',
      cancelMessage: 'AGDX reply wait aborted',
    });
    const waitEvent = (): WaitEvent => ({ kind: 'input', requester: to.source, target, conversation: to.conversation, correlation });
    const reply = await sendAndWait(core.shared.telemetry, waitEvent, () => command.send({ signal: options.signal }), pending);
    if (reply.envelope?.kind === 'error') {
      let message = REJECTED;
      try {
        message = decodeAgentErrorBody(agentMessageBody(reply)).message ?? REJECTED;
      } catch {
        // an unreadable error body still rejects
      }
      throw new RejectedError(message, { context: { correlation: correlation.toString() } });
    }
    return core.blobStore === undefined ? agentMessageBody(reply) : resolveAgentMessageBody(reply, core.blobStore);
  }

  /** {@link AgdxSend.requestInput} addressed to one approver (the seed's `requestInputFrom`). */
  requestInputFrom(
    target: AgentIdLike,
    replyTopic: string,
    prompt: Uint8Array,
    timeoutMs: number,
    options: Omit<RequestInputOptions, 'target'> = {},
  ): Promise<Uint8Array> {
    return this.requestInput(replyTopic, prompt, timeoutMs, { ...options, target });
  }
}
