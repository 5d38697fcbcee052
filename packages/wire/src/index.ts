/**
 * The AGDX wire contract: IDs, envelopes, CBOR codec, validation, headers, capsules, chunk reassembly and claim-check.
 * @module
 */
export const PLACEHOLDER: true = true;
