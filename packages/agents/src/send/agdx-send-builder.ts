import {
  AGENT_OP_VERSION,
  AgentEnvelope,
  BRIDGE_HOPS_METADATA_KEY,
  ChannelId,
  ConversationId,
  CorrelationId,
  RecordId,
  bridgeHopMetadata,
  checkIn,
  ContentType,
  encodeEnvelope,
  enterBridge,
  InvalidError,
  validateEnvelope,
  type AgentId,
  type AgentKind,
  type BlobStore,
  type IdempotencyKey,
  type LogPosition,
  type MetadataValue,
  type TokenUsage,
} from '@agdx/wire';
import type { ClientCore } from '../client/client-core.js';
import type { AppendIssuer, PreparedAppend } from './append-issuer.js';
import type { MessagePosition } from '../message/agent-message.js';
import { toContentType, type ContentTypeLike } from './content-type.js';
import {
  checkBlobStore,
  checkBytes,
  checkInstance,
  checkLogPosition,
  checkMethods,
  checkObject,
  checkText,
  toAgentId,
  toIdempotencyKey,
  toMicros,
  toTaskState,
  type AgentIdLike,
  type TaskStateLike,
} from './refinements.js';
import { checkBodyFits, checkPayloadFits } from './payload-limit.js';
import type { Signer } from './signer.js';
import { endSend, sendHeaders, startSend } from '../telemetry/guarded-telemetry.js';

/** What a completed send reports. */
export interface SendReceipt {
  /** The envelope's record id. */
  readonly record: RecordId;
  /** Where it landed. */
  readonly position: MessagePosition;
  /** The envelope exactly as published (signed, claim-checked, governed). */
  readonly envelope: AgentEnvelope;
  /** The `agdx.ct` code it was published with. */
  readonly contentType: number;
}

/** Options of {@link AgdxSendBuilder.send}. */
export interface SendOptions {
  /** Aborts the append. */
  readonly signal?: AbortSignal | undefined;
}

/** Where a builder sends: fixed by `client.agdx(topic, source, conversation)`. */
export interface SendTarget {
  /** Client internals. */
  readonly core: ClientCore;
  /** Stream. */
  readonly stream: string;
  /** Topic as named by the sender (layouts may redirect). */
  readonly topic: string;
  /** Author. */
  readonly source: AgentId;
  /** Session. */
  readonly conversation: ConversationId;
}

interface ClaimCheck {
  readonly store: BlobStore;
  readonly threshold: number;
}

const SEND_ONCE = 'an AGDX send can only be performed once';

/** An append ready to go, with the envelope and content type it carries. */
interface Prepared {
  readonly append: PreparedAppend;
  readonly envelope: AgentEnvelope;
  readonly contentType: number;
}

/** Shared by every issue that needed no wait. */
const RESOLVED: Promise<void> = Promise.resolve();

/**
 * One envelope being refined before it is published. Every refinement returns the builder;
 * `send()` checks the kind rules, runs the governor, applies the claim check, signs, and appends
 * exactly once. A refinement the kind forbids fails the send with InvalidError before anything is
 * published.
 */
export class AgdxSendBuilder {
  readonly #to: SendTarget;
  readonly #kind: Exclude<AgentKind, 'chunk'>;
  #record: RecordId;
  #correlation: CorrelationId | undefined;
  #body: Uint8Array;
  #contentType: number;
  #target: AgentId | undefined;
  #cause: RecordId | undefined;
  #causeAt: LogPosition | undefined;
  #channel: ChannelId | undefined;
  #sequence: bigint | undefined;
  #idempotencyKey: IdempotencyKey | undefined;
  #deadline: bigint | undefined;
  #taskState: number | undefined;
  #operation: string | undefined;
  #tool: string | undefined;
  #usage: TokenUsage | undefined;
  #metadata: Map<string, MetadataValue> | undefined;
  #parent: ConversationId | undefined;
  #root: ConversationId | undefined;
  #last = false;
  #finishReason: string | undefined;
  #signer: Signer | undefined;
  #claimCheck: ClaimCheck | undefined;
  #sent = false;

  /** @internal Use the verbs of `client.agdx(...)`. */
  constructor(to: SendTarget, kind: Exclude<AgentKind, 'chunk'>, record: RecordId, correlation: CorrelationId | undefined, body: Uint8Array) {
    this.#to = to;
    this.#kind = kind;
    this.#record = record;
    this.#correlation = correlation === undefined ? undefined : checkInstance(correlation, CorrelationId, 'correlation');
    this.#body = checkBytes(body, 'body');
    this.#contentType = kind === 'error' ? ContentType.cbor : ContentType.raw;
  }

  /** The envelope kind. */
  get kind(): Exclude<AgentKind, 'chunk'> {
    return this.#kind;
  }

  /** The record id the envelope will carry. */
  get recordId(): RecordId {
    return this.#record;
  }

  /** The correlation, when set. */
  get correlation(): CorrelationId | undefined {
    return this.#correlation;
  }

  /** The session. */
  get conversation(): ConversationId {
    return this.#to.conversation;
  }

  /** The stream the envelope is published on (the default stream of the client that built it). */
  get stream(): string {
    return this.#to.stream;
  }

  /** @internal True when the client family of `core` built this builder (they share appends and waits). */
  builtWith(core: ClientCore): boolean {
    return this.#to.core.shared === core.shared;
  }

  /** The author. */
  get source(): AgentId {
    return this.#to.source;
  }

  /** The addressee, when set. */
  get target(): AgentId | undefined {
    return this.#target;
  }

  /** Sets the operation (status discriminator, OTel operation name). */
  withOperation(operation: string): this {
    this.#operation = checkText(operation, 'operation');
    return this;
  }

  /** Addresses the envelope to one agent (`agdx.to`). @throws InvalidError for an invalid id. */
  withTarget(target: AgentIdLike): this {
    this.#target = toAgentId(target);
    return this;
  }

  /** Sets the task state (code or name). */
  withTaskState(state: TaskStateLike): this {
    this.#taskState = toTaskState(state);
    return this;
  }

  /** Sets the correlation. */
  withCorrelation(correlation: CorrelationId): this {
    this.#correlation = checkInstance(correlation, CorrelationId, 'correlation');
    return this;
  }

  /** Names the causal parent and, optionally, its log position (which needs the cause). */
  withCause(cause: RecordId, causeAt?: LogPosition): this {
    this.#cause = checkInstance(cause, RecordId, 'cause');
    this.#causeAt = causeAt === undefined ? undefined : checkLogPosition(causeAt);
    return this;
  }

  /** Sets the business idempotency key (1..64 bytes). */
  withIdempotencyKey(key: IdempotencyKey | string): this {
    this.#idempotencyKey = toIdempotencyKey(key);
    return this;
  }

  /** Sets the drop-dead time in epoch microseconds. */
  withDeadlineMicros(deadlineMicros: bigint | number): this {
    this.#deadline = toMicros(deadlineMicros, 'deadline_micros');
    return this;
  }

  /** Sets the tool name. */
  withTool(tool: string): this {
    this.#tool = checkText(tool, 'tool');
    return this;
  }

  /** Attaches advisory token usage. */
  withUsage(usage: TokenUsage): this {
    this.#usage = checkObject<TokenUsage>(usage, 'usage');
    return this;
  }

  /** Adds (or replaces in place) one metadata entry. */
  withMetadata(key: string, value: MetadataValue): this {
    (this.#metadata ??= new Map()).set(checkText(key, 'metadata key'), value);
    return this;
  }

  /** Sets the parent and, optionally, root conversation (ancestry of a child session). */
  withParent(parent: ConversationId, root?: ConversationId): this {
    this.#parent = checkInstance(parent, ConversationId, 'parent');
    this.#root = root === undefined ? undefined : checkInstance(root, ConversationId, 'root');
    return this;
  }

  /**
   * Stamps `bridge_hops` with a path already taken through bridges (oldest first).
   * @throws InvalidError for an empty id or an id listed twice (a loop).
   */
  withBridgeHops(hops: readonly string[]): this {
    if (!Array.isArray(hops)) throw new InvalidError('`bridge_hops` must be an array of bridge ids', { context: { field: 'bridge_hops' } });
    let path: readonly string[] = [];
    for (const hop of hops) path = enterBridge(hop, path);
    return this.withMetadata(BRIDGE_HOPS_METADATA_KEY, bridgeHopMetadata(path) as MetadataValue);
  }

  /**
   * Enters a bridge: stamps `bridge_hops` = `previous` followed by `bridge`.
   * @throws InvalidError (`bridge loop detected at ...`) when `previous` already holds `bridge`.
   */
  enterBridge(bridge: string, previous: readonly string[] = []): this {
    return this.withMetadata(BRIDGE_HOPS_METADATA_KEY, bridgeHopMetadata(enterBridge(bridge, previous)) as MetadataValue);
  }

  /** Sets the content type (`agdx.ct`). An error envelope refuses anything but `cbor` at send. */
  contentType(contentType: ContentTypeLike): this {
    this.#contentType = toContentType(contentType);
    return this;
  }

  /** Replaces the body. */
  body(body: Uint8Array): this {
    this.#body = checkBytes(body, 'body');
    return this;
  }

  /** Marks the envelope terminal (`last = true`). */
  last(): this {
    this.#last = true;
    return this;
  }

  /** Sets why a response or stream ended. */
  withFinishReason(reason: string): this {
    this.#finishReason = checkText(reason, 'finish_reason');
    return this;
  }

  /** Replaces the minted record id (a retried lifecycle record keeps its id). */
  withRecord(record: RecordId): this {
    this.#record = checkInstance(record, RecordId, 'record');
    return this;
  }

  /** Sets the chunk stream an error ends (`channel` and the next `sequence`). */
  withChannel(channel: ChannelId, sequence?: bigint | number): this {
    this.#channel = checkInstance(channel, ChannelId, 'channel');
    this.#sequence = sequence === undefined ? undefined : toMicros(sequence, 'sequence');
    return this;
  }

  /** Signs the envelope at send with context {content type, agent version}. */
  signedBy(signer: Signer): this {
    this.#signer = checkMethods<Signer>(signer, 'signer', ['sign']);
    return this;
  }

  /**
   * Claim check: at send, a body of at least `threshold` bytes goes to `store` and the record
   * carries a BodyRef with content type `ref`.
   */
  claimCheck(store: BlobStore, threshold: number): this {
    if (!Number.isSafeInteger(threshold) || threshold < 0) {
      throw new InvalidError(`claim-check threshold must be a non-negative integer, got ${threshold}`);
    }
    this.#claimCheck = { store: checkBlobStore(store), threshold };
    return this;
  }

  /** The envelope as currently refined (not yet governed, claim-checked or signed). */
  envelope(): AgentEnvelope {
    const to = this.#to;
    return AgentEnvelope.fromFields({
      kind: this.#kind,
      record: this.#record,
      conversation: to.conversation,
      parent: this.#parent,
      root: this.#root,
      source: to.source,
      target: this.#target,
      cause: this.#cause,
      causeAt: this.#causeAt,
      correlation: this.#correlation,
      channel: this.#channel,
      idempotencyKey: this.#idempotencyKey,
      deadlineMicros: this.#deadline,
      sequence: this.#sequence,
      last: this.#last,
      finishReason: this.#finishReason,
      taskState: this.#taskState,
      operation: this.#operation,
      tool: this.#tool,
      usage: this.#usage,
      metadata: this.#metadata,
      body: this.#body,
    });
  }

  /**
   * Publishes the envelope and returns its record id.
   * @throws InvalidError for a rule violation, a body too large for one record (checked before it
   * is encoded or signed; claim-check larger bodies) or a second send (nothing published);
   * PolicyBlockedError when the governor denies; PublishFailedError when the append fails.
   */
  async send(options?: SendOptions): Promise<RecordId> {
    // No receipt is built for a caller that wants only the id. Without a governor, claim check
    // or signer the append is prepared synchronously (no promise to await).
    const pending = this.#prepare();
    await this.#publish(pending instanceof Promise ? await pending : pending, options?.signal);
    return this.#record;
  }

  /** Like {@link AgdxSendBuilder.send}, also reporting the log position and the published envelope. */
  async sendReceipt(options: SendOptions = {}): Promise<SendReceipt> {
    const prepared = await this.#prepare();
    const at = await this.#publish(prepared, options.signal);
    return { record: this.#record, position: { stream: at.stream, topic: at.topic, partition: at.partition, offset: at.offset }, envelope: prepared.envelope, contentType: prepared.contentType };
  }

  /** Appends a prepared envelope and reports the acknowledgment (or failure) to its span. */
  #publish(prepared: Prepared, signal: AbortSignal | undefined): Promise<MessagePosition> {
    const { append } = prepared;
    const acknowledged = append.acknowledged;
    let appended: Promise<MessagePosition>;
    try {
      appended = this.#to.core.shared.appender.append(append, signal);
    } catch (error) {
      appended = Promise.reject(error);
    }
    // Without a span to end (no telemetry hook) the appender's promise is the send's: no async
    // frame of its own on every send.
    if (acknowledged === undefined) return appended;
    return appended.then(
      (at) => {
        acknowledged(at);
        return at;
      },
      (error: unknown) => {
        acknowledged(undefined, error);
        throw error;
      },
    );
  }

  /**
   * @internal The runtime's pipelined send: everything {@link AgdxSendBuilder.send} checks,
   * then the append is handed to `issuer`, which keeps it in order and tracks its
   * acknowledgment; resolves once it is issued.
   * @throws InvalidError, PolicyBlockedError as `send()` does (nothing is issued).
   */
  sendVia(issuer: AppendIssuer): Promise<RecordId> {
    return this.issueVia(issuer).then(() => this.#record);
  }

  /**
   * @internal {@link AgdxSendBuilder.sendVia} resolving with nothing, for the handler context:
   * without a governor, claim check or signer no async frame of its own, and only the issuer's
   * own wait (a full append window) is awaited. Every failure is a rejection, as from `send()`.
   */
  issueVia(issuer: AppendIssuer): Promise<void> {
    try {
      const pending = this.#prepare();
      if (pending instanceof Promise) return pending.then((prepared) => issuer.issue(prepared.append));
      return issuer.issue(pending.append) ?? RESOLVED;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Validates, governs, claim-checks, signs and encodes: the append, ready to go. Synchronous
   * (throwing) when there is no governor, claim check or signer to await, else a promise.
   */
  #prepare(): Prepared | Promise<Prepared> {
    if (this.#sent) throw new InvalidError(SEND_ONCE);
    this.#sent = true;
    const contentType = this.#contentType;
    if (this.#kind === 'error' && contentType !== ContentType.cbor) {
      throw new InvalidError('an error envelope carries a CBOR AgentErrorBody and cannot be relabelled with another content type', {
        context: { field: 'content_type', contentType },
      });
    }
    const envelope = this.envelope();
    if (this.#to.core.governor !== undefined || this.#signer !== undefined || this.#claimCheck !== undefined) return this.#transformed(envelope, contentType);
    return this.#encoded(envelope, contentType);
  }

  /** Governs, claim-checks and signs `envelope`, then encodes it. */
  async #transformed(refined: AgentEnvelope, refinedContentType: number): Promise<Prepared> {
    const to = this.#to;
    const core = to.core;
    const signer = this.#signer;
    const claim = this.#claimCheck;
    let envelope = refined;
    let contentType = refinedContentType;
    // Check the rules before the governor, the blob store or the signer see anything.
    validateEnvelope(envelope);
    if (core.governor !== undefined) {
      const body = await core.govern(core.actionOf(envelope, to.stream, to.topic, signer !== undefined));
      if (body !== envelope.body) envelope = envelope.withBody(body);
    }
    if (claim !== undefined) {
      const checked = await checkIn(claim.store, claim.threshold, envelope.body);
      if (checked.stored) {
        envelope = envelope.withBody(checked.payload);
        contentType = checked.contentType ?? contentType;
      }
    }
    // Before the signer encodes the whole body to sign it.
    checkBodyFits(envelope.body);
    if (signer !== undefined) envelope = await signer.sign(envelope, { contentType, agentVersion: AGENT_OP_VERSION });
    return this.#encoded(envelope, contentType);
  }

  /** Validates the published form (once more after any change) and encodes it into the append. */
  #encoded(envelope: AgentEnvelope, contentType: number): Prepared {
    const to = this.#to;
    const core = to.core;
    validateEnvelope(envelope);
    checkBodyFits(envelope.body);
    const payload = encodeEnvelope(envelope);
    checkPayloadFits(payload);
    const headers = core.headersFor(envelope, contentType, to.topic);
    // A send span starts here so its trace context rides in the record's headers; it ends when
    // the append is acknowledged, by whichever path issues it.
    const telemetry = core.shared.telemetry;
    const span = telemetry === undefined ? undefined : startSend(telemetry, { envelope, contentType, stream: to.stream, topic: to.topic });
    const append: PreparedAppend = {
      core,
      stream: to.stream,
      topic: to.topic,
      kind: envelope.kind,
      target: envelope.target,
      conversationKey: envelope.conversation.toString(),
      records: [{ headers: sendHeaders(span, headers), payload }],
      acknowledged: span === undefined ? undefined : (at, error) => endSend(span, at, error),
    };
    return { append, envelope, contentType };
  }
}
