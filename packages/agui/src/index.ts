/**
 * AG-UI events and shared state for frontends, rendered from the AGDX log, live over Server-Sent Events.
 * @module
 */
export const PLACEHOLDER: true = true;
