import { applyJsonPatch } from './json-patch.js';
import type { JsonValue } from './json-value.js';
import type { StateDelta, StateSnapshot } from './state-records.js';
import { InvalidError } from '../errors.js';

/** One state record in lane order. */
export type StateRecord =
  | { readonly kind: 'snapshot'; readonly snapshot: StateSnapshot }
  | { readonly kind: 'delta'; readonly delta: StateDelta };

/** What folding one record did. */
export type StateOutcome = 'applied' | 'rejected' | 'stale' | 'duplicate';

/** The folded session state. */
export interface ReconstructedState {
  /** The document, or undefined when no record was ever applied. */
  readonly document: JsonValue | undefined;
  /** Applied records so far. */
  readonly revision: bigint;
  /** One outcome per input record, in order. */
  readonly outcomes: readonly StateOutcome[];
}

/**
 * The session state fold of seed 000, one record at a time, for readers that fold as records
 * arrive (a live view) and must agree with {@link reconstructState} on every revision: a delta
 * applies atomically or is `rejected` (document unchanged); a delta whose `op_id` already applied
 * is a `duplicate`; a snapshot replaces the document only when its `base_revision` equals the
 * applied revision, else it is `stale`; every applied record advances the revision by one. A
 * delta before any document patches an empty object.
 */
export class StateFold {
  #document: JsonValue | undefined;
  #revision = 0n;
  readonly #applied = new Set<string>();

  /** The document, or undefined when no record was ever applied. */
  get document(): JsonValue | undefined {
    return this.#document;
  }

  /** Applied records so far. */
  get revision(): bigint {
    return this.#revision;
  }

  /** The op ids of the deltas applied so far (a repeat of one is a duplicate), in the order applied. */
  get appliedOpIds(): readonly string[] {
    return [...this.#applied];
  }

  /**
   * A fold that continues from a saved point (`document`, `revision`, `appliedOpIds` as read from
   * an earlier fold), for readers that resume from a fold snapshot.
   * @throws InvalidError when the revision is negative, an op id is not a string, or there are
   * more applied op ids than the revision counts.
   */
  static resume(point: { readonly document: JsonValue | undefined; readonly revision: bigint; readonly appliedOpIds: readonly string[] }): StateFold {
    const { document, revision, appliedOpIds } = point;
    if (typeof revision !== 'bigint' || revision < 0n) throw new InvalidError('a state fold revision must be a non-negative bigint', { context: { field: 'revision' } });
    if (BigInt(appliedOpIds.length) > revision || appliedOpIds.some((id) => typeof id !== 'string')) {
      throw new InvalidError('applied op ids must be strings, no more of them than the revision', { context: { field: 'appliedOpIds' } });
    }
    const fold = new StateFold();
    fold.#document = document === undefined ? undefined : structuredClone(document);
    fold.#revision = revision;
    for (const id of appliedOpIds) fold.#applied.add(id);
    return fold;
  }

  /**
   * Drops `opId` from the applied op ids, so a later delta repeating it applies again. For readers
   * that bound the set by a rule of their own (for example the op ids applied within the newest
   * records of a partition), since a fold that keeps every op id grows with every delta.
   * @returns whether the op id was held.
   */
  forgetOpId(opId: string): boolean {
    return this.#applied.delete(opId);
  }

  /** Folds the next record in lane order and says what it did. */
  apply(record: StateRecord): StateOutcome {
    if (record.kind === 'snapshot') {
      if (record.snapshot.baseRevision !== this.#revision) return 'stale';
      this.#document = structuredClone(record.snapshot.document);
      this.#revision += 1n;
      return 'applied';
    }
    const { delta } = record;
    if (this.#applied.has(delta.opId)) return 'duplicate';
    try {
      this.#document = applyJsonPatch(this.#document ?? {}, delta.patch);
    } catch {
      return 'rejected';
    }
    this.#applied.add(delta.opId);
    this.#revision += 1n;
    return 'applied';
  }
}

/** Folds state records in lane order with one {@link StateFold} (seed 000). */
export function reconstructState(records: Iterable<StateRecord>): ReconstructedState {
  const fold = new StateFold();
  const outcomes: StateOutcome[] = [];
  for (const record of records) outcomes.push(fold.apply(record));
  return { document: fold.document, revision: fold.revision, outcomes };
}
