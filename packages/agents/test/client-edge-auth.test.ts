/** oracle/edge_auth.json: authorizeEdge, edgeDenialCode and edgeDenialChallenge, driven by the data. */
import { describe, expect, it } from 'vitest';
import { authorizeEdge, edgeDenialChallenge, edgeDenialCode, edgeDenialStatus } from '@agdx/agents';
import { loadFixture } from './support-client/fixtures.js';

interface EdgeCase {
  id: string;
  claims: { audience: string[]; scopes: string[] };
  expected_audience: string;
  required_scope: string;
  denial: { kind: string; expected?: string; requiredScope?: string } | null;
  error_code?: { kind: string; name: string };
  challenge?: string | null;
}

const file = loadFixture<{ reference: { package: string; version: string }; cases: EdgeCase[] }>('oracle/edge_auth.json');

describe('oracle edge_auth.json', () => {
  it('is the 0.1.1 reference file', () => {
    expect(file.reference.version).toBe('0.1.1');
    expect(file.cases.length).toBeGreaterThan(0);
  });

  for (const c of file.cases) {
    it(c.id, () => {
      const denial = authorizeEdge(c.claims, c.expected_audience, c.required_scope);
      expect(denial ?? null).toEqual(c.denial);
      if (denial === undefined) return;
      expect(edgeDenialCode(denial)).toEqual(c.error_code);
      expect(edgeDenialChallenge(denial) ?? null).toEqual(c.challenge ?? null);
      // A wrong audience is a hard reject (401, no challenge); a missing scope is a step-up (403).
      expect(edgeDenialStatus(denial)).toBe(denial.kind === 'wrongAudience' ? 401 : 403);
    });
  }

  it('matches the seed 002 example', () => {
    const denial = authorizeEdge({ audience: ['agents.example'], scopes: ['tool:read'] }, 'agents.example', 'tool:write');
    expect(denial).toEqual({ kind: 'stepUp', requiredScope: 'tool:write' });
    if (denial !== undefined) expect(edgeDenialChallenge(denial)).toBe('Bearer scope="tool:write"');
  });
});
