import { costMicrosOf, seedFinishReason, tokenUsageOf } from '@agdx/ai-sdk';
import { describe, expect, it } from 'vitest';

describe('usage and cost', () => {
  it('maps the AI SDK usage and prices it in micro-units, rounding half up once', () => {
    const usage = tokenUsageOf({ inputTokens: 1_000, outputTokens: 300, inputTokenDetails: { cacheReadTokens: 400, cacheWriteTokens: 10 }, outputTokenDetails: { reasoningTokens: 120 } });
    expect(usage).toEqual({ inputTokens: 1_000n, outputTokens: 300n, reasoningOutputTokens: 120n, cacheReadInputTokens: 400n, cacheCreationInputTokens: 10n });
    // 1,000 × 0.15 + 300 × 0.6 = 150 + 180 micro-units.
    expect(costMicrosOf(usage, { inputPerMillion: '0.15', outputPerMillion: '0.60' })).toBe(330n);
    // A cache price applies to the cached share: 600 × 0.15 + 400 × 0.075 + 180 = 90 + 30 + 180.
    expect(costMicrosOf(usage, { inputPerMillion: '0.15', outputPerMillion: '0.6', cacheReadPerMillion: '0.075' })).toBe(300n);
    // 1 token at 0.5 per million is half a micro-unit: rounds up; 0.4 rounds down.
    expect(costMicrosOf({ inputTokens: 1n, outputTokens: 0n }, { inputPerMillion: 0.5, outputPerMillion: 0 })).toBe(1n);
    expect(costMicrosOf({ inputTokens: 1n, outputTokens: 0n }, { inputPerMillion: 0.4, outputPerMillion: 0 })).toBe(0n);
    expect(tokenUsageOf({ inputTokens: 2, outputTokens: 3 }, { inputPerMillion: '1000000', outputPerMillion: '0' }).costMicros).toBe(2_000_000n);
  });

  it('leaves out counts a provider got wrong and refuses a cost beyond u64', () => {
    expect(tokenUsageOf({ inputTokens: -3, outputTokens: 2.5, outputTokenDetails: { reasoningTokens: Number.NaN } })).toEqual({ inputTokens: 0n, outputTokens: 0n });
    expect(tokenUsageOf(undefined)).toEqual({ inputTokens: 0n, outputTokens: 0n });
    expect(() => costMicrosOf({ inputTokens: (1n << 63n), outputTokens: 0n }, { inputPerMillion: '5000000', outputPerMillion: '0' })).toThrow(expect.objectContaining({ kind: 'invalid' }));
    expect(() => costMicrosOf({ inputTokens: 1n, outputTokens: 0n }, { inputPerMillion: '-1', outputPerMillion: '0' })).toThrow(expect.objectContaining({ kind: 'invalid' }));
  });
});

describe('finish reasons', () => {
  it('keeps the seed default and writes the GenAI names for the rest', () => {
    expect(['stop', 'length', 'tool-calls', 'content-filter', 'error', 'interrupted', 'other', 'new-one', undefined].map(seedFinishReason)).toEqual([
      'stop',
      'length',
      'tool_calls',
      'content_filter',
      'error',
      'interrupted',
      'other',
      'other',
      'other',
    ]);
  });
});
