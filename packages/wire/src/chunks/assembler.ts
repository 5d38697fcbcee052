/** What the assembler reads from a record (an `AgentEnvelope` satisfies it). */
export interface AssemblerRecord<U = unknown> {
  /** Envelope kind; only `chunk` and `error` matter. */
  readonly kind: string;
  /** Chunk sequence; a chunk without one is ignored. */
  readonly sequence?: bigint | undefined;
  /** Chunk payload, or the AgentErrorBody bytes of an error. */
  readonly body: Uint8Array;
  /** True on the terminal chunk. */
  readonly last: boolean;
  /** Terminal finish reason. */
  readonly finishReason?: string | undefined;
  /** Usage, carried once on the terminal chunk. */
  readonly usage?: U | undefined;
  /** The opening chunk's read deadline, epoch microseconds. */
  readonly deadlineMicros?: bigint | undefined;
}

/** A chunk body delivered in order. */
export interface ChunkBodyEvent {
  /** Discriminant. */
  readonly kind: 'body';
  /** The chunk's sequence. */
  readonly sequence: bigint;
  /** The chunk's bytes. */
  readonly payload: Uint8Array;
}

/** The stream ended: by its terminal chunk, or locally (`gap`, `abandoned`: `synthetic`). */
export interface ChunkFinishedEvent<U = unknown> {
  /** Discriminant. */
  readonly kind: 'finished';
  /** The writer's finish reason, or `gap` / `abandoned` for synthetic ends. */
  readonly finishReason?: string;
  /** Usage from the terminal chunk. */
  readonly usage?: U;
  /** True when the end was decided by this reader and never written to the log. */
  readonly synthetic: boolean;
}

/** The stream failed: an `error` envelope arrived; `body` is its raw AgentErrorBody bytes. */
export interface ChunkFailedEvent {
  /** Discriminant. */
  readonly kind: 'failed';
  /** Raw AgentErrorBody bytes. */
  readonly body: Uint8Array;
}

/** Every event the assembler emits. */
export type ChunkEvent<U = unknown> = ChunkBodyEvent | ChunkFinishedEvent<U> | ChunkFailedEvent;

/** Synthetic finish reason when a sequence number was skipped. */
export const FINISH_REASON_GAP = 'gap';
/** Synthetic finish reason when the reader gave up waiting. */
export const FINISH_REASON_ABANDONED = 'abandoned';

/**
 * Reassembles one chunk channel: bodies in order from sequence 0; duplicates dropped and
 * counted; a skipped sequence ends the stream with a synthetic `gap`; the first terminal (last
 * chunk or error) wins and anything after it is dropped and counted. One instance per channel;
 * the caller filters by channel.
 */
export class ChunkAssembler<U = unknown> {
  #next = 0n;
  #finished = false;
  #duplicates = 0n;
  #late = 0n;
  #deadline: bigint | undefined;

  /** True once the stream ended (terminal, error, gap or abandon). */
  get isFinished(): boolean {
    return this.#finished;
  }
  /** Chunks dropped because their sequence was already delivered. */
  get duplicatesDropped(): bigint {
    return this.#duplicates;
  }
  /** Records dropped because they arrived after the end. */
  get lateDropped(): bigint {
    return this.#late;
  }
  /** The next expected sequence. */
  get nextSequence(): bigint {
    return this.#next;
  }
  /** The opening chunk's `deadline_micros`, once seen. */
  get openingDeadlineMicros(): bigint | undefined {
    return this.#deadline;
  }

  /** Feeds one record and returns the events it causes (possibly none). */
  feed(record: AssemblerRecord<U>): ChunkEvent<U>[] {
    if (record.kind === 'chunk') {
      const sequence = record.sequence;
      if (sequence === undefined) return [];
      if (this.#finished) {
        this.#late += 1n;
        return [];
      }
      if (sequence < this.#next) {
        this.#duplicates += 1n;
        return [];
      }
      if (sequence > this.#next) {
        this.#finished = true;
        return [{ kind: 'finished', finishReason: FINISH_REASON_GAP, synthetic: true }];
      }
      if (sequence === 0n && record.deadlineMicros !== undefined) this.#deadline = record.deadlineMicros;
      this.#next += 1n;
      const events: ChunkEvent<U>[] = [];
      if (record.body.length > 0) events.push({ kind: 'body', sequence, payload: record.body });
      if (record.last) {
        this.#finished = true;
        const finished: { -readonly [K in keyof ChunkFinishedEvent<U>]: ChunkFinishedEvent<U>[K] } = { kind: 'finished', synthetic: false };
        if (record.finishReason !== undefined) finished.finishReason = record.finishReason;
        if (record.usage !== undefined) finished.usage = record.usage;
        events.push(finished);
      }
      return events;
    }
    if (record.kind === 'error') {
      if (this.#finished) {
        this.#late += 1n;
        return [];
      }
      this.#finished = true;
      return [{ kind: 'failed', body: record.body }];
    }
    return [];
  }

  /** Ends the stream locally with a synthetic `abandoned`; undefined when it already ended. */
  abandon(): ChunkFinishedEvent<U> | undefined {
    if (this.#finished) return undefined;
    this.#finished = true;
    return { kind: 'finished', finishReason: FINISH_REASON_ABANDONED, synthetic: true };
  }

  /**
   * True when the opening chunk carried a deadline and `nowMicros` is past it while the stream
   * is still open: the moment a reader should call {@link abandon}.
   */
  openingDeadlinePassed(nowMicros: bigint): boolean {
    return !this.#finished && this.#deadline !== undefined && nowMicros > this.#deadline;
  }
}
