// RFC 8032 strict verification (what `ed25519.verify(…, { zip215: false })` checks), with the
// per-key work done once per key instead of once per signature: the public key is decoded and
// its small-order check made once, and a key that keeps verifying gets a precomputed window
// table, which turns [k]A from ~250 doublings into ~65 table additions. Built only from
// @noble/curves' own point and scalar primitives; the differential tests hold it to
// `ed25519.verify` verdict for verdict.
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE } from '@noble/curves/utils.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { bytesEqual } from '../bytes.js';
import { wideBasePoint } from './base-point.js';

type Point = typeof ed25519.Point.BASE;
const Point = ed25519.Point;
const Fn = Point.Fn;

// A key gets its table on this many-th verification. The build costs about as much as five
// to ten verifications (more before the JIT has warmed up), so rarely used keys never pay it.
const TABLE_AFTER_USES = 16;
// W=4 keeps a table near 130-160 KB (520 points); wider windows bought little in measurement.
const TABLE_WINDOW = 4;
// At most this many keys hold a table at once (~10 MB); the least recently used loses its own.
const MAX_TABLES = 64;

interface PreparedKey {
  /** A private copy of the key bytes, to notice a caller that mutated its array. */
  readonly bytes: Uint8Array;
  /** The decoded point, or null when the key fails strict decoding or has small order. */
  readonly point: Point | null;
  uses: number;
  /** A copy of `point` holding a precomputed table, while this key is among the recent ones. */
  fast: Point | undefined;
}

const prepared = new WeakMap<Uint8Array, PreparedKey>();
const tabled = new Set<PreparedKey>();

function decodeKey(publicKey: Uint8Array): Point | null {
  try {
    const point = Point.fromBytes(publicKey, false);
    return point.isSmallOrder() ? null : point;
  } catch {
    return null;
  }
}

function preparedKey(publicKey: Uint8Array): PreparedKey {
  let key = prepared.get(publicKey);
  if (key === undefined || !bytesEqual(key.bytes, publicKey)) {
    key = { bytes: publicKey.slice(), point: decodeKey(publicKey), uses: 0, fast: undefined };
    prepared.set(publicKey, key);
  }
  return key;
}

// The point to multiply by k: the tabled copy once the key has earned one.
function multiplicand(key: PreparedKey, point: Point): Point {
  key.uses++;
  if (key.fast !== undefined) {
    // Refresh the key's place in the least-recently-used order.
    tabled.delete(key);
    tabled.add(key);
    return key.fast;
  }
  if (key.uses < TABLE_AFTER_USES) return point;
  if (tabled.size >= MAX_TABLES) {
    const oldest = tabled.values().next().value as PreparedKey;
    tabled.delete(oldest);
    oldest.fast = undefined;
  }
  key.fast = Point.fromAffine(point.toAffine()).precompute(TABLE_WINDOW, false);
  tabled.add(key);
  return key.fast;
}

/** Strict RFC 8032 Ed25519 verification; false (never a throw) for anything that does not verify. */
export function verifyStrict(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (!(publicKey instanceof Uint8Array) || !(message instanceof Uint8Array) || !(signature instanceof Uint8Array)) return false;
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  const key = preparedKey(publicKey);
  const A = key.point;
  if (A === null) return false;
  const r = signature.subarray(0, 32);
  let R: Point;
  let SB: Point;
  try {
    R = Point.fromBytes(r, false);
    // Rejects S >= L, as the library's verify does.
    SB = wideBasePoint().multiplyUnsafe(bytesToNumberLE(signature.subarray(32, 64)));
  } catch {
    return false;
  }
  // The challenge hashes the bytes as given; strict decoding above means they are canonical.
  const k = Fn.create(bytesToNumberLE(sha512.create().update(r).update(key.bytes).update(message).digest()));
  const kA = multiplicand(key, A).multiplyUnsafe(k);
  return R.add(kA).subtract(SB).clearCofactor().is0();
}

/** Test hook: how many keys hold a precomputed table right now. */
export function tabledKeyCount(): number {
  return tabled.size;
}
