import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  boolHeader,
  checkHeaderValue,
  float32Header,
  float64Header,
  HEADER_KIND_CODES,
  headerBlockSize,
  headerKindFromCode,
  int128Header,
  int16Header,
  int32Header,
  int64Header,
  int8Header,
  rawHeader,
  readBoolHeader,
  readFloat32Header,
  readFloat64Header,
  readInt128Header,
  readInt16Header,
  readInt32Header,
  readInt64Header,
  readInt8Header,
  readRawHeader,
  readStringHeader,
  readUint128Header,
  readUint16Header,
  readUint32Header,
  readUint64Header,
  readUint8Header,
  stringHeader,
  uint128Header,
  uint16Header,
  uint32Header,
  uint64Header,
  uint8Header,
} from '@agdx/wire';
import { errorOf, toHex } from './extras-support/fixtures.js';

describe('Iggy header values', () => {
  test('kind codes', () => {
    expect(Object.values(HEADER_KIND_CODES)).toEqual([...Array(15).keys()].map((i) => i + 1));
    for (const [kind, code] of Object.entries(HEADER_KIND_CODES)) expect(headerKindFromCode(code)).toBe(kind);
    expect(headerKindFromCode(99)).toBeUndefined();
  });

  test('every kind round-trips, little-endian', () => {
    expect(toHex(uint32Header(1).value)).toBe('01000000');
    expect(toHex(uint128Header(0x01903c1faa0000000000000000000002n).value)).toBe('0200000000000000000000aa1f3c9001');
    expect(readRawHeader(rawHeader(Uint8Array.of(1, 2)), 'k')).toEqual(Uint8Array.of(1, 2));
    expect(readStringHeader(stringHeader('héllo'), 'k')).toBe('héllo');
    expect(readBoolHeader(boolHeader(true), 'k')).toBe(true);
    expect(readInt8Header(int8Header(-128), 'k')).toBe(-128);
    expect(readInt16Header(int16Header(-2), 'k')).toBe(-2);
    expect(readInt32Header(int32Header(-(2 ** 31)), 'k')).toBe(-(2 ** 31));
    expect(readInt64Header(int64Header(-(2n ** 63n)), 'k')).toBe(-(2n ** 63n));
    expect(readInt128Header(int128Header(-1n), 'k')).toBe(-1n);
    expect(readUint8Header(uint8Header(255), 'k')).toBe(255);
    expect(readUint16Header(uint16Header(65535), 'k')).toBe(65535);
    expect(readUint32Header(uint32Header(2 ** 32 - 1), 'k')).toBe(2 ** 32 - 1);
    expect(readUint64Header(uint64Header(2n ** 64n - 1n), 'k')).toBe(2n ** 64n - 1n);
    expect(readUint128Header(uint128Header(2n ** 128n - 1n), 'k')).toBe(2n ** 128n - 1n);
    expect(readFloat32Header(float32Header(1.5), 'k')).toBe(1.5);
    expect(readFloat64Header(float64Header(0.1), 'k')).toBe(0.1);
  });

  test('out-of-range constructors are InvalidErrors; wrong kinds or widths are CodecErrors', () => {
    expect(errorOf(() => uint8Header(256))?.class).toBe('InvalidError');
    expect(errorOf(() => int8Header(128))?.class).toBe('InvalidError');
    expect(errorOf(() => uint64Header(-1n))?.class).toBe('InvalidError');
    expect(errorOf(() => uint32Header(1.5))?.class).toBe('InvalidError');
    expect(errorOf(() => readUint32Header(uint8Header(1), 'agdx.av'))).toMatchObject({ class: 'CodecError', message: 'invalid value for header `agdx.av`' });
    expect(errorOf(() => readUint32Header({ kind: 'uint32', value: new Uint8Array(3) }, 'agdx.av'))?.class).toBe('CodecError');
    expect(errorOf(() => readBoolHeader({ kind: 'bool', value: Uint8Array.of(2) }, 'b'))?.class).toBe('CodecError');
    expect(errorOf(() => readStringHeader({ kind: 'string', value: Uint8Array.of(0xff) }, 's'))?.class).toBe('CodecError');
  });

  test('value limits and the soft-cap size formula', () => {
    expect(errorOf(() => checkHeaderValue('agdx.idem', stringHeader('')))?.message).toBe('header `agdx.idem` value must not be empty');
    expect(errorOf(() => checkHeaderValue('agdx.corr', stringHeader('c'.repeat(256))))?.message).toBe('header `agdx.corr` value is 256B, exceeds max 255B');
    expect(errorOf(() => checkHeaderValue('agdx.idem', stringHeader('a\u007fb')))?.message).toBe(
      'header `agdx.idem` value must not contain control characters or NUL',
    );
    checkHeaderValue('agdx.corr', stringHeader('c'.repeat(255)));
    expect(headerBlockSize(new Map([['agdx.av', uint32Header(1)]]))).toBe(7 + 4 + 9);
  });
});

describe('hand-written little-endian writers agree with DataView (differential)', () => {
  const le = (width: number, set: (view: DataView) => void): Uint8Array => {
    const out = new Uint8Array(width);
    set(new DataView(out.buffer));
    return out;
  };
  test('every fixed-width integer kind', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), (u, i, n) => {
        expect(uint64Header(u).value).toEqual(le(8, (v) => v.setBigUint64(0, u, true)));
        expect(int64Header(i).value).toEqual(le(8, (v) => v.setBigInt64(0, i, true)));
        expect(int32Header(n).value).toEqual(le(4, (v) => v.setInt32(0, n, true)));
        expect(uint32Header(n >>> 0).value).toEqual(le(4, (v) => v.setUint32(0, n >>> 0, true)));
        expect(int16Header(n >> 16).value).toEqual(le(2, (v) => v.setInt16(0, n >> 16, true)));
        expect(uint16Header(n & 0xffff).value).toEqual(le(2, (v) => v.setUint16(0, n & 0xffff, true)));
        expect(readUint64Header(uint64Header(u), 'k')).toBe(u);
        expect(readInt64Header(int64Header(i), 'k')).toBe(i);
      }),
      { seed: 20260601, numRuns: 500 },
    );
  });
});
