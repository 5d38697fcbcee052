/**
 * The AGDX agent SDK: root client, send builders, chunk writers, agent runtime, replies, human input, lifecycle, heartbeats and pause/resume.
 * @module
 */
export const PLACEHOLDER: true = true;
