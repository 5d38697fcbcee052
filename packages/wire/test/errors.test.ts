import { describe, expect, test } from 'vitest';
import { AgdxError, CodecError, InvalidError } from '@agdx/wire';

describe('error brand', () => {
  test('kind and instanceof follow the brand, not the prototype', () => {
    const error = new InvalidError('bad', { context: { field: 'record' } });
    expect(error.kind).toBe('invalid');
    expect(error.name).toBe('InvalidError');
    expect(error).toBeInstanceOf(AgdxError);
    expect(error).toBeInstanceOf(InvalidError);
    expect(error instanceof CodecError).toBe(false);
    expect(AgdxError.is(error, 'invalid')).toBe(true);
    expect(AgdxError.is(error, 'codec')).toBe(false);
    expect(AgdxError.is(new Error('plain'))).toBe(false);
  });

  test('an error from another copy of the package is recognised', () => {
    // Simulates a second installed copy: a foreign object carrying the global brand.
    const foreign = Object.assign(new Error('x'), { kind: 'codec' });
    Object.defineProperty(foreign, Symbol.for('agdx.error'), { value: true });
    expect(foreign instanceof CodecError).toBe(true);
    expect(foreign instanceof InvalidError).toBe(false);
    expect(AgdxError.is(foreign, 'codec')).toBe(true);
  });
});
