/**
 * The shared harness of the AGDX reliability suite: a seeded generator, a byte mutator, an
 * outcome tally that tells typed refusals from untyped throws, and sample statistics. Runtime
 * neutral; the Node parts (processes, sockets, fault proxy) live in the suite's test/support.
 * @module
 */
export { SeededRandom } from './seeded-random.js';
export { mutateBytes } from './mutate.js';
export { InputOutcome, isBrandedError, OutcomeTally } from './outcome.js';
export { percentile, slope, summarize } from './stats.js';
export type { SampleSummary } from './stats.js';
