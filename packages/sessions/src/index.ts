/**
 * AGDX sessions: typed turns, model-ready context, memory, checkpoints, replay, state and lifecycle reads, with the log as the only store.
 * @module
 */
export const PLACEHOLDER: true = true;
