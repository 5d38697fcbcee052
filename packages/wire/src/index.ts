/**
 * The AGDX wire contract, runtime-free: identifiers, the AgentEnvelope model and its CBOR codec,
 * validation, header blocks, dictionaries, capsules, chunk reassembly and claim-check.
 * @module
 */

export { AgdxError, CodecError, IntegrityError, InvalidError, UnsupportedError } from './errors.js';
export type { AgdxErrorOptions, ErrorKind } from './errors.js';

// --- identifiers, envelope model, codec, validation, dictionaries, usage (wire-core) ---

// --- headers, capsules, chunk assembler, claim check, state patches, helpers (wire-extras) ---
