import { InvalidError } from '../errors.js';

const U64_MAX = (1n << 64n) - 1n;
const DECIMAL = /^\+?(\d+)(?:\.(\d*))?$|^\+?\.(\d+)$/;

/**
 * Converts a decimal amount (`"0.0125"`) into integer micro-units: × 1,000,000, rounding half up on
 * the seventh fractional digit. Parsing is exact (no floating point).
 * @throws InvalidError for malformed or negative input, or a result above 2^64 − 1.
 */
export function costToMicros(decimal: string): bigint {
  if (typeof decimal !== 'string') throw new InvalidError('cost must be a decimal string');
  const text = decimal.trim();
  if (text.startsWith('-')) {
    // "-0" and "-0.000" are still negative inputs by sign; the rule rejects negatives outright.
    throw new InvalidError(`cost \`${decimal}\` is negative`, { context: { value: decimal } });
  }
  const m = DECIMAL.exec(text);
  if (m === null) throw new InvalidError(`cost \`${decimal}\` is not a decimal number`, { context: { value: decimal } });
  const whole = m[1] ?? '0';
  const frac = m[2] ?? m[3] ?? '';
  const kept = frac.slice(0, 6).padEnd(6, '0');
  let micros = BigInt(whole) * 1_000_000n + BigInt(kept);
  const next = frac.charCodeAt(6);
  if (next >= 0x35 /* '5' */ && next <= 0x39) micros += 1n;
  if (micros > U64_MAX) {
    throw new InvalidError(`cost \`${decimal}\` is ${micros} micro-units, exceeds u64`, { context: { value: decimal } });
  }
  return micros;
}
