/**
 * The AGDX LogTransport interface, the embedded in-memory log, and the transport conformance suite.
 * @module
 */
export const PLACEHOLDER: true = true;
