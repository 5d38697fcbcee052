import { InvalidError } from '@agdx/wire';

/**
 * How many records an agent handles at once. Both keep per-partition order: a partition's
 * records are handled one after the other, in offset order.
 * - `serial`: one record at a time across all partitions.
 * - `serial-per-partition`: one record at a time per partition, up to `maxPartitions`
 *   partitions in parallel.
 */
export type ConcurrencyPolicy =
  | { readonly kind: 'serial' }
  | { readonly kind: 'serial-per-partition'; readonly maxPartitions: number };

/** Validates a policy; returns how many partitions may run at once. @throws InvalidError */
export function parallelismOf(policy: ConcurrencyPolicy): number {
  if (policy.kind === 'serial') return 1;
  if (policy.kind === 'serial-per-partition') {
    if (!Number.isSafeInteger(policy.maxPartitions) || policy.maxPartitions < 1) {
      throw new InvalidError('maxPartitions must be a safe integer of at least 1', { context: { field: 'maxPartitions' } });
    }
    return policy.maxPartitions;
  }
  throw new InvalidError('concurrency is serial or serial-per-partition', { context: { field: 'concurrency' } });
}
