/**
 * Transport conformance suite.
 * @module
 */
export const PLACEHOLDER: true = true;
