/**
 * An Apache Iggy client over TCP and TLS (VSR and classic protocols) implementing the AGDX LogTransport.
 * @module
 */
export const PLACEHOLDER: true = true;
