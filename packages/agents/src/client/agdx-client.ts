import {
  AGENT_OP_VERSION,
  AgentEnvelope,
  ConversationId,
  encodeEnvelope,
  InvalidError,
  validateEnvelope,
  type BlobStore,
  type UlidGenerator,
} from '@agdx/wire';
import type { LogTransport } from '@agdx/transport';
import { PLAIN_LOG_CAPABILITIES, type Capabilities } from '../capabilities/capabilities.js';
import type { Clock } from '../clock/clock.js';
import { SystemClock } from '../clock/system-clock.js';
import { PolicyBlockedError, type SkippedRecordError } from '../errors.js';
import type { ActionGovernor } from '../governor/action-governor.js';
import { checkStreamLayout, replyTopicFor, SHARED_LAYOUT, type StreamLayout } from '../layouts/stream-layout.js';
import type { AgentMessage, MessagePosition } from '../message/agent-message.js';
import type { ReplyHub, ReplyWaitOptions } from '../replies/reply-hub.js';
import type { ReplySignerPolicy } from '../replies/reply-signers.js';
import type { Verifier } from '../replies/verifier.js';
import { AgdxSendBuilder } from '../send/agdx-send-builder.js';
import { AgdxSend } from '../send/agdx-send.js';
import { OrderedAppender } from '../send/ordered-appender.js';
import { toContentType, type ContentTypeLike } from '../send/content-type.js';
import { checkInstance, checkObject, toAgentId, type AgentIdLike } from '../send/refinements.js';
import { streamScopedName } from '../layouts/stream-scoped-name.js';
import { checkLayoutReplacement, declareLayout, LAYOUT_DECLARATION_TOPIC } from '../layouts/layout-declaration.js';
import { checkBodyFits, checkPayloadFits } from '../send/payload-limit.js';
import type { Signer } from '../send/signer.js';
import { AgentTopic, BOOTSTRAP_TOPICS, HEARTBEAT_EXPIRY_MICROS, ON_FIRST_USE_TOPICS } from './agent-topic.js';
import { ensureTopicCreated, losingBootstrapError } from './bootstrap-strays.js';
import { ClientCore } from './client-core.js';
import { HeaderBlockMemo } from './header-block-memo.js';
import type { AgdxTelemetry, WaitEvent } from '../telemetry/agdx-telemetry.js';
import { sendAndWait, tracedAppend } from '../telemetry/guarded-telemetry.js';

/** Options of {@link AgdxClient.from}. */
export interface AgdxClientOptions {
  /** The default stream every send, read and bootstrap uses. */
  readonly stream?: string | undefined;
  /** Time source for deadlines, linger and wait timeouts (default {@link SystemClock}). */
  readonly clock?: Clock | undefined;
  /** Checked before every send; a deny publishes nothing. */
  readonly governor?: ActionGovernor | undefined;
  /** How the stream lays out agent work (default shared). */
  readonly layout?: StreamLayout | undefined;
  /**
   * With a verifier, correlated waits accept only replies it verifies, whose `source` is the
   * agent the signing key is enrolled for, and whose signer the wait's `expectFrom` accepts.
   */
  readonly verifier?: Verifier | undefined;
  /**
   * Told about every record a reply hub skipped (undecodable, unverified, signed by the wrong
   * agent), with its position; the waits go on. Errors thrown here are ignored.
   */
  readonly onError?: ((error: SkippedRecordError) => void) | undefined;
  /** Where claim-checked bodies are fetched from (requestInput answers, replies). */
  readonly blobStore?: BlobStore | undefined;
  /** ULID source for record, correlation and channel ids (default the process-wide `MintUlid`). */
  readonly ids?: UlidGenerator | undefined;
  /** A telemetry hook to install from the start (see {@link AgdxClient.instrument}). */
  readonly telemetry?: AgdxTelemetry | undefined;
}

/** Options of {@link AgdxClient.bootstrap}. */
export interface BootstrapOptions {
  /** Expiry of `agent.sessions` in microseconds (default: never expire). */
  readonly sessionsExpiryMicros?: bigint | undefined;
  /**
   * Replace a different layout the stream already declares on `agdx.layout` (a deliberate
   * migration: readers and agents still given the old layout fail with LayoutMismatchError from
   * then on). Default `false`: such a bootstrap is refused before it creates anything.
   */
  readonly replaceLayout?: boolean | undefined;
  /** Aborts the topic creation calls. */
  readonly signal?: AbortSignal | undefined;
}

/** What {@link AgdxClient.bootstrap} ensured. */
export interface BootstrapResult {
  /** The stream. */
  readonly stream: string;
  /** Every topic ensured, in creation order. */
  readonly topics: readonly string[];
  /** Partitions per topic. */
  readonly partitions: number;
}

/** Options of {@link AgdxClient.publish}. */
export interface PublishOptions {
  /** Stream override (default: the client's default stream). */
  readonly stream?: string | undefined;
  /** Signs the envelope (context: content type, agent version) before publishing. */
  readonly signer?: Signer | undefined;
  /** Aborts the append. */
  readonly signal?: AbortSignal | undefined;
}

/** Options of {@link AgdxClient.request}. */
export interface RequestOptions {
  /** Where the answer is expected. */
  readonly replyTopic: string;
  /** Required timeout in milliseconds (TimeoutError `reply`). */
  readonly timeoutMs: number;
  /** Aborting rejects with CancelledError `reply wait aborted`. */
  readonly signal?: AbortSignal | undefined;
  /**
   * With a verifier: who may answer (default the request's target). A request without a target
   * needs it when a verifier is in force; `() => true` accepts any enrolled agent, on purpose.
   */
  readonly expectFrom?: ReplySignerPolicy | undefined;
  /** @deprecated Use `expectFrom`; the same as `expectFrom: expectedSigner` when `expectFrom` is not set. */
  readonly expectedSigner?: string | undefined;
  /** Overrides the client's verifier for this wait (`null` turns it off). */
  readonly verifier?: Verifier | null | undefined;
}

/**
 * The root AGDX client over any {@link LogTransport} (the seeds call it `laser`): send builders,
 * chunk writers, correlated replies, human input, bootstrap and capabilities on a default stream.
 */
export class AgdxClient {
  readonly #core: ClientCore;

  private constructor(core: ClientCore) {
    this.#core = core;
  }

  /**
   * A client over `transport`.
   * @throws InvalidError for a bad layout or stream name.
   */
  static from(transport: LogTransport, options: AgdxClientOptions = {}): AgdxClient {
    if (options.stream !== undefined && (typeof options.stream !== 'string' || options.stream.length === 0)) {
      throw new InvalidError('stream must be a non-empty string');
    }
    return new AgdxClient(
      new ClientCore({
        transport,
        clock: options.clock ?? SystemClock.instance,
        stream: options.stream,
        layout: checkStreamLayout(options.layout ?? SHARED_LAYOUT),
        governor: options.governor,
        verifier: options.verifier,
        blobStore: options.blobStore,
        ids: options.ids,
        onError: checkOnError(options.onError),
        shared: { hubs: new Map(), ensured: new Set(), headerBlocks: new HeaderBlockMemo(), bootstrapPartitions: undefined, closed: false, telemetry: options.telemetry, appender: new OrderedAppender() },
      }),
    );
  }

  /** A client on the same connection whose default stream is `stream` (reply hubs are shared). */
  withDefaultStream(stream: string): AgdxClient {
    if (typeof stream !== 'string' || stream.length === 0) throw new InvalidError('stream must be a non-empty string');
    return new AgdxClient(this.#core.withStream(stream));
  }

  /** The default stream, when set. */
  get defaultStream(): string | undefined {
    return this.#core.stream;
  }

  /** The log underneath. */
  get transport(): LogTransport {
    return this.#core.transport;
  }

  /** The clock. */
  get clock(): Clock {
    return this.#core.clock;
  }

  /**
   * Scopes a managed name (key-value or memory namespace, registry, index, ...) to the default
   * stream: `stream:<stream>/<local>`; an already scoped name passes through.
   * @throws NoStreamError without a default stream; InvalidError for an empty name.
   */
  scopedName(local: string): string {
    return streamScopedName(this.#core.requireStream(), local);
  }

  /** The stream layout. */
  get layout(): StreamLayout {
    return this.#core.layout;
  }

  /** The verifier correlated waits use, when configured. */
  get verifier(): Verifier | undefined {
    return this.#core.verifier;
  }

  /** Where reply hubs report the records they skipped, when configured. */
  get onError(): ((error: SkippedRecordError) => void) | undefined {
    return this.#core.onError;
  }

  /** The blob store for claim-checked bodies, when configured. */
  get blobStore(): BlobStore | undefined {
    return this.#core.blobStore;
  }

  /**
   * The action governor every send of this client passes through, when configured. Packages built
   * on the client (sessions, bridges) read it so their own appends are governed the same way.
   */
  get governor(): ActionGovernor | undefined {
    return this.#core.governor;
  }

  /**
   * Creates the default stream and the well-known topics, idempotently: `agent.sessions`,
   * `agent.streams`, `agent.heartbeats` (records expire after one hour), `agent.memory`,
   * `agent.dlq`, `agent.audit`, `agent.workflow_journal` and the six session turn topics, plus the
   * declared per-agent topics of a topic-per-agent layout. A single-partition layout creates one
   * partition per topic. Last, it declares the client's layout on the one-partition `agdx.layout`
   * topic (an SDK extension; written only when the declaration in force differs), which readers
   * with another layout check to fail with LayoutMismatchError instead of reading nothing. A
   * stream that already declares another layout is refused before anything is created, unless
   * `replaceLayout` says to replace it; of two bootstraps racing with different layouts on an
   * undeclared stream, the one whose declaration landed second is refused after it (see
   * `declareLayout`); a topic-per-agent loser that created per-agent topics the declared layout
   * does not use names them in the error (`strayTopics`) to be deleted. `agent.control` and
   * `agent.registry` are created on first use.
   * @throws NoStreamError without a default stream; InvalidError for a bad partition count;
   * LayoutMismatchError when the stream declares another layout (or a racing bootstrap declared
   * one first) and `replaceLayout` is not set;
   * the transport's ConflictError when a topic exists with other settings (a racing bootstrap
   * with another partition count meets it at the first topic, before creating any).
   */
  async bootstrap(partitions: number, options: BootstrapOptions = {}): Promise<BootstrapResult> {
    const core = this.#core;
    const stream = core.requireStream();
    if (!Number.isSafeInteger(partitions) || partitions < 1) throw new InvalidError('bootstrap partitions must be a positive integer');
    const count = core.layout.kind === 'singlePartition' ? 1 : partitions;
    const signal = options.signal;
    const replaceLayout = options.replaceLayout === true;
    // refused before any topic of this layout is created on a stream laid out another way
    if (!replaceLayout) await checkLayoutReplacement(core.transport, stream, core.layout, signal);
    await core.transport.ensureStream(stream, { signal });
    const topics: string[] = [];
    for (const topic of BOOTSTRAP_TOPICS) {
      const messageExpiryMicros =
        topic === AgentTopic.Heartbeats ? HEARTBEAT_EXPIRY_MICROS : topic === AgentTopic.Sessions ? options.sessionsExpiryMicros : undefined;
      await core.transport.ensureTopic({ stream, topic }, { partitions: count, messageExpiryMicros }, { signal });
      topics.push(topic);
    }
    // The per-agent topics this call created: the only ones a lost race can leave over.
    const created: string[] = [];
    if (core.layout.kind === 'perAgentTopic') {
      for (const topic of new Set(core.layout.topics.values())) {
        if (topics.includes(topic)) continue;
        if (await ensureTopicCreated(core.transport, stream, topic, { partitions: count }, signal)) created.push(topic);
        topics.push(topic);
      }
    }
    // declared last, once the layout's topics exist: a reader that sees the declaration finds them
    try {
      await declareLayout(core.transport, stream, core.layout, { replaceLayout, signal });
    } catch (error) {
      throw await losingBootstrapError(error, core.transport, stream, created, signal);
    }
    topics.push(LAYOUT_DECLARATION_TOPIC);
    core.shared.bootstrapPartitions = count;
    return { stream, topics, partitions: count };
  }

  /** Creates an on-first-use topic (`agent.control`, `agent.registry`) now, idempotently. */
  async ensureOnFirstUseTopic(topic: string, options: { readonly signal?: AbortSignal } = {}): Promise<void> {
    if (!ON_FIRST_USE_TOPICS.includes(topic)) throw new InvalidError(`\`${topic}\` is not an on-first-use topic`);
    await this.#core.ensureOnFirstUse(this.#core.requireStream(), topic, options.signal);
  }

  /**
   * What this deployment serves. Over a plain log every managed feature is off; nothing is
   * inferred from versions or failed requests.
   */
  capabilities(): Capabilities {
    return PLAIN_LOG_CAPABILITIES;
  }

  /**
   * The send builders for `source` in `conversation` on `topic` of the default stream:
   * `laser.agdx(AgentTopic.Sessions, AgentId.new("planner"), conversation).command(correlation, body).send()`.
   * @throws NoStreamError without a default stream; InvalidError for an invalid source.
   */
  agdx(topic: string, source: AgentIdLike, conversation: ConversationId): AgdxSend {
    const core = this.#core;
    if (!(conversation instanceof ConversationId)) throw new InvalidError('conversation must be a ConversationId');
    return new AgdxSend({ core, stream: core.requireStream(), topic, source: toAgentId(source), conversation });
  }

  /**
   * Publishes a ready envelope: checks the kind rules, runs the governor, signs when asked,
   * writes the header block with wire's shared encoder and appends it keyed by its conversation
   * (routed by the layout). Returns the log position.
   * @throws InvalidError (also for a body or encoded envelope too large for one record, before it
   * is signed or appended); PolicyBlockedError; PublishFailedError.
   */
  async publish(topic: string, envelope: AgentEnvelope, contentType: ContentTypeLike, options: PublishOptions = {}): Promise<MessagePosition> {
    const core = this.#core;
    const stream = options.stream ?? core.requireStream();
    const ct = toContentType(contentType);
    if (!(envelope instanceof AgentEnvelope)) throw new InvalidError('`envelope` must be an AgentEnvelope', { context: { field: 'envelope' } });
    validateEnvelope(envelope);
    if (core.governor !== undefined) {
      const body = await core.govern(core.actionOf(envelope, stream, topic, options.signer !== undefined || envelope.signature !== undefined));
      if (body !== envelope.body) {
        if (envelope.signature !== undefined) throw new PolicyBlockedError('the action governor rewrote the body of an already signed envelope');
        envelope = envelope.withBody(body);
      }
    }
    // Before the signer or the encoder copies the whole body.
    checkBodyFits(envelope.body);
    if (options.signer !== undefined) {
      envelope = await options.signer.sign(envelope, { contentType: ct, agentVersion: AGENT_OP_VERSION });
      validateEnvelope(envelope);
    }
    const payload = encodeEnvelope(envelope);
    checkPayloadFits(payload);
    const signed = envelope;
    const at = await tracedAppend(core.shared.telemetry, { envelope, contentType: ct, stream, topic }, core.headersFor(envelope, ct, topic), (headers) =>
      core.shared.appender.append({ core, stream, topic, kind: signed.kind, target: signed.target, conversationKey: signed.conversation.toString(), records: [{ headers, payload }] }, options.signal),
    );
    return { stream: at.stream, topic: at.topic, partition: at.partition, offset: at.offset };
  }

  /**
   * The correlated-wait hub of a reply topic on the default stream (or `stream`). With a
   * topic-per-agent layout, pass the requester to watch its declared topic instead of the lane.
   */
  replies(topic: string, options: { readonly stream?: string; readonly requester?: AgentIdLike } = {}): ReplyHub {
    const core = this.#core;
    const requester = options.requester === undefined ? undefined : toAgentId(options.requester).value;
    return core.hub(options.stream ?? core.requireStream(), replyTopicFor(core.layout, topic, requester));
  }

  /**
   * Waits for a correlated reply on `replyTopic` of the default stream: `replies(replyTopic).wait(...)`.
   * The hub starts reading at the tail when called; register before sending the request, or use
   * {@link AgdxClient.request} / `replies(topic).expect(...)`.
   */
  async awaitReply(replyTopic: string, options: ReplyWaitOptions): Promise<AgentMessage> {
    checkObject(options, 'options');
    return this.replies(replyTopic, { requester: options.requester }).wait(options);
  }

  /**
   * Sends a request built with `client.agdx(...)` and waits for its answer: registers the wait at
   * the reply topic's tail, publishes, then resolves with the first reply that carries the
   * correlation, belongs to the session, is a response or error, is addressed to the requester
   * (or to everyone) and is not the request itself; with a verifier it must also verify, come
   * from the agent its key is enrolled for, and that agent must pass `expectFrom` (default the
   * request's target). The wait watches `replyTopic` on the request's stream (the default stream
   * of the client that built it), so a request built by `withDefaultStream(other)` is answered
   * there.
   * @throws InvalidError when the request has no correlation, was built by another client family,
   * or a verified request has neither a target nor `expectFrom`; TimeoutError; CancelledError.
   */
  async request(request: AgdxSendBuilder, options: RequestOptions): Promise<AgentMessage> {
    checkInstance(request, AgdxSendBuilder, 'request');
    checkObject(options, 'options');
    // Its appends and this client's waits would go through different logs.
    if (!request.builtWith(this.#core)) throw new InvalidError('the request was built by another client (not this one or one derived from it)', { context: { field: 'request' } });
    const correlation = request.correlation;
    if (correlation === undefined) throw new InvalidError('a request needs a correlation', { context: { field: 'correlation' } });
    // The reply comes on the stream the request goes to, which is the default stream of the
    // client that built it (say `withDefaultStream(other)`), not necessarily this one's.
    const hub = this.replies(options.replyTopic, { stream: request.stream, requester: request.source });
    // Registered synchronously while the hub's readers run: no promise and hop of its own.
    const registering = hub.register({
      correlation,
      conversation: request.conversation,
      requester: request.source,
      request: request.recordId,
      expectFrom: options.expectFrom ?? options.expectedSigner ?? request.target?.value,
      verifier: options.verifier,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
    });
    const pending = registering instanceof Promise ? await registering : registering;
    const signal = options.signal;
    return sendAndWait(
      this.#core.shared.telemetry,
      (): WaitEvent => ({ kind: 'request', requester: request.source, target: request.target, conversation: request.conversation, correlation }),
      () => request.send(signal === undefined ? undefined : { signal }),
      pending,
    );
  }

  /**
   * Installs (or with `undefined` removes) the telemetry hook every client derived from this one
   * and every agent spawned on it afterwards reports to. `@agdx/otel`'s `instrument` calls this.
   */
  instrument(telemetry: AgdxTelemetry | undefined): void {
    this.#core.shared.telemetry = telemetry;
  }

  /** The installed telemetry hook, when any. */
  get telemetry(): AgdxTelemetry | undefined {
    return this.#core.shared.telemetry;
  }

  /** Stops every reply hub (pending waits reject with CancelledError). The transport stays open. */
  async close(): Promise<void> {
    const shared = this.#core.shared;
    shared.closed = true;
    for (const topics of shared.hubs.values()) for (const hub of topics.values()) hub.close();
    shared.hubs.clear();
  }
}

function checkOnError(onError: unknown): ((error: SkippedRecordError) => void) | undefined {
  if (onError !== undefined && typeof onError !== 'function') throw new InvalidError('onError must be a function', { context: { field: 'onError' } });
  return onError as ((error: SkippedRecordError) => void) | undefined;
}
