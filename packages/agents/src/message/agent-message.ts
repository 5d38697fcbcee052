import {
  AgentId,
  CONTENT_TYPE_REF,
  ConversationId,
  readEnvelopeRecord,
  resolveBody,
  type AgentEnvelope,
  type BlobStore,
  type RecordHeaders,
} from '@agdx/wire';
import type { LogRecord } from '@agdx/transport';
import type { VerifiedPrincipal } from '../replies/verifier.js';

/** Where a record lives: stream and topic by name, partition, offset. */
export interface MessagePosition {
  /** Stream name. */
  readonly stream: string;
  /** Topic name. */
  readonly topic: string;
  /** 0-based partition id. */
  readonly partition: number;
  /** Offset in the partition. */
  readonly offset: bigint;
}

/** An agent id as provenance carries it: a wire `AgentId` (which answers the seed's `asStr()`). */
export type ProvenanceAgent = AgentId;

/** Advisory token usage on a received message; every count is optional. */
export interface LlmUsage {
  /** Input (prompt) tokens. */
  readonly inputTokens?: bigint | undefined;
  /** Output tokens. */
  readonly outputTokens?: bigint | undefined;
  /** Reasoning tokens inside the output. */
  readonly reasoningOutputTokens?: bigint | undefined;
  /** Input tokens served from a prompt cache. */
  readonly cacheReadInputTokens?: bigint | undefined;
  /** Input tokens written into a prompt cache. */
  readonly cacheCreationInputTokens?: bigint | undefined;
  /** Cost in millionths of the deployment currency. */
  readonly costMicros?: bigint | undefined;
  /** Cost in USD from a plain record's `agdx.cost` header. */
  readonly costUsd?: number | undefined;
}

/** Routing and accounting fields of a received message (claims unless the envelope verified). */
export interface AgentProvenance {
  /** The session. */
  readonly conversation: ConversationId;
  /** Parent conversation. */
  readonly parent?: ConversationId | undefined;
  /** Root conversation. */
  readonly root?: ConversationId | undefined;
  /** The sender (absent when it is not a valid SDK agent id, for example 256 bytes). */
  readonly agent?: ProvenanceAgent | undefined;
  /** The addressee. */
  readonly target?: ProvenanceAgent | undefined;
  /** The correlation: Crockford text for envelopes, free text (`agdx.corr`) for plain records. */
  readonly correlation?: string | undefined;
  /** Business idempotency key. */
  readonly idempotencyKey?: string | undefined;
  /** Drop-dead time, epoch microseconds. */
  readonly deadlineMicros?: bigint | undefined;
  /** Causal parent as `<partition>:<offset>` (plain records). */
  readonly cause?: string | undefined;
  /** Fencing token (`agdx.fence` metadata or header). */
  readonly fence?: bigint | undefined;
  /** Advisory usage. */
  readonly usage?: LlmUsage | undefined;
}

/** What a handler (or a reply wait) receives. */
export interface AgentMessage {
  /** The record's log position. */
  readonly id: MessagePosition;
  /** When the broker stored it, epoch microseconds. */
  readonly timestampMicros: bigint;
  /** The record headers as read. */
  readonly headers: RecordHeaders;
  /** The record payload as read (the encoded envelope for an AGDX record). */
  readonly payload: Uint8Array;
  /** The decoded, validated envelope; undefined for a plain record. */
  readonly envelope: AgentEnvelope | undefined;
  /** The `agdx.ct` code, when present. */
  readonly contentType: number | undefined;
  /** Routing and accounting fields. */
  readonly provenance: AgentProvenance;
  /** Who signed it, when a verifier checked it. */
  readonly verifiedPrincipal?: VerifiedPrincipal | undefined;
}

/** Options of {@link readAgentMessage}. */
export interface ReadAgentMessageOptions {
  /** `must_understand` bits this reader implements (default none: any set bit is refused). */
  readonly understoodFeatures?: bigint | undefined;
}

function asProvenanceAgent(text: string | undefined): ProvenanceAgent | undefined {
  if (text === undefined) return undefined;
  return AgentId.tryParse(text);
}

type WireProvenance = ReturnType<typeof readEnvelopeRecord>['provenance'];

// Handlers and waits read provenance far less often than streams are reassembled, so the agent
// ids are built on first access rather than for every record.
class ReceivedProvenance implements AgentProvenance {
  readonly conversation: ConversationId;
  readonly parent: ConversationId | undefined;
  readonly root: ConversationId | undefined;
  readonly correlation: string | undefined;
  readonly idempotencyKey: string | undefined;
  readonly deadlineMicros: bigint | undefined;
  readonly cause: string | undefined;
  readonly fence: bigint | undefined;
  readonly usage: LlmUsage | undefined;
  readonly #agentText: string | undefined;
  readonly #targetText: string | undefined;
  #agent: ProvenanceAgent | null | undefined;
  #target: ProvenanceAgent | null | undefined;

  constructor(p: WireProvenance, usage: LlmUsage | undefined) {
    this.conversation = p.conversation;
    this.parent = p.parent;
    this.root = p.root;
    this.correlation = p.correlation;
    this.idempotencyKey = p.idempotencyKey;
    this.deadlineMicros = p.deadlineMicros;
    this.cause = p.cause;
    this.fence = p.fence;
    this.usage = usage;
    this.#agentText = p.agent;
    this.#targetText = p.target;
  }

  get agent(): ProvenanceAgent | undefined {
    if (this.#agent === undefined) this.#agent = asProvenanceAgent(this.#agentText) ?? null;
    return this.#agent ?? undefined;
  }

  get target(): ProvenanceAgent | undefined {
    if (this.#target === undefined) this.#target = asProvenanceAgent(this.#targetText) ?? null;
    return this.#target ?? undefined;
  }

  toJSON(): Record<string, unknown> {
    return {
      conversation: this.conversation,
      parent: this.parent,
      root: this.root,
      agent: this.agent,
      target: this.target,
      correlation: this.correlation,
      idempotencyKey: this.idempotencyKey,
      deadlineMicros: this.deadlineMicros?.toString(),
      cause: this.cause,
      fence: this.fence?.toString(),
    };
  }
}

/**
 * Decodes a record read from `address` into an {@link AgentMessage} by the receive rule (an
 * envelope record iff it carries `agdx.av`; otherwise provenance headers).
 * @throws CodecError `failed to decode agent message` (with the reason as `cause`) for anything
 * undecodable, invalid, or requiring a feature this reader does not understand, so a consumer can
 * dead-letter the original bytes.
 */
export function readAgentMessage(
  record: LogRecord,
  address: { readonly stream: string; readonly topic: string },
  options: ReadAgentMessageOptions = {},
): AgentMessage {
  const received = readEnvelopeRecord(record.headers, record.payload, options.understoodFeatures ?? 0n);
  const p = received.provenance;
  let usage: LlmUsage | undefined;
  let envelope: AgentEnvelope | undefined;
  if (received.kind === 'envelope') {
    envelope = received.envelope;
    usage = envelope.usage;
  } else if (p.usage !== undefined) {
    usage = p.usage;
  }
  const provenance: AgentProvenance = new ReceivedProvenance(p, usage);
  return {
    id: { stream: address.stream, topic: address.topic, partition: record.partition, offset: record.offset },
    timestampMicros: record.timestampMicros,
    headers: record.headers,
    payload: record.payload,
    envelope,
    contentType: received.contentType,
    provenance,
  };
}

/** The message body: the envelope body for an AGDX record, the payload for a plain one. */
export function agentMessageBody(message: AgentMessage): Uint8Array {
  return message.envelope !== undefined ? message.envelope.body : message.payload;
}

/**
 * The message body with claim checks followed: when the content type is `ref`, fetches the
 * stored bytes and checks their size, then their SHA-256, before returning them; otherwise the
 * body unchanged.
 * @throws IntegrityError on a size or digest mismatch; BlobNotFoundError for a missing blob;
 * CodecError for a malformed BodyRef.
 */
export async function resolveAgentMessageBody(message: AgentMessage, store: BlobStore): Promise<Uint8Array> {
  const body = agentMessageBody(message);
  if (message.contentType !== CONTENT_TYPE_REF) return body;
  return resolveBody(store, body);
}

/** The seed's name for {@link resolveAgentMessageBody}. */
export const agentMessageResolveBody: (message: AgentMessage, store: BlobStore) => Promise<Uint8Array> = resolveAgentMessageBody;

