/**
 * The agdx command: demo, Iggy dev server, tail and decode, session timelines, benchmarks.
 * @module
 */
export const PLACEHOLDER: true = true;
