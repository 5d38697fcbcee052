import { describe, expect, it } from 'vitest';
import { BRIDGE_APP_ERROR_CODE, parseRpcRequest, PublicErrorMessage, publicErrorMessage, readJsonBody, rpcError, safeRequestId } from '@agdx/bridge-kit';
import { InvalidError } from '@agdx/wire';

describe('JSON-RPC plumbing', () => {
  it('errors carry the application code and one of the fixed public messages', () => {
    expect(rpcError(7, PublicErrorMessage.NotFound)).toEqual({ jsonrpc: '2.0', id: 7, error: { code: BRIDGE_APP_ERROR_CODE, message: PublicErrorMessage.NotFound } });
    // Internal detail never leaks into the public message.
    expect(Object.values(PublicErrorMessage)).toContain(publicErrorMessage(new Error('secret detail')));
    expect(Object.values(PublicErrorMessage)).toContain(publicErrorMessage(new InvalidError('bad field')));
  });

  it('parses only well-formed single requests; ids are taken only when valid', () => {
    expect(parseRpcRequest({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: {} })).toMatchObject({ id: 1, method: 'GetTask' });
    for (const bad of [null, [], 'x', { jsonrpc: '1.0', id: 1, method: 'm' }, { jsonrpc: '2.0', id: 1 }, [{ jsonrpc: '2.0', id: 1, method: 'm' }]]) {
      expect(parseRpcRequest(bad)).toBeUndefined();
    }
    expect(safeRequestId({ id: { nested: true } })).toBeNull();
  });

  it('reads a JSON body under the size cap and refuses another media type, non-JSON or too large', async () => {
    const text = await readJsonBody(new Request('http://x/', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' }), 1024);
    expect(text.ok === false && text.response.status).toBe(415);
    const ok = await readJsonBody(new Request('http://x/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' }), 1024);
    expect(ok).toEqual({ ok: true, value: { a: 1 } });
    const notJson = await readJsonBody(new Request('http://x/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'nope' }), 1024);
    expect(notJson.ok).toBe(false);
    if (!notJson.ok) expect(notJson.response.status).toBeGreaterThanOrEqual(400);
    const tooLarge = await readJsonBody(new Request('http://x/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pad: 'x'.repeat(2000) }) }), 1024);
    expect(tooLarge.ok).toBe(false);
    if (!tooLarge.ok) expect(tooLarge.response.status).toBe(413);
  });
});
