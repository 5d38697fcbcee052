import { authenticateRequest, authorizeRequest, type EdgeAuthorization } from '@agdx/bridge-kit';
import type { EdgeClaims } from '@agdx/agents';
import { describe, expect, it } from 'vitest';

const request = (): Request => new Request('http://127.0.0.1/rpc', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });

/** An authorization whose hook hands over `claims` as a token layer might decode them. */
function hook(claims: unknown, scope: EdgeAuthorization['scope'] = 'tool:write'): EdgeAuthorization {
  return { audience: 'api.example.com', scope, claims: () => claims as EdgeClaims };
}

describe('edge authorization claims', () => {
  it('refuses a token audience or scope handed over as one string, which would match by substring', async () => {
    // A JWT's `aud` may be one string and its OAuth `scope` is one space-separated string.
    const lookalikes = [
      { audience: 'api.example.com.evil', scopes: ['tool:write'] },
      { audience: ['api.example.com'], scopes: 'tool:writer admin' },
      { audience: 'api.example.com', scopes: 'tool:write' },
    ];
    for (const claims of lookalikes) {
      expect((await authenticateRequest(hook(claims), request()))?.status).toBe(401);
      expect((await authorizeRequest(hook(claims, () => 'tool:write'), request(), 'tools/call', 1))?.status).toBe(401);
    }
  });

  it('answers claims of another shape (no scopes, not an object) with 401 rather than an error', async () => {
    for (const claims of [{ audience: ['api.example.com'] }, 'api.example.com', 42, { audience: [1], scopes: [] }]) {
      expect((await authenticateRequest(hook(claims), request()))?.status).toBe(401);
      expect((await authorizeRequest(hook(claims, () => 'tool:write'), request(), 'tools/call', 1))?.status).toBe(401);
    }
  });

  it('lets well-formed claims through, and asks for the step-up of a missing scope', async () => {
    expect(await authenticateRequest(hook({ audience: ['api.example.com'], scopes: ['tool:write'] }), request())).toBeUndefined();
    const stepUp = await authenticateRequest(hook({ audience: ['api.example.com'], scopes: ['tool:read'] }), request());
    expect(stepUp?.status).toBe(403);
    expect(stepUp?.headers.get('www-authenticate')).toBe('Bearer scope="tool:write"');
  });
});
