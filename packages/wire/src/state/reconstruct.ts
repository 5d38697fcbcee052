import { applyJsonPatch } from './json-patch.js';
import type { JsonValue } from './json-value.js';
import type { StateDelta, StateSnapshot } from './state-records.js';

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
 * Folds state records in lane order (seed 000): a delta applies atomically or is `rejected`
 * (document unchanged); a delta whose `op_id` already applied is a `duplicate`; a snapshot
 * replaces the document only when its `base_revision` equals the applied revision, else it is
 * `stale`; every applied record advances the revision by one. A delta before any document
 * patches an empty object.
 */
export function reconstructState(records: Iterable<StateRecord>): ReconstructedState {
  let document: JsonValue | undefined;
  let revision = 0n;
  const applied = new Set<string>();
  const outcomes: StateOutcome[] = [];
  for (const record of records) {
    if (record.kind === 'snapshot') {
      if (record.snapshot.baseRevision !== revision) {
        outcomes.push('stale');
        continue;
      }
      document = structuredClone(record.snapshot.document);
      revision += 1n;
      outcomes.push('applied');
      continue;
    }
    const { delta } = record;
    if (applied.has(delta.opId)) {
      outcomes.push('duplicate');
      continue;
    }
    try {
      document = applyJsonPatch(document ?? {}, delta.patch);
    } catch {
      outcomes.push('rejected');
      continue;
    }
    applied.add(delta.opId);
    revision += 1n;
    outcomes.push('applied');
  }
  return { document, revision, outcomes };
}
