import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  copyRecordHeaders,
  HEADER_KIND_CODES,
  HEADER_KINDS,
  headerValue,
  InvalidArgumentError,
  readHeaderValue,
  TransportError,
  type HeaderValue,
} from '@agdx/transport';

function hex(h: HeaderValue): string {
  return [...h.value].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function expectInvalid(action: () => unknown): void {
  try {
    action();
  } catch (error) {
    expect(TransportError.is(error, 'invalid'), String(error)).toBe(true);
    return;
  }
  expect.fail('expected an invalid error');
}

describe('header kinds', () => {
  it('carries the fifteen Iggy kind codes in order', () => {
    expect(HEADER_KINDS).toHaveLength(15);
    expect(HEADER_KINDS.map((k) => HEADER_KIND_CODES[k])).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
  });
});

describe('headerValue builders', () => {
  it('write numbers little-endian at their exact widths', () => {
    expect(hex(headerValue.uint32(1))).toBe('01000000');
    expect(hex(headerValue.int16(-2))).toBe('feff');
    expect(hex(headerValue.int8(-1))).toBe('ff');
    expect(hex(headerValue.uint16(0x1234))).toBe('3412');
    expect(hex(headerValue.int32(-2147483648))).toBe('00000080');
    expect(hex(headerValue.int64(1n))).toBe('0100000000000000');
    expect(hex(headerValue.uint64(2n ** 64n - 1n))).toBe('ffffffffffffffff');
    expect(hex(headerValue.int128(-5n))).toBe(`fb${'ff'.repeat(15)}`);
    expect(hex(headerValue.uint128(1n << 120n))).toBe(`${'00'.repeat(15)}01`);
    expect(hex(headerValue.float32(1.5))).toBe('0000c03f');
    expect(hex(headerValue.float64(1.5))).toBe('000000000000f83f');
    expect(hex(headerValue.bool(true))).toBe('01');
    expect(hex(headerValue.string('x'))).toBe('78');
    expect(headerValue.int64(5).value).toEqual(headerValue.int64(5n).value);
  });

  it('copies raw bytes', () => {
    const bytes = Uint8Array.of(1, 2, 3);
    const h = headerValue.raw(bytes);
    bytes[0] = 9;
    expect([...h.value]).toEqual([1, 2, 3]);
  });

  it('reject bad input with typed errors only', () => {
    expectInvalid(() => headerValue.string(''));
    expectInvalid(() => headerValue.string('a'.repeat(256)));
    expectInvalid(() => headerValue.string('\ud800'));
    expectInvalid(() => headerValue.string(42 as unknown as string));
    expectInvalid(() => headerValue.raw(new Uint8Array(0)));
    expectInvalid(() => headerValue.raw('abc' as unknown as Uint8Array));
    expectInvalid(() => headerValue.bool(1 as unknown as boolean));
    expectInvalid(() => headerValue.int8(128));
    expectInvalid(() => headerValue.uint16(-1));
    expectInvalid(() => headerValue.uint32(2 ** 32));
    expectInvalid(() => headerValue.int32(Number.NaN));
    expectInvalid(() => headerValue.int64(2n ** 63n));
    expectInvalid(() => headerValue.int64(2 ** 60));
    expectInvalid(() => headerValue.uint128(-1n));
    expectInvalid(() => headerValue.float64('1' as unknown as number));
    expect(headerValue.string('a'.repeat(255)).value).toHaveLength(255);
  });
});

describe('readHeaderValue', () => {
  it('round-trips every integer kind over its whole range (property)', () => {
    const cases: Array<[keyof typeof headerValue, number, boolean]> = [
      ['int8', 8, true],
      ['int16', 16, true],
      ['int32', 32, true],
      ['uint8', 8, false],
      ['uint16', 16, false],
      ['uint32', 32, false],
    ];
    for (const [kind, bits, signed] of cases) {
      const min = signed ? -(2 ** (bits - 1)) : 0;
      const max = signed ? 2 ** (bits - 1) - 1 : 2 ** bits - 1;
      fc.assert(
        fc.property(fc.integer({ min, max }), (n) => {
          expect(readHeaderValue((headerValue[kind] as (v: number) => HeaderValue)(n))).toBe(n);
        }),
      );
    }
    const wide: Array<[keyof typeof headerValue, number, boolean]> = [
      ['int64', 64, true],
      ['int128', 128, true],
      ['uint64', 64, false],
      ['uint128', 128, false],
    ];
    for (const [kind, bits, signed] of wide) {
      const min = signed ? -(1n << BigInt(bits - 1)) : 0n;
      const max = signed ? (1n << BigInt(bits - 1)) - 1n : (1n << BigInt(bits)) - 1n;
      fc.assert(
        fc.property(fc.bigInt({ min, max }), (n) => {
          expect(readHeaderValue((headerValue[kind] as (v: bigint) => HeaderValue)(n))).toBe(n);
        }),
      );
    }
  });

  it('agrees with DataView for 64-bit values and with two halves for 128-bit values', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }), (n) => {
        const view = new DataView(new ArrayBuffer(8));
        view.setBigInt64(0, n, true);
        expect(headerValue.int64(n).value).toEqual(new Uint8Array(view.buffer));
      }),
    );
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), (n) => {
        const view = new DataView(new ArrayBuffer(16));
        view.setBigUint64(0, n & ((1n << 64n) - 1n), true);
        view.setBigUint64(8, n >> 64n, true);
        expect(headerValue.uint128(n).value).toEqual(new Uint8Array(view.buffer));
      }),
    );
  });

  it('round-trips floats, strings, bools and raw bytes', () => {
    fc.assert(
      fc.property(fc.double(), (x) => {
        expect(Object.is(readHeaderValue(headerValue.float64(x)), x)).toBe(true);
      }),
    );
    fc.assert(
      fc.property(fc.float(), (x) => {
        expect(Object.is(readHeaderValue(headerValue.float32(x)), x)).toBe(true);
      }),
    );
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 60, unit: 'binary' }), (s) => {
        expect(readHeaderValue(headerValue.string(s))).toBe(s);
      }),
    );
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 255 }), (bytes) => {
        expect(readHeaderValue(headerValue.raw(bytes))).toEqual(bytes);
      }),
    );
    expect(readHeaderValue(headerValue.bool(false))).toBe(false);
  });

  it('rejects malformed values with typed errors and never anything else (property)', () => {
    expectInvalid(() => readHeaderValue({ kind: 'string', value: Uint8Array.of(0xff) }));
    expectInvalid(() => readHeaderValue({ kind: 'bool', value: Uint8Array.of(2) }));
    expectInvalid(() => readHeaderValue({ kind: 'int64', value: new Uint8Array(7) }));
    expectInvalid(() => readHeaderValue({ kind: 'bogus' as 'raw', value: Uint8Array.of(1) }));
    expectInvalid(() => readHeaderValue(null as unknown as HeaderValue));
    expectInvalid(() => readHeaderValue({ kind: 'raw', value: [1] as unknown as Uint8Array }));
    fc.assert(
      fc.property(fc.constantFrom(...HEADER_KINDS, 'other'), fc.uint8Array({ maxLength: 300 }), (kind, value) => {
        try {
          readHeaderValue({ kind: kind as 'raw', value });
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidArgumentError);
        }
      }),
    );
  });
});

describe('copyRecordHeaders', () => {
  it('deep-copies and enforces the 100,000-byte block limit', () => {
    const value = headerValue.raw(Uint8Array.of(1));
    const copy = copyRecordHeaders(new Map([['k', value]]));
    (value.value as Uint8Array)[0] = 7;
    expect(copy.get('k')?.value[0]).toBe(1);
    const big = new Map(Array.from({ length: 400 }, (_, i) => [`key-${i}`, headerValue.raw(new Uint8Array(255))] as const));
    expectInvalid(() => copyRecordHeaders(big));
    expectInvalid(() => copyRecordHeaders({} as never));
  });
});

describe('errors', () => {
  it('are branded, non-enumerably, and recognised across copies by brand and kind', () => {
    const error = new InvalidArgumentError('bad', { context: { field: 'x' } });
    expect(error.kind).toBe('invalid');
    expect(error.name).toBe('InvalidArgumentError');
    expect(Object.keys(error)).not.toContain(Symbol.for('agdx.error'));
    expect(Object.getOwnPropertyDescriptor(error, Symbol.for('agdx.error'))?.enumerable).toBe(false);
    expect(TransportError.is(error)).toBe(true);
    expect(TransportError.is(error, 'invalid')).toBe(true);
    expect(TransportError.is(error, 'closed')).toBe(false);
    expect(error).toBeInstanceOf(TransportError);
    const foreign = Object.defineProperty(new Error('from another copy'), Symbol.for('agdx.error'), { value: true });
    Object.assign(foreign, { kind: 'invalid' });
    expect(foreign instanceof InvalidArgumentError).toBe(true);
    expect(foreign instanceof TransportError).toBe(true);
    expect(new Error('plain') instanceof TransportError).toBe(false);
    expect(TransportError.is(null)).toBe(false);
  });
});
