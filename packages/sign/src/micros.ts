import { InvalidError } from '@agdx/wire';

const U64_MAX = 0xffff_ffff_ffff_ffffn;

/** Epoch microseconds as accepted by the public API: a bigint, or a safe non-negative integer. */
export type Micros = bigint | number;

/**
 * Normalises a microsecond time or bound to bigint.
 *
 * @throws InvalidError for negatives, fractions, unsafe numbers or values beyond u64.
 */
export function toMicros(value: Micros, field: string): bigint {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) {
      throw new InvalidError(`${field} must be a whole number of microseconds`, { context: { field } });
    }
    value = BigInt(value);
  } else if (typeof value !== 'bigint') {
    throw new InvalidError(`${field} must be a bigint or an integer number`, { context: { field } });
  }
  if (value < 0n || value > U64_MAX) {
    throw new InvalidError(`${field} must be within the unsigned 64-bit range`, { context: { field } });
  }
  return value;
}
