import { base64UrlEncode, isBytes, tryBase64UrlDecode, utf8 } from '../bytes.js';
import type { Ed25519BackendChoice } from '../ed25519/backend.js';
import { backendFor, syncBackendFor } from '../ed25519/select.js';
import { SignatureError } from '../errors.js';
import { registryKeyOf, SIGNATURE_LENGTH, VERIFYING_KEY_LENGTH } from '../key-id.js';
import type { SigningKey } from '../signing-key.js';
import { canonicalCardJson } from './canonical-json.js';

/** The seed's JWS protected header of a card signature (0.1.1's form): base64url of `{"alg":"EdDSA"}`. */
export const CARD_PROTECTED_HEADER: string = base64UrlEncode(utf8('{"alg":"EdDSA"}'));

/** The JWS `typ` of an A2A card signature's protected header. */
export const CARD_JWS_TYPE: 'JOSE' = 'JOSE';

/**
 * The protected header the A2A specification asks of a card signature, naming the signing key:
 * base64url of `{"alg":"EdDSA","kid":"<registry key>","typ":"JOSE"}`, where the kid is the key's
 * registry key (lowercase hex of its key id), so a verifier can look the key up in the registry.
 * A2A verifiers (the official SDKs) refuse a signature without `kid` and `typ`.
 */
export function cardProtectedHeader(key: Pick<SigningKey, 'registryKey'>): string {
  return base64UrlEncode(utf8(JSON.stringify({ alg: 'EdDSA', kid: key.registryKey, typ: CARD_JWS_TYPE })));
}

// One strict decoder for every header (not streamed, so it holds no state). It keeps the default of
// dropping one leading byte order mark, which JSON lets a parser ignore: a header written with one is
// read, so its kid is still checked (an unreadable header would count as naming no key).
const headerJson = new TextDecoder('utf-8', { fatal: true });

/** The members of a protected header this module reads; undefined when it is not base64url JSON of an object. */
function decodeHeader(protectedHeader: string): { readonly alg?: unknown; readonly kid?: unknown } | undefined {
  const bytes = tryBase64UrlDecode(protectedHeader);
  if (bytes === undefined) return undefined;
  try {
    const value = JSON.parse(headerJson.decode(bytes)) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Refuses a header a card signature of ours cannot carry: it must be base64url JSON with `alg` EdDSA. */
function checkSigningHeader(protectedHeader: string): string {
  if (decodeHeader(protectedHeader)?.alg !== 'EdDSA') throw new SignatureError('card protected header must be base64url JSON with alg EdDSA');
  return protectedHeader;
}

/** One detached JWS over an Agent Card (the A2A `signatures[]` entry). */
export interface CardSignature {
  /** base64url of the protected header. */
  readonly protected: string;
  /** base64url (no padding) of the 64-byte Ed25519 signature. */
  readonly signature: string;
}

/** An Agent Card with its `signatures` member. */
export type SignedCard<T extends object> = T & { readonly signatures: readonly CardSignature[] };

/** Options for card verification. */
export interface CardOptions {
  /** Ed25519 back end; default: the process-wide choice. */
  readonly backend?: Ed25519BackendChoice;
}

/**
 * The JWS signing input of a card: ASCII `protected + "." + base64url(canonical JSON)`.
 *
 * @throws SignatureError as {@link canonicalCardJson} does.
 */
export function cardSigningInput(card: unknown, protectedHeader: string = CARD_PROTECTED_HEADER): string {
  return `${protectedHeader}.${base64UrlEncode(utf8(canonicalCardJson(card)))}`;
}

/**
 * Signs a card's canonical JSON and returns the detached JWS (the card is not changed). The
 * protected header is the seed's `{"alg":"EdDSA"}` unless `protectedHeader` gives another, such
 * as {@link cardProtectedHeader}`(key)` for A2A verifiers.
 *
 * @throws SignatureError as {@link canonicalCardJson} does, or
 *   `card protected header must be base64url JSON with alg EdDSA`.
 */
export async function signCard(card: unknown, key: SigningKey, protectedHeader: string = CARD_PROTECTED_HEADER): Promise<CardSignature> {
  const input = cardSigningInput(card, checkSigningHeader(protectedHeader));
  return { protected: protectedHeader, signature: base64UrlEncode(await key.signBytes(utf8(input))) };
}

/** {@link signCard}, synchronously, on the key's synchronous back end (see {@link SigningKey.signSync}). */
export function signCardSync(card: unknown, key: SigningKey, protectedHeader: string = CARD_PROTECTED_HEADER): CardSignature {
  const input = cardSigningInput(card, checkSigningHeader(protectedHeader));
  return { protected: protectedHeader, signature: base64UrlEncode(key.signBytesSync(utf8(input))) };
}

function withSignature<T extends object>(card: T, signature: CardSignature): SignedCard<T> {
  const existing = (card as { signatures?: unknown }).signatures;
  const previous = Array.isArray(existing) ? (existing as CardSignature[]) : [];
  return { ...card, signatures: [...previous, signature] };
}

/**
 * Returns a copy of `card` with a detached EdDSA JWS appended to `signatures` (created when
 * absent). The payload never covers `signatures`, so earlier entries stay valid. The protected
 * header is as {@link signCard} has it.
 */
export async function signedCard<T extends object>(card: T, key: SigningKey, protectedHeader?: string): Promise<SignedCard<T>> {
  return withSignature(card, await signCard(card, key, protectedHeader));
}

/** {@link signedCard}, synchronously (see {@link signCardSync}). */
export function signedCardSync<T extends object>(card: T, key: SigningKey, protectedHeader?: string): SignedCard<T> {
  return withSignature(card, signCardSync(card, key, protectedHeader));
}

interface PreparedCard {
  readonly key: Uint8Array;
  readonly input: Uint8Array;
  readonly signature: Uint8Array;
}

function prepare(card: unknown, signature: CardSignature, verifyingKey: Uint8Array): PreparedCard {
  if (!isBytes(verifyingKey) || verifyingKey.length !== VERIFYING_KEY_LENGTH) throw new SignatureError('invalid public key');
  if (typeof signature !== 'object' || signature === null || typeof signature.protected !== 'string' || typeof signature.signature !== 'string') {
    throw new SignatureError('card signature must have text protected and signature members');
  }
  // A header that names a key (A2A's kid) must name this one: a signature is never checked
  // against a key its signer did not claim. The seed's header names none.
  const kid = decodeHeader(signature.protected)?.kid;
  if (kid !== undefined && kid !== registryKeyOf(verifyingKey)) throw new SignatureError('card signature names another key');
  const input = utf8(cardSigningInput(card, signature.protected));
  const bytes = tryBase64UrlDecode(signature.signature);
  if (bytes === undefined) throw new SignatureError('invalid base64url');
  if (bytes.length !== SIGNATURE_LENGTH) throw new SignatureError('card signature is not 64 bytes');
  return { key: verifyingKey, input, signature: bytes };
}

/**
 * Verifies a detached card JWS against `verifyingKey`, recomputing the payload from `card`
 * itself (its `signatures` member is ignored). The protected header is used as given: the
 * seed's `{"alg":"EdDSA"}` and A2A's form with `kid` and `typ` both verify; a `kid` must be the
 * registry key of `verifyingKey`.
 *
 * @throws SignatureError `invalid public key`, `invalid base64url`, `card signature is not 64 bytes`,
 *   `card signature names another key`, `card signature does not verify`, or the canonicalization errors.
 */
export async function verifyCard(card: unknown, signature: CardSignature, verifyingKey: Uint8Array, options?: CardOptions): Promise<void> {
  const prepared = prepare(card, signature, verifyingKey);
  const pending = backendFor(options?.backend);
  const backend = pending instanceof Promise ? await pending : pending;
  if (!(await backend.verify(prepared.key.slice(), prepared.input, prepared.signature))) {
    throw new SignatureError('card signature does not verify');
  }
}

/** {@link verifyCard}, synchronously: `node-crypto` when the process-wide choice allows it and the runtime has it, else @noble/curves. */
export function verifyCardSync(card: unknown, signature: CardSignature, verifyingKey: Uint8Array): void {
  const prepared = prepare(card, signature, verifyingKey);
  if (!syncBackendFor().verifySync(prepared.key, prepared.input, prepared.signature)) {
    throw new SignatureError('card signature does not verify');
  }
}
