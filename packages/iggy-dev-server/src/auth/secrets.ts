/**
 * Password and token secrets. Passwords are stored as salted scrypt hashes and tokens as
 * SHA-256 digests (as Iggy stores them), so neither `users.json` nor a heap dump reveals a
 * credential. The raw token is 50 random bytes in base64, Iggy's format, and leaves the server
 * exactly once: in the CreatePersonalAccessToken reply.
 */

import { createHash, randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';

// A low scrypt cost keeps logins in a test suite fast; this is a development server, and the
// hash exists so the data folder holds no plain passwords, not to resist offline cracking.
const COST = 1024;
const KEY_BYTES = 32;
const PREFIX = 'scrypt';

/** Hashes a password as `scrypt$<cost>$<salt b64>$<hash b64>`. */
export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, KEY_BYTES, { N: COST });
  return `${PREFIX}$${COST}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** True when `password` matches a hash made by {@link hashPassword}; a malformed hash never matches. */
export function verifyPassword(password: string, stored: string): boolean {
  const [prefix, cost, salt, hash] = stored.split('$');
  const n = Number(cost);
  if (prefix !== PREFIX || salt === undefined || hash === undefined || !Number.isInteger(n) || n < 2 || n > 1 << 20) return false;
  const expected = Buffer.from(hash, 'base64');
  if (expected.length !== KEY_BYTES) return false;
  const actual = scryptSync(password, Buffer.from(salt, 'base64'), KEY_BYTES, { N: n });
  return timingSafeEqual(actual, expected);
}

/** The SHA-256 hex digest under which a raw token is stored and looked up. */
export function hashToken(raw: string): string {
  return createHash('sha256').update(raw, 'utf8').digest('hex');
}

/** A fresh raw token (50 random bytes, base64) and its digest. */
export function mintToken(): { readonly raw: string; readonly hash: string } {
  const raw = randomBytes(50).toString('base64');
  return { raw, hash: hashToken(raw) };
}
