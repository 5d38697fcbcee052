/**
 * The Apache Iggy binary protocol (VSR and classic) as pure codecs: framing, sessions, commands, checksums.
 * @module
 */
export const PLACEHOLDER: true = true;
