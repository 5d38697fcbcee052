/**
 * Expose AGDX agents to A2A v1.0 clients: JSON-RPC handler, web-standard HTTP handler, signed Agent Cards.
 * @module
 */
export const PLACEHOLDER: true = true;
