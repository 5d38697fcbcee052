import { costToMicros, InvalidError, type TokenUsage } from '@agdx/wire';

/**
 * A model's price per million tokens, in the deployment's currency, as decimal strings (`"2.50"`)
 * so that no binary float rounds a price. Numbers are accepted when they print without an exponent.
 */
export interface ModelPrice {
  /** Price of one million input (prompt) tokens. */
  readonly inputPerMillion: string | number;
  /** Price of one million output (completion) tokens, reasoning included. */
  readonly outputPerMillion: string | number;
  /** Price of one million input tokens served from a prompt cache; without it they cost `inputPerMillion`. */
  readonly cacheReadPerMillion?: string | number | undefined;
}

const U64_MAX = (1n << 64n) - 1n;
const MILLION = 1_000_000n;

function priceMicros(value: string | number | undefined, field: string): bigint {
  if (typeof value === 'number') {
    const text = String(value);
    if (!Number.isFinite(value) || /e/i.test(text)) throw new InvalidError(`price \`${field}\` must be a plain decimal`, { context: { field } });
    return costToMicros(text);
  }
  if (typeof value !== 'string') throw new InvalidError(`price \`${field}\` must be a decimal string`, { context: { field } });
  return costToMicros(value);
}

/** Checks a price up front, so a bad price fails before a model stream is read. */
export function checkModelPrice(price: ModelPrice): void {
  if (typeof price !== 'object' || price === null) throw new InvalidError('a model price must be an object', { context: { field: 'price' } });
  priceMicros(price.inputPerMillion, 'inputPerMillion');
  priceMicros(price.outputPerMillion, 'outputPerMillion');
  if (price.cacheReadPerMillion !== undefined) priceMicros(price.cacheReadPerMillion, 'cacheReadPerMillion');
}

/**
 * The cost of `usage` at `price` in micro-units (seed 000: × 1,000,000, round half up, within
 * u64). Prices are micro-units per million tokens, so the product is divided by a million once,
 * in integers, and rounds only there.
 * @throws InvalidError for a malformed price or a cost above 2^64 − 1.
 */
export function costMicrosOf(usage: TokenUsage, price: ModelPrice): bigint {
  const input = priceMicros(price.inputPerMillion, 'inputPerMillion');
  const output = priceMicros(price.outputPerMillion, 'outputPerMillion');
  const cached = usage.cacheReadInputTokens ?? 0n;
  let scaled = usage.outputTokens * output;
  if (price.cacheReadPerMillion !== undefined && cached > 0n && cached <= usage.inputTokens) {
    scaled += (usage.inputTokens - cached) * input + cached * priceMicros(price.cacheReadPerMillion, 'cacheReadPerMillion');
  } else {
    scaled += usage.inputTokens * input;
  }
  const micros = (scaled + MILLION / 2n) / MILLION;
  if (micros > U64_MAX) throw new InvalidError(`cost of ${micros} micro-units exceeds u64`, { context: { field: 'costMicros' } });
  return micros;
}
