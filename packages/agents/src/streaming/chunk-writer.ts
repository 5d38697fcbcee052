import {
  AgentEnvelope,
  ChannelId,
  ContentType,
  CorrelationId,
  encodeEnvelope,
  InvalidError,
  RecordId,
  validateEnvelope,
  type AgentErrorBody,
  type AgentId,
  type ConversationId,
  type LogPosition,
  type RecordHeaders,
  type TokenUsage,
} from '@agdx/wire';
import { watchAbort, type AppendRecord } from '@agdx/transport';
import { CancelledError } from '../errors.js';
import type { ClientCore } from '../client/client-core.js';
import type { AppendIssuer } from '../send/append-issuer.js';
import { toContentType, type ContentTypeLike } from '../send/content-type.js';
import { ChunkEncoder, type ChunkStreamFields } from './chunk-encoder.js';
import { encodeErrorBody } from '../send/error-body.js';
import { checkBytes, checkInstance, checkSignal, checkLogPosition, checkObject, checkText, toAgentId, toMicros, type AgentIdLike } from '../send/refinements.js';
import type { ChunkStreamSpan } from '../telemetry/agdx-telemetry.js';
import { chunksAppended, endChunkStream, sendHeaders, startChunkStream } from '../telemetry/guarded-telemetry.js';

/** The largest chunk body: 64 KiB. */
export const MAX_CHUNK_BODY_BYTES = 65_536;

const TERMINAL = 'an AGDX stream is already terminal';
const EMPTY = new Uint8Array(0);

/** Options of the chunk writer's publishing calls. */
export interface ChunkWriteOptions {
  /** Aborts the append (a buffered write that does not flush ignores it). */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Streams incremental output under one correlation as chunks of one channel. The purpose rides the
 * opening chunk (sequence 0) with the optional deadline. Unbuffered, every write is one append;
 * `buffered(maxChunks, lingerMs)` collects writes and publishes them as ONE append when
 * `maxChunks` are pending or the linger has passed (checked on writes). `finish` and `fail`
 * always flush. Chunk writers never sign.
 */
export class AgdxChunkWriter {
  readonly #core: ClientCore;
  readonly #stream: string;
  readonly #topic: string;
  readonly #source: AgentId;
  readonly #conversation: ConversationId;
  readonly #conversationKey: string;
  readonly #correlation: CorrelationId;
  readonly #purpose: string;
  readonly #channel: ChannelId;
  #target: AgentId | undefined;
  #contentType: number = ContentType.raw;
  #deadline: bigint | undefined;
  #tool: string | undefined;
  #cause: RecordId | undefined;
  #causeAt: LogPosition | undefined;
  #maxChunks = 1;
  #lingerMicros = 0n;
  #buffered = false;
  #next = 0n;
  #pending: AppendRecord[] = [];
  #firstPendingAt = 0n;
  #terminal = false;
  #headers: RecordHeaders | undefined;
  #headersFor = -1;
  // undefined: not built yet; null: this stream uses the generic path.
  #encoder: ChunkEncoder | null | undefined;
  #issuer: AppendIssuer | undefined;
  #gate: (() => Error | undefined) | undefined;
  /** The flush in flight (awaited appends only), which the next flush waits for. */
  #flushing: Promise<void> | undefined;
  // null: not started; undefined: no telemetry hook (or it declined).
  #span: ChunkStreamSpan | undefined | null = null;

  /** @internal Use `client.agdx(...).stream(correlation, purpose)`. */
  constructor(
    core: ClientCore,
    stream: string,
    topic: string,
    source: AgentId,
    conversation: ConversationId,
    correlation: CorrelationId,
    purpose: string,
  ) {
    this.#core = core;
    this.#stream = stream;
    this.#topic = topic;
    this.#source = source;
    this.#conversation = conversation;
    this.#conversationKey = conversation.toString();
    this.#correlation = checkInstance(correlation, CorrelationId, 'correlation');
    this.#purpose = checkText(purpose, 'operation');
    this.#channel = core.mint(ChannelId);
  }

  /** The channel every chunk of this stream carries. */
  get channel(): ChannelId {
    return this.#channel;
  }

  /** The correlation. */
  get correlation(): CorrelationId {
    return this.#correlation;
  }

  /** The sequence the next chunk gets. */
  get nextSequence(): bigint {
    return this.#next;
  }

  /** Number of chunks written but not yet published. */
  get pendingChunks(): number {
    return this.#pending.length;
  }

  /** True once `finish` or `fail` ran. */
  get terminal(): boolean {
    return this.#terminal;
  }

  /**
   * Addresses every chunk to one agent. Set it before the first chunk is written: the addressee
   * routes chunks (a layout with a topic or a partition per agent puts them in the addressee's
   * place) and readers filter by it, so a stream addressed midway would be split in two.
   * @throws InvalidError for an invalid id, or after the first chunk.
   */
  withTarget(target: AgentIdLike): this {
    if (this.#next > 0n) throw new InvalidError('withTarget() must be called before the first chunk is written');
    this.#target = toAgentId(target);
    this.#headers = undefined;
    this.#encoder = undefined;
    return this;
  }

  /** Sets the content type of the chunk bodies. */
  contentType(contentType: ContentTypeLike): this {
    this.#contentType = toContentType(contentType);
    return this;
  }

  /**
   * Names the record this stream answers (and, optionally, its log position) on every chunk and on
   * a closing error, as every other answer does. Set it before the first chunk is written.
   */
  withCause(cause: RecordId, causeAt?: LogPosition): this {
    if (this.#next > 0n) throw new InvalidError('withCause() must be called before the first chunk is written');
    this.#cause = checkInstance(cause, RecordId, 'cause');
    this.#causeAt = causeAt === undefined ? undefined : checkLogPosition(causeAt);
    this.#encoder = undefined;
    return this;
  }

  /**
   * Names the tool a `tool_args` stream carries arguments for. It rides the opening chunk, next to
   * the purpose, so readers (AG-UI's TOOL_CALL_START) learn it once and later chunks stay small.
   */
  withTool(tool: string): this {
    if (this.#next > 0n) throw new InvalidError('withTool() must be called before the first chunk is written');
    this.#tool = checkText(tool, 'tool');
    return this;
  }

  /**
   * Sets the opening chunk's deadline (the reader's abandonment bound), epoch microseconds.
   * @throws InvalidError after the first chunk (it would never be published).
   */
  withDeadlineMicros(deadlineMicros: bigint | number): this {
    if (this.#next > 0n) throw new InvalidError('withDeadlineMicros() must be called before the first chunk is written');
    this.#deadline = toMicros(deadlineMicros, 'deadline_micros');
    return this;
  }

  /**
   * Buffers writes: publish when `maxChunks` are pending (0 counts as 1) or when a write finds
   * the oldest pending chunk at least `lingerMs` old.
   * @throws InvalidError for a negative or fractional `maxChunks` or a negative or non-finite linger.
   */
  buffered(maxChunks: number, lingerMs: number): this {
    if (!Number.isSafeInteger(maxChunks) || maxChunks < 0) throw new InvalidError('buffered() maxChunks must be a non-negative integer');
    if (typeof lingerMs !== 'number' || !Number.isFinite(lingerMs) || lingerMs < 0) {
      throw new InvalidError('buffered() lingerMs must be a non-negative finite number');
    }
    this.#buffered = true;
    this.#maxChunks = Math.max(1, maxChunks);
    this.#lingerMicros = BigInt(Math.round(lingerMs * 1000));
    return this;
  }

  /**
   * @internal The runtime hands a handler's writer its answer pipeline: flushes are then issued
   * through it (in order, acknowledged in the background) instead of awaited one by one.
   */
  pipelineInto(issuer: AppendIssuer): this {
    this.#issuer = issuer;
    return this;
  }
  /**
   * @internal The runtime ties a handler's writer to its attempt: once `gate` names a reason (the
   * attempt timed out, the agent stopped, the partition was lost), every flush is refused with it
   * and nothing more is appended.
   */
  gatedBy(gate: () => Error | undefined): this {
    this.#gate = gate;
    return this;
  }

  /**
   * Writes one chunk of at most 64 KiB.
   * @throws InvalidError after a terminal call, for an oversized body, or when the opening chunk
   * breaks a rule (for example an unknown purpose).
   */
  async write(body: Uint8Array, options: ChunkWriteOptions = {}): Promise<void> {
    if (this.#terminal) throw new InvalidError(TERMINAL);
    checkBytes(body, 'body');
    if (body.length > MAX_CHUNK_BODY_BYTES) {
      throw new InvalidError(`chunk body is ${body.length}B, exceeds cap ${MAX_CHUNK_BODY_BYTES}B`, {
        context: { field: 'body', bytes: body.length, cap: MAX_CHUNK_BODY_BYTES },
      });
    }
    if (this.#next > 0n && this.#core.governor === undefined) this.#enqueueLater(body);
    else await this.#enqueue(this.#chunk(body, false, undefined, undefined), this.#contentType);
    if (!this.#buffered || this.#pending.length >= this.#maxChunks || this.#lingered()) await this.flush(options);
  }

  /** Publishes every pending chunk as one append (nothing when none are pending). */
  async flush(options: ChunkWriteOptions = {}): Promise<void> {
    await this.#flush(options, undefined);
  }

  /**
   * {@link flush}; then `ended` (the terminal flush's span end) runs once: at once with nothing
   * pending, after the append when it is awaited, and pipelined (an issuer) when the batch is
   * acknowledged in the background, so the span counts every chunk (with the error when the
   * append fails or is refused).
   */
  async #flush(options: ChunkWriteOptions, ended: ((error?: unknown) => void) | undefined): Promise<void> {
    const issuer = this.#issuer;
    if (issuer === undefined) return this.#flushInTurn(options, ended);
    const batch = this.#takeable(ended);
    if (batch === undefined) return;
    // The issuer owns the batch from here: a failed acknowledgment fails the handled record.
    this.#pending = [];
    const span = this.#span;
    let ending = ended;
    const end = (error?: unknown): void => {
      const f = ending;
      ending = undefined;
      f?.(error);
    };
    const acknowledged = span
      ? (at: unknown, error?: unknown): void => {
          if (at !== undefined) chunksAppended(span, batch.length);
          end(at === undefined ? (error ?? new Error('the stream\'s last append was not acknowledged')) : undefined);
        }
      : undefined;
    try {
      await issuer.issue({ core: this.#core, stream: this.#stream, topic: this.#topic, kind: 'chunk', target: this.#target, conversationKey: this.#conversationKey, records: batch, acknowledged });
    } catch (error) {
      end(error);
      throw error;
    }
  }

  /**
   * The pending chunks a flush may append, or `undefined` (after `ended()`) when none are pending.
   * @throws the attempt's own error (after `ended` with it) once the runtime's gate closed.
   */
  #takeable(ended: ((error?: unknown) => void) | undefined): AppendRecord[] | undefined {
    const batch = this.#pending;
    if (batch.length === 0) {
      ended?.();
      return undefined;
    }
    const refusal = this.#gate?.();
    if (refusal !== undefined) {
      ended?.(refusal);
      throw refusal;
    }
    return batch;
  }

  /**
   * The awaited flush: one at a time, in call order. Writes that are not awaited one by one
   * (a token callback) each flush while an append is in flight; each flush waits for the one
   * before it and then takes what is pending as one append, so every chunk is appended once and
   * in sequence (taking the whole pending list while its append was in flight re-sent every
   * chunk once per concurrent write). Only a successful append drops its chunks: a failed one
   * puts them back in front of those written meanwhile, so the next flush retries them in order.
   */
  async #flushInTurn(options: ChunkWriteOptions, ended: ((error?: unknown) => void) | undefined): Promise<void> {
    const previous = this.#flushing;
    let release!: () => void;
    const turn = new Promise<void>((resolve) => (release = resolve));
    this.#flushing = turn;
    try {
      if (previous !== undefined) await untilTurn(previous, options.signal);
      // Judged once this flush has its turn: the attempt may have ended while it waited.
      const batch = this.#takeable(ended);
      if (batch === undefined) return;
      this.#pending = [];
      const core = this.#core;
      try {
        await core.shared.appender.append({ core, stream: this.#stream, topic: this.#topic, kind: 'chunk', target: this.#target, conversationKey: this.#conversationKey, records: batch }, options.signal);
      } catch (error) {
        this.#pending = this.#pending.length === 0 ? batch : batch.concat(this.#pending);
        throw error;
      }
      if (this.#span) chunksAppended(this.#span, batch.length);
      ended?.();
    } finally {
      const done = (): void => {
        if (this.#flushing === turn) this.#flushing = undefined;
        release();
      };
      // A flush aborted while it waited still passes its turn on only once the one in flight has
      // settled, so the flushes after it wait for that append too (a failed one puts its chunks back
      // in front, and the next flush must see them there).
      if (previous === undefined) done();
      else void previous.then(done);
    }
  }

  /**
   * Ends the stream: a terminal chunk with an empty body, `last`, the finish reason (omitted when
   * not given, as the reference does) and the whole-stream usage, published together with every
   * pending chunk.
   * @throws InvalidError when the stream is already terminal.
   */
  async finish(finishReason?: string, usage?: TokenUsage, options: ChunkWriteOptions = {}): Promise<void> {
    if (this.#terminal) throw new InvalidError(TERMINAL);
    if (finishReason !== undefined) checkText(finishReason, 'finish_reason');
    if (usage !== undefined) checkObject(usage, 'usage');
    this.#terminal = true;
    await this.#enqueueTerminal(this.#chunk(EMPTY, true, finishReason, usage), this.#contentType);
    const span = this.#span;
    await this.#flush(options, span ? (error) => endChunkStream(span, finishReason, usage, error) : undefined);
  }

  /**
   * Ends the stream with an error envelope naming the channel and the next sequence (content
   * type cbor), published together with every pending chunk.
   * @throws InvalidError when the stream is already terminal, or for an error body readers could
   * not decode (the stream stays open).
   */
  async fail(error: AgentErrorBody, options: ChunkWriteOptions = {}): Promise<void> {
    if (this.#terminal) throw new InvalidError(TERMINAL);
    const body = encodeErrorBody(error);
    this.#terminal = true;
    const envelope = AgentEnvelope.fromFields({ kind: 'error', record: this.#core.mint(RecordId), ...this.#streamFields(), sequence: this.#next++, body });
    await this.#enqueueTerminal(envelope, ContentType.cbor);
    const span = this.#span;
    await this.#flush(options, span ? () => endChunkStream(span, undefined, undefined, error) : undefined);
  }

  /** What every record of the stream carries: the terminal error, every chunk, the encoder's probe. */
  #streamFields(): ChunkStreamFields {
    return {
      conversation: this.#conversation,
      source: this.#source,
      target: this.#target,
      cause: this.#cause,
      causeAt: this.#causeAt,
      correlation: this.#correlation,
      channel: this.#channel,
    };
  }

  #chunk(body: Uint8Array, last: boolean, finishReason: string | undefined, usage: TokenUsage | undefined): AgentEnvelope {
    const sequence = this.#next++;
    const opening = sequence === 0n;
    return AgentEnvelope.fromFields({
      kind: 'chunk',
      ...this.#streamFields(),
      deadlineMicros: opening ? this.#deadline : undefined,
      sequence,
      last,
      finishReason,
      operation: opening ? this.#purpose : undefined,
      tool: opening ? this.#tool : undefined,
      usage,
      body,
    });
  }

  /**
   * {@link #enqueue} for `finish` and `fail`, which marked the stream terminal first (so no write
   * slips in while the governor decides): a refused terminal leaves the stream open, so the
   * caller can still end it (another reason, or `fail`) instead of holding a writer that refuses
   * everything while its readers wait for an end that was never written.
   */
  async #enqueueTerminal(envelope: AgentEnvelope, contentType: number): Promise<void> {
    try {
      await this.#enqueue(envelope, contentType);
    } catch (error) {
      this.#terminal = false;
      throw error;
    }
  }

  async #enqueue(envelope: AgentEnvelope, contentType: number): Promise<void> {
    const core = this.#core;
    try {
      if (core.governor !== undefined) {
        validateEnvelope(envelope);
        const body = await core.govern(core.actionOf(envelope, this.#stream, this.#topic, false));
        if (body !== envelope.body) envelope = envelope.withBody(body);
      }
      validateEnvelope(envelope);
    } catch (error) {
      // A refused record (invalid, or denied by the governor) never took its sequence number:
      // the next record gets it, or readers would see a gap and end the stream there.
      this.#releaseSequence(envelope.sequence);
      throw error;
    }
    if (this.#span === null) this.#span = startChunkStream(core.shared.telemetry, { opening: envelope, stream: this.#stream, topic: this.#topic });
    this.#push(encodeEnvelope(envelope), contentType);
  }

  // The hot path: a later chunk through the stream's ChunkEncoder (validated once, spliced after).
  #enqueueLater(body: Uint8Array): void {
    let encoder = this.#encoder;
    if (encoder === undefined) {
      encoder = this.#encoder = ChunkEncoder.for(this.#streamFields()) ?? null;
    }
    if (encoder === null) {
      const envelope = this.#chunk(body, false, undefined, undefined);
      try {
        validateEnvelope(envelope);
      } catch (error) {
        this.#releaseSequence(envelope.sequence);
        throw error;
      }
      this.#push(encodeEnvelope(envelope), this.#contentType);
      return;
    }
    const payload = encoder.encode(this.#next, body);
    this.#next++;
    this.#push(payload, this.#contentType);
  }

  /**
   * Gives back the sequence a refused record took, unless a later record (a write that did not
   * wait for this one) took the next one meanwhile: that sequence is then lost either way.
   */
  #releaseSequence(sequence: bigint | undefined): void {
    if (sequence !== undefined && this.#next === sequence + 1n) this.#next = sequence;
  }

  #push(payload: Uint8Array, contentType: number): void {
    if (this.#pending.length === 0) this.#firstPendingAt = this.#buffered && this.#lingerMicros > 0n ? this.#core.clock.nowMicros() : 0n;
    this.#pending.push({ headers: this.#headersOf(contentType), payload });
  }

  // Every record of one stream shares its header block (same author, session, addressee, topic).
  #headersOf(contentType: number): RecordHeaders {
    if (this.#headers !== undefined && this.#headersFor === contentType) return this.#headers;
    const headers = sendHeaders(this.#span ?? undefined, this.#core.headersFor(this.#streamFields(), contentType, this.#topic));
    if (contentType === this.#contentType) {
      this.#headers = headers;
      this.#headersFor = contentType;
    }
    return headers;
  }

  #lingered(): boolean {
    if (this.#lingerMicros === 0n) return true;
    return this.#core.clock.nowMicros() - this.#firstPendingAt >= this.#lingerMicros;
  }
}

/**
 * Resolves when the flush before settles (its turn never rejects), or rejects with CancelledError
 * when `signal` fires first: a flush waiting behind a slow append still honours its own signal,
 * and its chunks stay pending.
 */
function untilTurn(previous: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  const watched = checkSignal(signal);
  if (watched === undefined) return previous;
  return new Promise<void>((resolve, reject) => {
    const unwatch = watchAbort(watched, () => reject(new CancelledError('the flush was aborted', { cause: watched.reason })));
    void previous.then(() => {
      unwatch();
      resolve();
    });
  });
}
