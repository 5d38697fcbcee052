import { IggyCodecError, IggyError, IggyEvictionError, IggyIntegrityError, IggyInvalidError, IGGY_ERROR_CODES } from '@agdx/iggy-protocol';
import { ConflictError, InvalidArgumentError, NotFoundError, TransportError, TransportFailureError } from '@agdx/transport';
import { iggyCodeOf, kindOfIggyCode, toTransportError } from '@agdx/transport-iggy';
import { describe, expect, it } from 'vitest';

describe('Iggy error codes map to transport kinds', () => {
  const expected: ReadonlyArray<readonly [number, string]> = [
    [20, 'not-found'],
    [1009, 'not-found'],
    [2010, 'not-found'],
    [3007, 'not-found'],
    [3008, 'not-found'],
    [5000, 'not-found'],
    [3, 'invalid'],
    [4100, 'invalid'],
    [1013, 'invalid'],
    [2014, 'invalid'],
    [4022, 'invalid'],
    [5005, 'invalid'],
    [50, 'invalid'],
    [46, 'conflict'],
    [48, 'conflict'],
    [49, 'conflict'],
    [51, 'conflict'],
    [41, 'transport'],
    [1012, 'conflict'],
    [2013, 'conflict'],
    [5004, 'conflict'],
    [5009, 'conflict'],
    [40, 'transport'],
    [42, 'transport'],
    [57, 'transport'],
    [3021, 'transport'],
    [999_999, 'transport'],
  ];
  for (const [code, kind] of expected) {
    it(`${code} → ${kind}`, () => {
      expect(kindOfIggyCode(code)).toBe(kind);
      const mapped = toTransportError(new IggyError(code), { command: 100 });
      expect(mapped.kind).toBe(kind);
      expect(TransportError.is(mapped, kind as never)).toBe(true);
      expect(mapped.context).toMatchObject({ iggyCode: code, command: 100 });
      expect(iggyCodeOf(mapped)).toBe(code);
    });
  }

  it('every code in the protocol table maps to a transport kind', () => {
    for (const code of Object.keys(IGGY_ERROR_CODES).map(Number)) {
      expect(['not-found', 'invalid', 'conflict', 'transport']).toContain(toTransportError(new IggyError(code)).kind);
    }
  });

  it('class checks work on mapped errors', () => {
    expect(toTransportError(new IggyError(1009))).toBeInstanceOf(NotFoundError);
    expect(toTransportError(new IggyError(4100))).toBeInstanceOf(InvalidArgumentError);
    expect(toTransportError(new IggyError(2013))).toBeInstanceOf(ConflictError);
  });
});

describe('other failures', () => {
  it('an eviction becomes a transport error with its reason', () => {
    const mapped = toTransportError(new IggyEvictionError(9, 'InvalidCredentials', 42));
    expect(mapped).toBeInstanceOf(TransportFailureError);
    expect(mapped.context).toMatchObject({ iggyCode: 42, evictionReason: 9 });
  });

  it('malformed bytes become transport errors, refused arguments invalid errors', () => {
    expect(toTransportError(new IggyCodecError('truncated')).kind).toBe('transport');
    expect(toTransportError(new IggyIntegrityError('bad checksum')).kind).toBe('transport');
    expect(toTransportError(new IggyInvalidError('name too long')).kind).toBe('invalid');
  });

  it('transport errors pass through unchanged', () => {
    const error = new NotFoundError('x');
    expect(toTransportError(error)).toBe(error);
    const invalid = new InvalidArgumentError('y');
    expect(toTransportError(invalid)).toBe(invalid);
  });

  it('socket errors and anything else become transport errors', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const mapped = toTransportError(refused);
    expect(mapped.kind).toBe('transport');
    expect(mapped.context).toMatchObject({ errno: 'ECONNREFUSED' });
    expect(toTransportError('weird').kind).toBe('transport');
    expect(toTransportError(undefined).kind).toBe('transport');
  });
});
