/**
 * Ed25519 signatures, key registry, delegation and signed Agent Cards for AGDX envelopes.
 * @module
 */
export const PLACEHOLDER: true = true;
