/**
 * Personal access token commands: GetPersonalAccessTokens (41), CreatePersonalAccessToken (42)
 * and DeletePersonalAccessToken (43), identical in both generations
 * (`core/binary_protocol/src/requests/personal_access_tokens`, `responses/personal_access_tokens`).
 * Logging in with a token is LoginWithPersonalAccessToken (44, classic) or the Register body of
 * code 45 (VSR); both live in `login.ts`. Requests ignore trailing bytes, as Iggy's decoders do.
 */

import { ByteReader } from '../internal/byte-reader.js';
import { ByteWriter } from '../internal/byte-writer.js';
import { checkU64, wireNameBytes, wireNameOnly } from '../internal/checks.js';

/** Token expiry that asks for the server's default lifetime. */
export const TOKEN_EXPIRY_SERVER_DEFAULT = 0n;

/** Token expiry meaning "never expires" (u64::MAX). */
export const TOKEN_EXPIRY_NEVER: bigint = 0xffff_ffff_ffff_ffffn;

/** CreatePersonalAccessToken (42) request. */
export interface CreateTokenRequest {
  /** The token's name, unique per user (1..255 bytes). */
  readonly name: string;
  /**
   * Lifetime in µs: {@link TOKEN_EXPIRY_SERVER_DEFAULT} (0) for the server's default,
   * {@link TOKEN_EXPIRY_NEVER} for no expiry.
   */
  readonly expiry: bigint;
}

/** Encodes `[name WireName][expiry u64]`. */
export function encodeCreateTokenRequest(req: CreateTokenRequest): Uint8Array {
  const w = new ByteWriter(32);
  const name = wireNameBytes(req.name, 'name');
  w.u8(name.length).bytes(name).u64(checkU64(req.expiry, 'expiry'));
  return w.finish().slice();
}

/** Decodes a CreatePersonalAccessToken request. */
export function decodeCreateTokenRequest(payload: Uint8Array): CreateTokenRequest {
  const r = new ByteReader(payload, 'CreatePersonalAccessToken');
  const name = r.wireName('name');
  return { name, expiry: r.u64('expiry') };
}

/** DeletePersonalAccessToken (43) request. */
export interface DeleteTokenRequest {
  /** The token's name. */
  readonly name: string;
}

/** Encodes `[name WireName]`. */
export function encodeDeleteTokenRequest(req: DeleteTokenRequest): Uint8Array {
  return wireNameOnly(req.name, 'name');
}

/** Decodes a DeletePersonalAccessToken request. */
export function decodeDeleteTokenRequest(payload: Uint8Array): DeleteTokenRequest {
  const r = new ByteReader(payload, 'DeletePersonalAccessToken');
  return { name: r.wireName('name') };
}

/** Encodes the CreatePersonalAccessToken reply: the raw token, shown once, as `[token WireName]`. */
export function encodeRawTokenReply(token: string): Uint8Array {
  return wireNameOnly(token, 'token');
}

/** Decodes the CreatePersonalAccessToken reply into the raw token. */
export function decodeRawTokenReply(payload: Uint8Array): string {
  const r = new ByteReader(payload, 'raw token reply');
  const token = r.wireName('token');
  r.end();
  return token;
}

/** A token as GetPersonalAccessTokens lists it (never the token itself). */
export interface TokenInfo {
  /** The token's name. */
  readonly name: string;
  /** When it expires, µs since the epoch; `undefined` when it never does (0 on the wire). */
  readonly expiresAt: bigint | undefined;
}

/** Encodes a GetPersonalAccessTokens reply: `[name WireName][expiry_at u64]` back to back. */
export function encodeTokenList(tokens: readonly TokenInfo[]): Uint8Array {
  const w = new ByteWriter(64);
  for (const t of tokens) {
    const name = wireNameBytes(t.name, 'name');
    w.u8(name.length).bytes(name).u64(t.expiresAt === undefined ? 0n : checkU64(t.expiresAt, 'expiresAt'));
  }
  return w.finish().slice();
}

/** Decodes a GetPersonalAccessTokens reply. */
export function decodeTokenList(payload: Uint8Array): TokenInfo[] {
  const r = new ByteReader(payload, 'GetPersonalAccessTokens');
  const out: TokenInfo[] = [];
  while (r.remaining > 0) {
    const name = r.wireName('name');
    const at = r.u64('expiresAt');
    out.push({ name, expiresAt: at === 0n ? undefined : at });
  }
  return out;
}
