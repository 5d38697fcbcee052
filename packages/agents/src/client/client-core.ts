import {
  AgdxError,
  AgentId,
  InvalidError,
  MintUlid,
  type AgentEnvelope,
  type BlobStore,
  type HeaderBlockFields,
  type MachineId,
  type MachineIdClass,
  type RecordHeaders,
  type UlidGenerator,
} from '@agdx/wire';
import { type AppendRecord, type AppendResult, type LogTransport } from '@agdx/transport';
import type { Clock } from '../clock/clock.js';
import { NoStreamError, PolicyBlockedError, PublishFailedError, type SkippedRecordError } from '../errors.js';
import type { ActionGovernor, GovernedAction } from '../governor/action-governor.js';
import { routeRecord, type StreamLayout } from '../layouts/stream-layout.js';
import type { MessagePosition } from '../message/agent-message.js';
import { ReplyHub } from '../replies/reply-hub.js';
import type { OrderedAppender } from '../send/ordered-appender.js';
import type { Verifier } from '../replies/verifier.js';
import type { AgdxTelemetry } from '../telemetry/agdx-telemetry.js';
import { ON_FIRST_USE_TOPICS } from './agent-topic.js';
import type { HeaderBlockMemo } from './header-block-memo.js';

/** State every client derived from one `AgdxClient.from` shares (hubs, created topics). */
export interface SharedClientState {
  /**
   * Reply hubs by stream, then topic: looked up per request with the names the caller holds,
   * where one joined key was a fresh string to build and hash on every request. Not swept: there
   * is one per reply topic (never per conversation or request), an idle hub stops its readers and
   * timers and keeps only its names, and `replies(topic)` hands hubs out, so a second hub for a
   * topic would split one topic's waits over two sets of readers.
   */
  readonly hubs: Map<string, Map<string, ReplyHub>>;
  /** On-first-use topics already ensured, by `stream\u0000topic` (two per stream at most). */
  readonly ensured: Set<string>;
  /** Partition count of the last bootstrap (used for on-first-use topics). */
  bootstrapPartitions: number | undefined;
  /** Memoised header blocks (see {@link ClientCore.headersFor}). */
  readonly headerBlocks: HeaderBlockMemo;
  /** Set by close(). */
  closed: boolean;
  /** The installed telemetry hook (`AgdxClient.instrument`), shared by every derived client. */
  telemetry: AgdxTelemetry | undefined;
  /**
   * Every send of these clients and of the agents spawned on them goes through this one appender,
   * so concurrent sends to one place leave in call order, merged while an append is in flight.
   */
  readonly appender: OrderedAppender;
}

/** Where a batch landed. */
export interface BatchPosition extends MessagePosition {
  /** Number of records in the batch (offsets are contiguous from `offset`). */
  readonly count: number;
}

const RETRYABLE_TRANSPORT_KINDS: ReadonlySet<string> = new Set(['timeout', 'transport']);

/**
 * The client internals the builders, chunk writers and reply hubs work through. Not exported from
 * the package: users hold an `AgdxClient`.
 */
export class ClientCore {
  readonly transport: LogTransport;
  readonly clock: Clock;
  readonly stream: string | undefined;
  readonly layout: StreamLayout;
  readonly governor: ActionGovernor | undefined;
  readonly verifier: Verifier | undefined;
  readonly blobStore: BlobStore | undefined;
  readonly ids: UlidGenerator | undefined;
  readonly onError: ((error: SkippedRecordError) => void) | undefined;
  readonly shared: SharedClientState;

  constructor(init: {
    transport: LogTransport;
    clock: Clock;
    stream: string | undefined;
    layout: StreamLayout;
    governor: ActionGovernor | undefined;
    verifier: Verifier | undefined;
    blobStore: BlobStore | undefined;
    ids: UlidGenerator | undefined;
    onError: ((error: SkippedRecordError) => void) | undefined;
    shared: SharedClientState;
  }) {
    this.transport = init.transport;
    this.clock = init.clock;
    this.stream = init.stream;
    this.layout = init.layout;
    this.governor = init.governor;
    this.verifier = init.verifier;
    this.blobStore = init.blobStore;
    this.ids = init.ids;
    this.onError = init.onError;
    this.shared = init.shared;
  }

  /** A copy pointing at another default stream, sharing hubs and topic bookkeeping. */
  withStream(stream: string): ClientCore {
    return new ClientCore({ ...this, stream });
  }

  /** The default stream, or NoStreamError. */
  requireStream(): string {
    if (this.stream === undefined) throw new NoStreamError();
    return this.stream;
  }

  /** The shared reply hub of (stream, topic), created on first use. */
  hub(stream: string, topic: string): ReplyHub {
    let topics = this.shared.hubs.get(stream);
    if (topics === undefined) this.shared.hubs.set(stream, (topics = new Map()));
    let hub = topics.get(topic);
    if (hub === undefined) topics.set(topic, (hub = new ReplyHub(this, stream, topic)));
    return hub;
  }

  /**
   * The seed header block of an envelope (or of a chunk stream's shared fields), written by wire's
   * shared encoder, sealed and memoised: the block is a pure function of the content type, the
   * topic, the author, the session, the addressee and the ancestry, so a cached block is
   * byte-identical to a fresh one. Blocks are sealed, so appends share them without copying.
   */
  headersFor(envelope: HeaderBlockFields, contentType: number, topic: string): RecordHeaders {
    return this.shared.headerBlocks.get(envelope, contentType, topic);
  }


  /** A fresh ULID-valued id from the injected generator, else the process-wide `MintUlid`. */
  mint<T extends MachineId>(cls: MachineIdClass<T>): T {
    if (this.ids === undefined) return MintUlid.mint(cls);
    return new cls(this.ids.next());
  }

  /**
   * Runs the governor (when configured) on an action. Returns the body to send: the original, or
   * the governor's rewrite.
   * @throws PolicyBlockedError on deny; nothing has been published.
   */
  async govern(action: GovernedAction): Promise<Uint8Array> {
    const governor = this.governor;
    if (governor === undefined) return action.payload;
    const verdict = await governor.check(action);
    if (verdict.kind === 'allow') return action.payload;
    if (verdict.kind === 'rewrite') {
      if (!(verdict.body instanceof Uint8Array)) throw new InvalidError('governor rewrite must carry a Uint8Array body');
      return verdict.body;
    }
    throw new PolicyBlockedError(verdict.reason ?? `the action governor denied this ${action.kind}`, {
      context: { kind: action.kind, topic: action.topic, source: action.source },
    });
  }

  /** Builds the governed action of an envelope about to be sent. */
  actionOf(envelope: AgentEnvelope, stream: string, topic: string, signed: boolean): GovernedAction {
    const meta = envelope.metadata;
    const text = (key: string): string | undefined => {
      const v = meta?.get(key);
      return typeof v === 'string' ? v : undefined;
    };
    return {
      kind: envelope.kind === 'chunk' ? 'send' : envelope.kind,
      stream,
      topic,
      source: envelope.source.value,
      target: envelope.target?.value,
      conversation: envelope.conversation.toString(),
      correlation: envelope.correlation?.toString(),
      operation: envelope.operation,
      tool: envelope.tool,
      onBehalfOf: text('on_behalf_of'),
      purpose: text('purpose'),
      dataClassification: text('data_classification'),
      payload: envelope.body,
      signed,
    };
  }

  /**
   * Appends one batch (one transport call) routed by the layout. On-first-use topics
   * (`agent.control`, `agent.registry`) are created when the first append finds them missing.
   * Every payload must be a fresh encoding nobody else holds: they are handed to the transport
   * as immutable, so an embedded log keeps them without a copy.
   * @throws PublishFailedError wrapping the transport's error.
   */
  append(
    stream: string,
    topic: string,
    kind: AgentEnvelope['kind'] | 'plain',
    target: AgentId | undefined,
    conversationKey: string,
    records: readonly AppendRecord[],
    signal?: AbortSignal,
  ): Promise<BatchPosition> {
    // Not an async function: every send passes here, and the transport's promise with one
    // continuation costs less than a frame and an await. Every failure is a rejection.
    let route: ReturnType<typeof routeRecord>;
    try {
      route = routeRecord(this.layout, topic, kind, target?.value, conversationKey);
    } catch (error) {
      return Promise.reject(error);
    }
    const routed = route.topic;
    let appended: Promise<AppendResult>;
    try {
      appended = this.transport.append({ stream, topic: routed, records, routing: route.routing, signal, payloadsImmutable: true });
    } catch (error) {
      // A transport that throws instead of rejecting is handled as if it had rejected.
      appended = Promise.reject(error);
    }
    return appended.then(
      (result) => ({ stream, topic: routed, partition: result.partition, offset: result.baseOffset, count: result.count }),
      (error: unknown) => this.#appendFailed(error, stream, topic, kind, target, conversationKey, records, signal, routed),
    );
  }

  /** An append the transport refused: an on-first-use topic is created and the append tried again, anything else is wrapped. */
  async #appendFailed(
    error: unknown,
    stream: string,
    topic: string,
    kind: AgentEnvelope['kind'] | 'plain',
    target: AgentId | undefined,
    conversationKey: string,
    records: readonly AppendRecord[],
    signal: AbortSignal | undefined,
    routed: string,
  ): Promise<BatchPosition> {
    if (AgdxError.is(error, 'not-found') && ON_FIRST_USE_TOPICS.includes(routed) && !this.shared.ensured.has(`${stream}\u0000${routed}`)) {
      await this.ensureOnFirstUse(stream, routed, signal);
      return this.append(stream, topic, kind, target, conversationKey, records, signal);
    }
    throw wrapPublishError(error, stream, routed);
  }

  /** Creates an on-first-use topic with the bootstrap's partition count (1 before any bootstrap). */
  async ensureOnFirstUse(stream: string, topic: string, signal?: AbortSignal): Promise<void> {
    const partitions = this.layout.kind === 'singlePartition' ? 1 : (this.shared.bootstrapPartitions ?? 1);
    try {
      await this.transport.ensureTopic({ stream, topic }, { partitions }, { signal });
    } catch (error) {
      // Another writer may have created it with its own partition count: that topic is fine to use.
      if (!AgdxError.is(error, 'conflict')) throw wrapPublishError(error, stream, topic);
    }
    this.shared.ensured.add(`${stream}\u0000${topic}`);
  }
}

function wrapPublishError(error: unknown, stream: string, topic: string): AgdxError {
  if (AgdxError.is(error, 'cancelled')) return error;
  const kind = AgdxError.is(error) ? error.kind : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return new PublishFailedError(`publishing to ${stream}/${topic} failed: ${message}`, {
    cause: error,
    context: { stream, topic },
    retryable: kind !== undefined && RETRYABLE_TRANSPORT_KINDS.has(kind),
  });
}
