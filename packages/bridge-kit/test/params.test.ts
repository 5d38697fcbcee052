import { describe, expect, it } from 'vitest';
import { parseWith, publicErrorData, rpcErrorFor } from '@agdx/bridge-kit';
import { AgdxError, CodecError, InvalidError } from '@agdx/wire';
import { z } from 'zod';

const Call = z.looseObject({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()).optional(), limit: z.number().int().optional() });

describe('parseWith: zod at an untrusted JSON boundary', () => {
  it('returns the parsed value and keeps members it does not read', () => {
    expect(parseWith(Call, { name: 'ask', _meta: { progressToken: 1 } }, 'tools/call params')).toEqual({ name: 'ask', _meta: { progressToken: 1 } });
  });

  it('throws an InvalidError naming the first failing field by its dotted path', () => {
    const error = (() => {
      try {
        parseWith(z.looseObject({ message: z.looseObject({ parts: z.array(z.looseObject({ text: z.string() })) }) }), { message: { parts: [{ text: 1 }] } }, 'SendMessage params');
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(AgdxError.is(error, 'invalid')).toBe(true);
    expect((error as InvalidError).context).toMatchObject({ field: 'message.parts.0.text', reason: expect.stringContaining('expected string') });
    expect((error as InvalidError).message).toContain('SendMessage params: message.parts.0.text');
  });

  it('names the params themselves when the root is wrong, and survives a throwing refinement', () => {
    expect(() => parseWith(Call, 'nope', 'p')).toThrow(expect.objectContaining({ kind: 'invalid', context: expect.objectContaining({ field: 'params' }) }));
    const hostile = z.unknown().refine(() => {
      throw new TypeError('boom');
    });
    expect(() => parseWith(hostile, 1, 'p')).toThrow(InvalidError);
  });
});

describe('publicErrorData: only the client’s own field ever reaches the error data', () => {
  it('is set for a refused field and absent for everything else', () => {
    expect(publicErrorData(new InvalidError('x', { context: { field: 'arguments.q', reason: 'required' } }))).toEqual({ field: 'arguments.q', reason: 'required' });
    expect(publicErrorData(new InvalidError('x'))).toBeUndefined();
    expect(publicErrorData(new CodecError('x', { context: { field: 'body' } }))).toBeUndefined();
    expect(publicErrorData(new Error('secret'))).toBeUndefined();
    expect((publicErrorData(new InvalidError('x', { context: { field: 'f', reason: 'r'.repeat(1000) } }))?.reason ?? '').length).toBe(200);
  });

  it('rpcErrorFor carries the fixed message and the data', () => {
    expect(rpcErrorFor(3, new InvalidError('x', { context: { field: 'id' } }))).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32000, message: 'invalid request', data: { field: 'id' } } });
    expect(rpcErrorFor(3, new Error('secret'))).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32000, message: 'internal error' } });
  });
});
