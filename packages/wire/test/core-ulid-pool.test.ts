// The platform ULID source draws its randomness a pool at a time, and minting reuses the
// generator's own bytes: neither may hand the same random bytes out twice or let one id's bytes
// leak into another's.
import { CorrelationId, encodeCrockford, MintUlid, RecordId, systemUlidSource, UlidGenerator } from '@agdx/wire';
import { afterEach, describe, expect, it } from 'vitest';

const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

describe('pooled ULID randomness', () => {
  afterEach(() => MintUlid.setSource(undefined));

  it('never repeats a draw across many pool refills, whatever the sizes asked for', () => {
    const seen = new Set<string>();
    // 10-byte draws (what a mint asks for) and odd sizes that straddle the pool boundary.
    for (let i = 0; i < 3_000; i++) {
      const bytes = new Uint8Array(i % 7 === 0 ? 33 : 10);
      systemUlidSource.fillRandom(bytes);
      const text = hex(bytes);
      expect(seen.has(text)).toBe(false);
      seen.add(text);
    }
  });

  it('fills a request larger than the pool straight from the platform', () => {
    const big = new Uint8Array(10_000);
    systemUlidSource.fillRandom(big);
    // 10,000 random bytes are not all zero (odds of failing: 2^-80000).
    expect(big.some((b) => b !== 0)).toBe(true);
    // And not a repeated pool: the two halves differ.
    expect(hex(big.subarray(0, 5_000))).not.toBe(hex(big.subarray(5_000)));
  });

  it('a minted id keeps its value when later ids are minted', () => {
    const first = MintUlid.mint(RecordId);
    const text = first.toString();
    const value = first.toBigInt();
    const later = Array.from({ length: 500 }, () => MintUlid.mint(CorrelationId));
    expect(first.toString()).toBe(text);
    expect(first.toBigInt()).toBe(value);
    for (let i = 1; i < later.length; i++) expect(later[i]!.toBigInt() > later[i - 1]!.toBigInt()).toBe(true);
  });

  it('UlidGenerator.next() returns a fresh array each call', () => {
    const gen = new UlidGenerator({ nowMilliseconds: () => 1_700_000_000_000, fillRandom: (b) => b.fill(7) });
    const a = gen.next();
    const copy = a.slice();
    a.fill(0);
    const b = gen.next();
    expect(b).not.toBe(a);
    // b follows the untouched previous value (+1 within the millisecond), not the caller's edit.
    expect(BigInt(`0x${hex(b)}`)).toBe(BigInt(`0x${hex(copy)}`) + 1n);
  });

  it('id text matches a reference base32 encoding of the value', () => {
    const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
    for (let i = 0; i < 300; i++) {
      const id = MintUlid.mint(RecordId);
      let v = id.toBigInt();
      let expected = '';
      for (let k = 0; k < 26; k++) {
        expected = alphabet[Number(v & 31n)] + expected;
        v >>= 5n;
      }
      expect(id.toString()).toBe(expected);
      expect(encodeCrockford(id.toBytes())).toBe(expected);
    }
  });
});
