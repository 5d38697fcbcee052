import type { AgentKind } from '../dictionaries/agent-kind.js';
import type { AgentId } from '../ids/agent-id.js';
import type { IdempotencyKey } from '../ids/idempotency-key.js';
import type { LogPosition } from '../ids/log-position.js';
import type { ChannelId, ConversationId, CorrelationId, RecordId } from '../ids/machine-id.js';
import type { TokenUsage } from '../usage/token-usage.js';
import { decodeEnvelope } from '../codec/envelope-decoder.js';
import { encodeEnvelope, encodeEnvelopeInto } from '../codec/envelope-encoder.js';
import type { Metadata, MetadataValue } from './metadata.js';
import type { Signature } from './signature.js';
import { validateDecodedEnvelope, validateEnvelope } from './validate.js';

const EMPTY: Uint8Array = new Uint8Array(0);

/**
 * Every field of an envelope, as plain data. Optional fields are absent (or `undefined`) when not set;
 * `last`, `mustUnderstand` and `body` default to `false`, `0n` and empty.
 */
export interface EnvelopeFields {
  /** Envelope kind. */
  readonly kind: AgentKind;
  /** Producer-assigned record id (required on every kind except chunk). */
  readonly record?: RecordId | undefined;
  /** Conversation (also the partition key). */
  readonly conversation: ConversationId;
  /** Parent conversation (seed field). */
  readonly parent?: ConversationId | undefined;
  /** Root conversation; requires `parent` (seed field). */
  readonly root?: ConversationId | undefined;
  /** Authoring agent. */
  readonly source: AgentId;
  /** Addressed agent within a shared topic. */
  readonly target?: AgentId | undefined;
  /** Causal parent's record id. */
  readonly cause?: RecordId | undefined;
  /** Causal parent's log position. */
  readonly causeAt?: LogPosition | undefined;
  /** Request/reply pairing. */
  readonly correlation?: CorrelationId | undefined;
  /** Chunk stream. */
  readonly channel?: ChannelId | undefined;
  /** Business idempotency key. */
  readonly idempotencyKey?: IdempotencyKey | undefined;
  /** Drop-dead time, epoch microseconds (u64). */
  readonly deadlineMicros?: bigint | undefined;
  /** Chunk order within the channel (u64). */
  readonly sequence?: bigint | undefined;
  /** Terminal flag. */
  readonly last?: boolean | undefined;
  /** Why a stream or response ended. */
  readonly finishReason?: string | undefined;
  /** Task state code (u8; unknown codes kept). */
  readonly taskState?: number | undefined;
  /** Operation name (status discriminator, chunk purpose, OTel operation). */
  readonly operation?: string | undefined;
  /** Tool name. */
  readonly tool?: string | undefined;
  /** Token accounting. */
  readonly usage?: TokenUsage | undefined;
  /** Metadata (insertion order is wire order). */
  readonly metadata?: Metadata | undefined;
  /** Must-understand feature bits (u64). */
  readonly mustUnderstand?: bigint | undefined;
  /** Content bytes. */
  readonly body?: Uint8Array | undefined;
  /** Detached signature. */
  readonly signature?: Signature | undefined;
}

/** The envelope constructor's parameters, in its order (see the constructor). */
type EnvelopeParameters = [
  kind: AgentKind,
  record: RecordId | undefined,
  conversation: ConversationId,
  parent: ConversationId | undefined,
  root: ConversationId | undefined,
  source: AgentId,
  target: AgentId | undefined,
  cause: RecordId | undefined,
  causeAt: LogPosition | undefined,
  correlation: CorrelationId | undefined,
  channel: ChannelId | undefined,
  idempotencyKey: IdempotencyKey | undefined,
  deadlineMicros: bigint | undefined,
  sequence: bigint | undefined,
  last: boolean | undefined,
  finishReason: string | undefined,
  taskState: number | undefined,
  operation: string | undefined,
  tool: string | undefined,
  usage: TokenUsage | undefined,
  metadata: Metadata | undefined,
  mustUnderstand: bigint | undefined,
  body: Uint8Array | undefined,
  signature: Signature | undefined,
];

let assemble: (...fields: EnvelopeParameters) => AgentEnvelope;

/**
 * Builds an envelope from its fields given one by one, in the order of {@link EnvelopeFields},
 * without validation: the decoder's path, which holds every field in a local and would otherwise
 * fill a fields object only for the constructor to read it back. Not part of the public API.
 * @internal
 */
export const assembleEnvelope: (...fields: EnvelopeParameters) => AgentEnvelope = (
  kind, record, conversation, parent, root, source, target, cause, causeAt, correlation, channel,
  idempotencyKey, deadlineMicros, sequence, last, finishReason, taskState, operation, tool, usage, metadata,
  mustUnderstand, body, signature,
) => assemble(
  kind, record, conversation, parent, root, source, target, cause, causeAt, correlation, channel,
  idempotencyKey, deadlineMicros, sequence, last, finishReason, taskState, operation, tool, usage, metadata,
  mustUnderstand, body, signature,
);

/**
 * The AGDX envelope: one CBOR named-field record per agent message.
 *
 * Immutable: every `with…` refinement returns a new envelope. Byte fields (`body`, signature bytes)
 * are held by reference for speed; do not mutate arrays after handing them over.
 */
export class AgentEnvelope {
  /** Envelope kind. */
  readonly kind: AgentKind;
  /** Producer-assigned record id. */
  readonly record: RecordId | undefined;
  /** Conversation (also the partition key). */
  readonly conversation: ConversationId;
  /** Parent conversation. */
  readonly parent: ConversationId | undefined;
  /** Root conversation. */
  readonly root: ConversationId | undefined;
  /** Authoring agent. */
  readonly source: AgentId;
  /** Addressed agent. */
  readonly target: AgentId | undefined;
  /** Causal parent's record id. */
  readonly cause: RecordId | undefined;
  /** Causal parent's log position. */
  readonly causeAt: LogPosition | undefined;
  /** Request/reply pairing. */
  readonly correlation: CorrelationId | undefined;
  /** Chunk stream. */
  readonly channel: ChannelId | undefined;
  /** Business idempotency key. */
  readonly idempotencyKey: IdempotencyKey | undefined;
  /** Drop-dead time, epoch microseconds. */
  readonly deadlineMicros: bigint | undefined;
  /** Chunk order. */
  readonly sequence: bigint | undefined;
  /** Terminal flag. */
  readonly last: boolean;
  /** Why a stream or response ended. */
  readonly finishReason: string | undefined;
  /** Task state code. */
  readonly taskState: number | undefined;
  /** Operation name. */
  readonly operation: string | undefined;
  /** Tool name. */
  readonly tool: string | undefined;
  /** Token accounting. */
  readonly usage: TokenUsage | undefined;
  /** Metadata. */
  readonly metadata: Metadata | undefined;
  /** Must-understand feature bits. */
  readonly mustUnderstand: bigint;
  /** Content bytes (empty when absent). */
  readonly body: Uint8Array;
  /** Detached signature. */
  readonly signature: Signature | undefined;

  // Positional rather than a fields object: the decoder builds one envelope per record from its
  // locals, and reading 24 properties back out of an object cost it a store and a load per field,
  // the loads through property-access feedback that every other caller (the factories below, each
  // with its own object shape) had made polymorphic. Every path stores the fields in this one order,
  // so every envelope has one hidden class.
  private constructor(
    kind: AgentKind,
    record: RecordId | undefined,
    conversation: ConversationId,
    parent: ConversationId | undefined,
    root: ConversationId | undefined,
    source: AgentId,
    target: AgentId | undefined,
    cause: RecordId | undefined,
    causeAt: LogPosition | undefined,
    correlation: CorrelationId | undefined,
    channel: ChannelId | undefined,
    idempotencyKey: IdempotencyKey | undefined,
    deadlineMicros: bigint | undefined,
    sequence: bigint | undefined,
    last: boolean | undefined,
    finishReason: string | undefined,
    taskState: number | undefined,
    operation: string | undefined,
    tool: string | undefined,
    usage: TokenUsage | undefined,
    metadata: Metadata | undefined,
    mustUnderstand: bigint | undefined,
    body: Uint8Array | undefined,
    signature: Signature | undefined,
  ) {
    this.kind = kind;
    this.record = record;
    this.conversation = conversation;
    this.parent = parent;
    this.root = root;
    this.source = source;
    this.target = target;
    this.cause = cause;
    this.causeAt = causeAt;
    this.correlation = correlation;
    this.channel = channel;
    this.idempotencyKey = idempotencyKey;
    this.deadlineMicros = deadlineMicros;
    this.sequence = sequence;
    this.last = last ?? false;
    this.finishReason = finishReason;
    this.taskState = taskState;
    this.operation = operation;
    this.tool = tool;
    this.usage = usage;
    this.metadata = metadata;
    this.mustUnderstand = mustUnderstand ?? 0n;
    this.body = body ?? EMPTY;
    this.signature = signature;
  }

  static {
    assemble = (
      kind, record, conversation, parent, root, source, target, cause, causeAt, correlation, channel,
      idempotencyKey, deadlineMicros, sequence, last, finishReason, taskState, operation, tool, usage,
      metadata, mustUnderstand, body, signature
    ) =>
      new AgentEnvelope(
        kind, record, conversation, parent, root, source, target, cause, causeAt, correlation, channel,
        idempotencyKey, deadlineMicros, sequence, last, finishReason, taskState, operation, tool, usage,
        metadata, mustUnderstand, body, signature,
      );
  }

  /** Builds an envelope from plain fields, without validation (the decoder and converters use this). */
  static fromFields(fields: EnvelopeFields): AgentEnvelope {
    const f = fields;
    return new AgentEnvelope(
      f.kind, f.record, f.conversation, f.parent, f.root, f.source, f.target, f.cause, f.causeAt, f.correlation, f.channel,
      f.idempotencyKey, f.deadlineMicros, f.sequence, f.last, f.finishReason, f.taskState, f.operation, f.tool, f.usage,
      f.metadata, f.mustUnderstand, f.body, f.signature,
    );
  }

  /** A command: expects a reply or effect, so `correlation` is required. */
  static command(
    record: RecordId,
    conversation: ConversationId,
    source: AgentId,
    correlation: CorrelationId,
    body: Uint8Array,
  ): AgentEnvelope {
    return AgentEnvelope.fromFields({ kind: 'command', record, conversation, source, correlation, body });
  }

  /** A response: the paired answer to a command (same correlation). */
  static response(
    record: RecordId,
    conversation: ConversationId,
    source: AgentId,
    correlation: CorrelationId,
    body: Uint8Array,
  ): AgentEnvelope {
    return AgentEnvelope.fromFields({ kind: 'response', record, conversation, source, correlation, body });
  }

  /** An event: expects nothing. */
  static event(record: RecordId, conversation: ConversationId, source: AgentId, body: Uint8Array): AgentEnvelope {
    return AgentEnvelope.fromFields({ kind: 'event', record, conversation, source, body });
  }

  /** One chunk of a stream, ordered by `sequence` within `channel`. Mark the final one with {@link AgentEnvelope.terminal}. */
  static chunk(
    conversation: ConversationId,
    source: AgentId,
    correlation: CorrelationId,
    channel: ChannelId,
    sequence: bigint | number,
    body: Uint8Array,
  ): AgentEnvelope {
    return AgentEnvelope.fromFields({
      kind: 'chunk',
      conversation,
      source,
      correlation,
      channel,
      sequence: BigInt(sequence),
      body,
    });
  }

  /**
   * A status signal discriminated by `operation` (`task`, `session`, `card`, `progress`, `quarantine`,
   * `unquarantine`). Task and session updates also need a task state (and `task` a correlation).
   */
  static status(record: RecordId, conversation: ConversationId, source: AgentId, operation: string): AgentEnvelope {
    return AgentEnvelope.fromFields({ kind: 'status', record, conversation, source, operation });
  }

  /** An error terminal for `correlation`; `body` is an encoded AgentErrorBody. */
  static error(
    record: RecordId,
    conversation: ConversationId,
    source: AgentId,
    correlation: CorrelationId,
    body: Uint8Array,
  ): AgentEnvelope {
    return AgentEnvelope.fromFields({ kind: 'error', record, conversation, source, correlation, body });
  }

  /** All fields as plain data. */
  toFields(): EnvelopeFields {
    return {
      kind: this.kind,
      record: this.record,
      conversation: this.conversation,
      parent: this.parent,
      root: this.root,
      source: this.source,
      target: this.target,
      cause: this.cause,
      causeAt: this.causeAt,
      correlation: this.correlation,
      channel: this.channel,
      idempotencyKey: this.idempotencyKey,
      deadlineMicros: this.deadlineMicros,
      sequence: this.sequence,
      last: this.last,
      finishReason: this.finishReason,
      taskState: this.taskState,
      operation: this.operation,
      tool: this.tool,
      usage: this.usage,
      metadata: this.metadata,
      mustUnderstand: this.mustUnderstand,
      body: this.body,
      signature: this.signature,
    };
  }

  /** A copy with some fields replaced. */
  with(patch: Partial<EnvelopeFields>): AgentEnvelope {
    return AgentEnvelope.fromFields({ ...this.toFields(), ...patch });
  }

  /** Narrows delivery to one agent within a shared topic. */
  withTarget(target: AgentId | undefined): AgentEnvelope {
    return this.with({ target });
  }

  /** Stamps the causal parent: its record id and, when known, its log position. */
  withCause(cause: RecordId, causeAt?: LogPosition): AgentEnvelope {
    return this.with({ cause, causeAt });
  }

  /** Pairs this message with a correlation id. */
  withCorrelation(correlation: CorrelationId | undefined): AgentEnvelope {
    return this.with({ correlation });
  }

  /** Sets the chunk stream (chunks, and errors that end a stream). */
  withChannel(channel: ChannelId | undefined): AgentEnvelope {
    return this.with({ channel });
  }

  /** Attaches a business idempotency key (commands, responses and events only). */
  withIdempotencyKey(key: IdempotencyKey | undefined): AgentEnvelope {
    return this.with({ idempotencyKey: key });
  }

  /** Declares the drop-dead time (on a stream opening, also the reader's abandonment bound). */
  withDeadlineMicros(deadlineMicros: bigint | number | undefined): AgentEnvelope {
    return this.with({ deadlineMicros: deadlineMicros === undefined ? undefined : BigInt(deadlineMicros) });
  }

  /** Marks this message terminal (`last = true`), optionally with why the stream ended. */
  terminal(finishReason?: string): AgentEnvelope {
    return this.with(finishReason === undefined ? { last: true } : { last: true, finishReason });
  }

  /** Attaches a task state code. */
  withTaskState(state: number | undefined): AgentEnvelope {
    return this.with({ taskState: state });
  }

  /** Sets the operation name. */
  withOperation(operation: string | undefined): AgentEnvelope {
    return this.with({ operation });
  }

  /** Sets the tool name. */
  withTool(tool: string | undefined): AgentEnvelope {
    return this.with({ tool });
  }

  /** Attaches token accounting (advisory). */
  withUsage(usage: TokenUsage | undefined): AgentEnvelope {
    return this.with({ usage });
  }

  /** Adds (or replaces, keeping its position) one metadata entry. */
  withMetadata(key: string, value: MetadataValue): AgentEnvelope;
  /** Replaces the whole metadata map (`undefined` removes it). */
  withMetadata(metadata: Metadata | undefined): AgentEnvelope;
  withMetadata(keyOrMap: string | Metadata | undefined, value?: MetadataValue): AgentEnvelope {
    if (typeof keyOrMap === 'string') {
      const next = new Map(this.metadata ?? []);
      next.set(keyOrMap, value === undefined ? null : value);
      return this.with({ metadata: next });
    }
    return this.with({ metadata: keyOrMap === undefined ? undefined : new Map(keyOrMap) });
  }

  /** Sets the parent (and optionally root) conversation. */
  withParent(parent: ConversationId | undefined, root?: ConversationId): AgentEnvelope {
    return this.with({ parent, root });
  }

  /** Replaces the body. */
  withBody(body: Uint8Array): AgentEnvelope {
    return this.with({ body });
  }

  /** Attaches (or, with `undefined`, removes) the detached signature. */
  withSignature(signature: Signature | undefined): AgentEnvelope {
    return this.with({ signature });
  }

  /** Declares feature bits a receiver must understand (added to the existing ones). */
  requiring(bits: bigint): AgentEnvelope {
    return this.with({ mustUnderstand: this.mustUnderstand | bits });
  }

  /** The must-understand bits not in `understood`; non-zero means reject or dead-letter. */
  unmetRequirements(understood: bigint): bigint {
    // Nearly every envelope requires nothing: no bigint arithmetic (two allocations) for it.
    const required = this.mustUnderstand;
    // Only for a bigint argument: anything else fails below, as it always has.
    if (required === 0n && typeof understood === 'bigint') return 0n;
    return required & ~understood;
  }

  /**
   * Checks the validity matrix, the extra rules and the caps.
   * @throws InvalidError naming the field (`context.field`).
   */
  validate(): void {
    validateEnvelope(this);
  }

  /**
   * Validates, then returns the canonical CBOR bytes: a view carved out of a shared output slab
   * that no later encoding writes to, so it may be kept (see {@link encodeEnvelope}).
   */
  encode(): Uint8Array {
    validateEnvelope(this);
    return encodeEnvelope(this);
  }

  /**
   * Validates, then writes the canonical CBOR bytes into `target` from `offset` and returns how many
   * bytes were written: nothing is allocated, so a sender that reuses its buffers pays only for the
   * one pass over the fields (see {@link encodeEnvelopeInto}).
   * @throws InvalidError naming the field, or with `context.field` = `target` when the encoding does
   * not fit.
   */
  encodeInto(target: Uint8Array, offset = 0): number {
    validateEnvelope(this);
    return encodeEnvelopeInto(this, target, offset);
  }

  /**
   * Strictly decodes and validates one envelope. A decoded `body` longer than 64 bytes is a
   * zero-copy view into `bytes` (shorter ones are copies): copy it before reusing the input buffer.
   * @throws CodecError for malformed CBOR or wrong field types; InvalidError for rule violations.
   */
  static decode(bytes: Uint8Array): AgentEnvelope {
    const env = decodeEnvelope(bytes);
    // The decoder already guarantees the kind, the field types and the wire ranges.
    validateDecodedEnvelope(env);
    return env;
  }
}
