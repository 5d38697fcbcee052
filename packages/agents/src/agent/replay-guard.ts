/**
 * Verify-side defences against copies of signed commands. A signature covers the envelope (its
 * record id, conversation, source, target, body, ...) but not where or when the record was
 * appended: anyone who can append to the log can copy a genuinely signed command, byte for byte,
 * to the same topic later or to another agent's topic, and the copy verifies. What the copy
 * cannot change is what was signed, so the checks here read only signed fields and the record's
 * position and broker time; the wire bytes and what is signed stay as the reference has them.
 */
import { InvalidError, type AgentEnvelope } from '@agdx/wire';
import type { RecordAddress } from './log-position.js';

/** How an agent with a verifier treats copies of signed commands (`replayGuard(...)` on its builder). */
export interface ReplayGuardOptions {
  /**
   * How many handled command record ids the agent remembers (default 10,000; 0 turns duplicate
   * suppression off). A verified command whose record id it remembers at another position is a
   * copy: committed as `duplicate` and reported (`SkippedRecordError`, reason `replayed`), never
   * run again. The memory is per agent handle and in memory: a restarted agent, an id pushed
   * out by newer ones, or another instance of the agent (a copy on a partition it owns) does not
   * recognise a copy (`maxAgeMs` and idempotency keys with a durable processed-key store cover
   * those).
   */
  readonly window?: number | undefined;
  /**
   * Refuse (dead letter Rejected) a verified command that does not name this agent as its
   * `target` (default false). An unaddressed command is work for whoever reads the topic, so a
   * copy appended to another agent's topic runs there with the signer's authority; only the
   * signed target ties a command to one agent. Off by default: compatible peers write
   * unaddressed commands.
   */
  readonly requireTarget?: boolean | undefined;
  /**
   * Refuse (dead letter Rejected) a verified command appended more than this many milliseconds
   * after its record id was minted: a record id is a ULID whose first 48 bits are the producer's
   * clock in milliseconds, and it is signed, so a copy appended later carries its old time.
   * Unset by default: producers whose clocks run behind, outboxes that append late and
   * redriven dead letters write records a compatible peer considers valid; choose a window
   * larger than the clock skew and append delay you accept.
   */
  readonly maxAgeMs?: number | undefined;
}

/** The guard's verdict on one verified command. */
export type ReplayVerdict =
  | { readonly kind: 'fresh' }
  | { readonly kind: 'duplicate'; readonly first: string }
  | { readonly kind: 'refused'; readonly detail: string };

const FRESH: ReplayVerdict = { kind: 'fresh' };

/** The default number of remembered record ids. */
export const DEFAULT_REPLAY_WINDOW = 10_000;

/**
 * Checks {@link ReplayGuardOptions} once, on the builder.
 * @throws InvalidError for a window that is not a safe integer ≥ 0, a `maxAgeMs` that is not a
 * finite number > 0, or a `requireTarget` that is not a boolean.
 */
export function checkReplayGuardOptions(options: ReplayGuardOptions): ReplayGuardOptions {
  if (typeof options !== 'object' || options === null) throw new InvalidError('replayGuard takes an options object', { context: { field: 'replayGuard' } });
  const { window, requireTarget, maxAgeMs } = options;
  if (window !== undefined && (!Number.isSafeInteger(window) || window < 0)) {
    throw new InvalidError('replayGuard.window must be a safe integer of at least 0', { context: { field: 'replayGuard.window' } });
  }
  if (requireTarget !== undefined && typeof requireTarget !== 'boolean') {
    throw new InvalidError('replayGuard.requireTarget must be a boolean', { context: { field: 'replayGuard.requireTarget' } });
  }
  if (maxAgeMs !== undefined && (typeof maxAgeMs !== 'number' || !Number.isFinite(maxAgeMs) || maxAgeMs <= 0)) {
    throw new InvalidError('replayGuard.maxAgeMs must be a finite number of ms greater than 0', { context: { field: 'replayGuard.maxAgeMs' } });
  }
  return Object.freeze({ window, requireTarget, maxAgeMs });
}

/** A record's position as text: topic, partition and offset (the stream is the agent's). */
function positionKey(address: RecordAddress): string {
  return `${address.topic} partition ${address.partition} offset ${address.offset}`;
}

/** The milliseconds a ULID record id carries in its first 48 bits (big-endian). */
function mintedMs(envelope: AgentEnvelope): number | undefined {
  const record = envelope.record;
  if (record === undefined) return undefined;
  const bytes = record.toBytes();
  let ms = 0;
  for (let i = 0; i < 6; i++) ms = ms * 256 + (bytes[i] as number);
  return ms;
}

/**
 * One agent's memory of the signed commands it took on, and its target and age rules. Only
 * verified commands reach it: an unverified record proves nothing about its record id.
 */
export class SignedReplayGuard {
  readonly #capacity: number;
  readonly #requireTarget: boolean;
  readonly #maxAgeMicros: bigint | undefined;
  /** Record id → where it was first read, and its slot in the ring. */
  readonly #seen = new Map<string, { readonly first: string; readonly slot: number }>();
  /**
   * The remembered ids in the order they came, in a ring of `window` slots: the slot a new id
   * takes names the one to forget. Forgetting through the map's own order (`keys().next()`) would
   * walk past every entry deleted before, which piles up until the map rehashes.
   */
  readonly #ring: (string | undefined)[] = [];
  #next = 0;

  /** A guard with `options` (already checked). */
  constructor(options: ReplayGuardOptions = {}) {
    this.#capacity = options.window ?? DEFAULT_REPLAY_WINDOW;
    this.#requireTarget = options.requireTarget === true;
    this.#maxAgeMicros = options.maxAgeMs === undefined ? undefined : BigInt(Math.ceil(options.maxAgeMs * 1000));
  }

  /**
   * Judges a verified command read at `address` with broker time `atMicros` by agent `me`, and
   * remembers its record id when it is fresh. A second read at the same position is the same
   * record redelivered (a retry after a failure, a rebalance), never a copy.
   */
  admit(envelope: AgentEnvelope, address: RecordAddress, atMicros: bigint, me: string): ReplayVerdict {
    if (envelope.kind !== 'command') return FRESH;
    if (this.#requireTarget && envelope.target?.value !== me) {
      return { kind: 'refused', detail: `a verified command that does not name \`${me}\` as its target (requireTarget)` };
    }
    const maxAge = this.#maxAgeMicros;
    if (maxAge !== undefined) {
      const minted = mintedMs(envelope);
      if (minted !== undefined && atMicros - BigInt(minted) * 1000n > maxAge) {
        const ageMs = (atMicros - BigInt(minted) * 1000n) / 1000n;
        return { kind: 'refused', detail: `a verified command appended ${ageMs} ms after its record id was minted, beyond maxAgeMs ${Number(maxAge) / 1000}` };
      }
    }
    if (this.#capacity === 0 || envelope.record === undefined) return FRESH;
    const id = envelope.record.toString();
    const here = positionKey(address);
    const seen = this.#seen.get(id);
    if (seen !== undefined) return seen.first === here ? FRESH : { kind: 'duplicate', first: seen.first };
    const slot = this.#next;
    this.#next = slot + 1 === this.#capacity ? 0 : slot + 1;
    const oldest = this.#ring[slot];
    // Only if it still holds this slot: a forgotten id taken on again holds a newer one.
    if (oldest !== undefined && this.#seen.get(oldest)?.slot === slot) this.#seen.delete(oldest);
    this.#ring[slot] = id;
    this.#seen.set(id, { first: here, slot });
    return FRESH;
  }

  /**
   * Forgets a command that was dead-lettered from `address`: a dead letter is there to be
   * redriven, and the redriven record (the same signed bytes at a new offset) must run.
   */
  forget(envelope: AgentEnvelope, address: RecordAddress): void {
    const record = envelope.record;
    if (record === undefined) return;
    const id = record.toString();
    if (this.#seen.get(id)?.first === positionKey(address)) this.#seen.delete(id);
  }
}
