/**
 * Ed25519 signatures, key registry, delegation and signed Agent Cards for AGDX envelopes.
 *
 * Signing and verification run on the runtime's synchronous `node:crypto` Ed25519 where it is
 * offered through `process.getBuiltinModule` (Node, Bun, Deno), else on WebCrypto, else on
 * @noble/curves (see {@link setEd25519Backend}); all give identical bytes. The async methods use
 * the chosen back end; the `…Sync` variants use `node:crypto` when the choice allows it and
 * @noble/curves otherwise.
 * @module
 */

export { SignatureError } from './errors.js';

export type { Ed25519BackendChoice, Ed25519BackendName } from './ed25519/backend.js';
export { ed25519BackendChoice, resolveEd25519Backend, setEd25519Backend } from './ed25519/select.js';
export { pkcs8FromSeed } from './ed25519/key-documents.js';

export { KEY_ID_LENGTH, SEED_LENGTH, SIGNATURE_LENGTH, VERIFYING_KEY_LENGTH, keyIdOf, registryKeyOf } from './key-id.js';
export { KeyKind } from './key-kind.js';
export { KeyRecord } from './key-record.js';
export type { KeyRecordInit } from './key-record.js';
export type { Micros } from './micros.js';
export {
  STORED_KEY_RECORD_VERSION,
  decodeKeyRecord,
  decodeStoredKeyRecord,
  encodeStoredKeyRecord,
  keyRecordFromStored,
} from './stored-key-record.js';
export type { StorableKeyRecord, StoredKeyRecord } from './stored-key-record.js';
export { DEFAULT_KEY_NAMESPACE, recordsFromStoredEntries, revokedStoredKeyRecord } from './managed-records.js';
export type { StoredKeyEntry, StoredKeySnapshot } from './managed-records.js';

export { SIGNATURE_DOMAIN, signingInputFromEncoded } from './signing-input.js';
export { encodeContextBytes } from './signature-context.js';
export { ED25519_SCHEME, decodeSignatureCapsule, encodeSignatureCapsule } from './signature-capsule.js';
export { splitSignedEnvelope } from './encoded-envelope.js';
export { MAX_KEY_RECORD_BYTES, MAX_SIGNATURE_BYTES } from './cbor-caps.js';
export type { SplitEnvelope } from './encoded-envelope.js';
export { SigningKey, signingInput } from './signing-key.js';
export type { Ed25519Options } from './signing-key.js';

export { KeyRegistry } from './key-registry.js';
export type { ObservedHeaders } from './observed-headers.js';
export type { Signer, Verifier, VerifiedPrincipal } from './verifier.js';

export {
  GrantAction,
  ON_BEHALF_OF,
  delegatedAllow,
  grantsAllow,
  verifyDelegation,
  verifyDelegationSync,
} from './delegation.js';
export type { Delegation, DelegationAt, Grant, ResourcePattern } from './delegation.js';

export { canonicalCardJson } from './card/canonical-json.js';
export type { CardJson } from './card/canonical-json.js';
export {
  CARD_JWS_TYPE,
  CARD_PROTECTED_HEADER,
  cardProtectedHeader,
  cardSigningInput,
  signCard,
  signCardSync,
  signedCard,
  signedCardSync,
  verifyCard,
  verifyCardSync,
} from './card/jws.js';
export type { CardOptions, CardSignature, SignedCard } from './card/jws.js';
