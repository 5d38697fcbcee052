/**
 * Dead letters whose append failed (or whose error reply did, after the letter), by the record they are for. The consumer reads such a record
 * again (it stays uncommitted); the pipeline then appends the letter it already decided on rather
 * than running the record through the handler's attempts once more: a poison record's handler
 * ran `maxAttempts` more times for every failed append, and a handler with side effects repeated
 * them.
 */
import type { LogRecord } from '@agdx/transport';
import type { AgentErrorBody } from '@agdx/wire';
import type { AgentMessage } from '../message/agent-message.js';
import type { DeadLetterRecord } from './dead-letter.js';

/** A decided dead letter waiting to be appended. */
export interface UnwrittenLetter {
  /** The decoded message, when the record decoded (for the sink and telemetry). */
  readonly message: AgentMessage | undefined;
  /** The `DeadLetterReason` code. */
  readonly reason: number;
  /** The letter, as built the first time. */
  readonly letter: DeadLetterRecord;
  /** The smaller letter to append instead when the log refuses `letter` as invalid, if not used yet. */
  readonly minimal?: ((refusal: string) => DeadLetterRecord) | undefined;
  /** The error reply owed to the dead-lettered command's requester, when one is. */
  readonly reply?: AgentErrorBody | undefined;
  /** The letter is written; only {@link UnwrittenLetter.reply} is still to be sent. */
  readonly replyOnly?: boolean | undefined;
}

/**
 * At most this many letters are kept; past it the oldest is forgotten, and its record goes
 * through the full pipeline again when read (the behaviour without this memory).
 */
const MAX_UNWRITTEN = 256;

interface Kept extends UnwrittenLetter {
  /** What identifies the record beyond its offset (a topic recreated since reuses offsets). */
  readonly timestampMicros: bigint;
  readonly payloadBytes: number;
}

/** The letters of one pipeline (one stream and topic), keyed by partition and offset. */
export class UnwrittenLetters {
  readonly #letters = new Map<string, Kept>();

  /** How many letters are kept. */
  get size(): number {
    return this.#letters.size;
  }

  /** Keeps the letter decided for `record` of `partition`. */
  keep(record: LogRecord, partition: number, letter: UnwrittenLetter): void {
    const key = `${partition}:${record.offset}`;
    this.#letters.delete(key);
    if (this.#letters.size >= MAX_UNWRITTEN) {
      const oldest = this.#letters.keys().next();
      if (oldest.done !== true) this.#letters.delete(oldest.value);
    }
    this.#letters.set(key, { ...letter, timestampMicros: record.timestampMicros, payloadBytes: record.payload.length });
  }

  /** The letter kept for `record` of `partition`, removed; undefined when none (or another record now sits there). */
  take(record: LogRecord, partition: number): UnwrittenLetter | undefined {
    const key = `${partition}:${record.offset}`;
    const kept = this.#letters.get(key);
    if (kept === undefined) return undefined;
    this.#letters.delete(key);
    if (kept.timestampMicros !== record.timestampMicros || kept.payloadBytes !== record.payload.length) return undefined;
    return kept;
  }
}
