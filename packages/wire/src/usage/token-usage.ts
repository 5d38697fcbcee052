/**
 * Token accounting, advisory only. Counts are u64; `costMicros` is integer millionths of the
 * deployment's currency (see {@link costToMicros}).
 */
export interface TokenUsage {
  /** Input (prompt) tokens. */
  readonly inputTokens: bigint;
  /** Output (completion) tokens. */
  readonly outputTokens: bigint;
  /** Reasoning tokens inside the output. */
  readonly reasoningOutputTokens?: bigint;
  /** Input tokens served from a prompt cache. */
  readonly cacheReadInputTokens?: bigint;
  /** Input tokens written into a prompt cache. */
  readonly cacheCreationInputTokens?: bigint;
  /** Cost in micro-units of the deployment currency (written last on the wire). */
  readonly costMicros?: bigint;
}
