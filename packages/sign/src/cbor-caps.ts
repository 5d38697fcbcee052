/**
 * Byte caps on the small CBOR items this package decodes with cbor2, checked before decoding:
 * cbor2 builds what the input declares before any cap can be seen, so the input size is what
 * bounds its time and memory. A real key record is about 150 bytes and a signature about 110.
 */
export const MAX_KEY_RECORD_BYTES = 4096;

/** Largest accepted Signature capsule (standalone, or the `signature` value inside an envelope). */
export const MAX_SIGNATURE_BYTES = 4096;
