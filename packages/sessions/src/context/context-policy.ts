import { AgentId, InvalidError } from '@agdx/wire';
import type { ContextMessage } from '../turns/session-turn.js';

/** Chooses which messages of a history (oldest first) go into a context; returns them oldest first. */
export interface ContextPolicy {
  /** The selected messages, in chronological order. */
  select(history: readonly ContextMessage[]): ContextMessage[];
}

/** Estimates the tokens one message costs. */
export type TokenEstimator = (message: ContextMessage) => number;

/** The default estimate: one token per 4 bytes of the record payload, rounded up. */
export const defaultTokenEstimator: TokenEstimator = (message) => Math.ceil(message.payload.byteLength / 4);

function checkCount(value: unknown, what: string): number {
  if (typeof value !== 'number' || Number.isNaN(value)) throw new InvalidError(`${what} must be a number`, { context: { field: what } });
  return Math.max(0, Math.floor(value));
}

/** Keeps the newest `n` messages (`max(0, n)`). */
export class LastN implements ContextPolicy {
  /** The bound. */
  readonly n: number;
  /** @throws InvalidError when `n` is not a number. */
  constructor(n: number) {
    this.n = checkCount(n, 'LastN');
  }
  /** The newest `n`, in order. */
  select(history: readonly ContextMessage[]): ContextMessage[] {
    return this.n === 0 ? [] : history.slice(Math.max(0, history.length - this.n));
  }
}

/**
 * Keeps the newest messages whose estimated tokens fit `maxTokens`, walking newest to oldest and
 * stopping at the first one that would not fit (it never skips ahead to smaller older messages).
 * The newest message is always kept, even when it alone is over the budget.
 */
export class TokenBudget implements ContextPolicy {
  /** The budget. */
  readonly maxTokens: number;
  readonly #estimate: TokenEstimator;
  /** @param estimate your tokenizer (default {@link defaultTokenEstimator}). */
  constructor(maxTokens: number, estimate: TokenEstimator = defaultTokenEstimator) {
    this.maxTokens = checkCount(maxTokens, 'TokenBudget');
    if (typeof estimate !== 'function') throw new InvalidError('TokenBudget estimator must be a function');
    this.#estimate = estimate;
  }
  /** The newest messages within the budget, in order. */
  select(history: readonly ContextMessage[]): ContextMessage[] {
    let used = 0;
    let start = history.length;
    for (let i = history.length - 1; i >= 0; i--) {
      const raw = this.#estimate(history[i] as ContextMessage);
      // max(0, estimate): NaN and negatives cost nothing, and Infinity never fits (an estimator's "too big")
      const cost = typeof raw === 'number' && raw > 0 ? raw : 0;
      if (used + cost > this.maxTokens && i !== history.length - 1) break;
      used += cost;
      start = i;
    }
    return history.slice(start);
  }
}

/** Keeps messages whose provenance agent is one of `agents`; messages with no agent are dropped. */
export class RoleFilter implements ContextPolicy {
  readonly #agents: ReadonlySet<string>;
  /** @param agents agent ids (text or {@link AgentId}). */
  constructor(agents: Iterable<string | AgentId>) {
    this.#agents = new Set([...agents].map((a) => (a instanceof AgentId ? a.value : String(a))));
  }
  /** The messages of the listed agents, in order. */
  select(history: readonly ContextMessage[]): ContextMessage[] {
    return history.filter((m) => m.provenance.agent !== undefined && this.#agents.has(m.provenance.agent.value));
  }
}

/** Applies policies left to right. */
export class Chain implements ContextPolicy {
  readonly #policies: readonly ContextPolicy[];
  /** @throws InvalidError when an entry has no `select`. */
  constructor(policies: readonly ContextPolicy[]) {
    for (const p of policies) {
      if (typeof (p as Partial<ContextPolicy> | undefined)?.select !== 'function') throw new InvalidError('Chain takes context policies');
    }
    this.#policies = [...policies];
  }
  /** The history after every policy. */
  select(history: readonly ContextMessage[]): ContextMessage[] {
    let out = [...history];
    for (const p of this.#policies) out = p.select(out);
    return out;
  }
}
