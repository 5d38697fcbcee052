import { describe, expect, it } from 'vitest';
import { IggyCodecError, IggyError, IggyEvictionError, IggyIntegrityError, IggyInvalidError, IggyProtocolError, iggyErrorName } from '@agdx/iggy-protocol';

const BRAND = Symbol.for('agdx.error');

describe('error model', () => {
  it('brands every error with a non-enumerable global symbol and a stable kind', () => {
    const e = new IggyCodecError('x');
    expect((e as unknown as Record<symbol, unknown>)[BRAND]).toBe(true);
    expect(Object.keys(e)).not.toContain(BRAND.toString());
    expect(Object.getOwnPropertyDescriptor(e, BRAND)?.enumerable).toBe(false);
    expect(e.kind).toBe('codec');
    expect(new IggyInvalidError('x').kind).toBe('invalid');
    expect(new IggyIntegrityError('x').kind).toBe('integrity');
    expect(new IggyError(1009).kind).toBe('rejected');
  });

  it('is() and instanceof check brand plus kind, across copies', () => {
    const foreign = Object.defineProperty(Object.assign(new Error('other copy'), { kind: 'codec' }), BRAND, { value: true });
    expect(foreign).toBeInstanceOf(IggyCodecError);
    expect(foreign).toBeInstanceOf(IggyProtocolError);
    expect(foreign).not.toBeInstanceOf(IggyInvalidError);
    expect(IggyProtocolError.is(foreign, 'codec')).toBe(true);
    expect(IggyProtocolError.is(foreign, 'invalid')).toBe(false);
    expect(IggyProtocolError.is(new Error('plain'))).toBe(false);
    expect(new RangeError('x')).not.toBeInstanceOf(IggyProtocolError);
  });

  it('IggyError carries the code and its name', () => {
    const e = new IggyError(5000);
    expect(e.code).toBe(5000);
    expect(e.codeName).toBe('ConsumerGroupIdNotFound');
    expect(e.message).toContain('5000');
    expect(iggyErrorName(12345)).toBe('Unknown(12345)');
    const ev = new IggyEvictionError(13, 'StaleClient', 30);
    expect(ev).toBeInstanceOf(IggyError);
    expect(ev.codeName).toBe('StaleClient');
    expect(ev.name).toBe('IggyEvictionError');
  });
});
