import type { TokenUsage } from '@agdx/wire';
import { costMicrosOf, type ModelPrice } from './model-price.js';

/** The AI SDK's usage shape (`LanguageModelUsage`), read structurally: every count may be missing. */
export interface AiSdkUsage {
  /** Input tokens. */
  readonly inputTokens?: number | undefined;
  /** Output tokens. */
  readonly outputTokens?: number | undefined;
  /** Input token details. */
  readonly inputTokenDetails?: { readonly cacheReadTokens?: number | undefined; readonly cacheWriteTokens?: number | undefined } | undefined;
  /** Output token details. */
  readonly outputTokenDetails?: { readonly reasoningTokens?: number | undefined } | undefined;
}

const U64_MAX = (1n << 64n) - 1n;

// A provider reporting a negative, fractional or absurd count is advisory noise, not a reason to
// lose the response: such a count is left out.
function count(value: unknown): bigint | undefined {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) return undefined;
  const big = BigInt(value);
  return big > U64_MAX ? undefined : big;
}

/**
 * The wire usage for an AI SDK usage: input and output tokens (0 when unreported), reasoning and
 * cache counts when reported, and `costMicros` when a price is given.
 * @throws InvalidError when the price is malformed or the cost exceeds u64.
 */
export function tokenUsageOf(usage: AiSdkUsage | undefined, price?: ModelPrice): TokenUsage {
  const source = typeof usage === 'object' && usage !== null ? usage : {};
  const base: {
    inputTokens: bigint;
    outputTokens: bigint;
    reasoningOutputTokens?: bigint;
    cacheReadInputTokens?: bigint;
    cacheCreationInputTokens?: bigint;
    costMicros?: bigint;
  } = { inputTokens: count(source.inputTokens) ?? 0n, outputTokens: count(source.outputTokens) ?? 0n };
  const reasoning = count(source.outputTokenDetails?.reasoningTokens);
  if (reasoning !== undefined) base.reasoningOutputTokens = reasoning;
  const cacheRead = count(source.inputTokenDetails?.cacheReadTokens);
  if (cacheRead !== undefined) base.cacheReadInputTokens = cacheRead;
  const cacheWrite = count(source.inputTokenDetails?.cacheWriteTokens);
  if (cacheWrite !== undefined) base.cacheCreationInputTokens = cacheWrite;
  if (price !== undefined) base.costMicros = costMicrosOf(base, price);
  return base;
}
