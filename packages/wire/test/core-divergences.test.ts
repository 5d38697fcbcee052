import { describe, expect, it } from 'vitest';
import { divergenceProblems, loadDivergences, type Divergence, type Outcome } from './support/divergences.js';

const table: Record<string, Divergence> = {
  'public/fam/0001': { family: 'fam', name: 'quirk-a', ours: 'reject', why: 'x' },
};

describe('oracle divergence bookkeeping', () => {
  it('every entry is explained and names its family, scenario and outcome', () => {
    const entries = Object.entries(loadDivergences());
    expect(entries.length).toBeGreaterThan(0);
    for (const [id, d] of entries) {
      expect(id).toMatch(/^public\/(rejected|decode_accept|ids)\//);
      expect(d.why.length, id).toBeGreaterThan(20);
      expect(d.name.length, id).toBeGreaterThan(0);
      expect(d.ours.length, id).toBeGreaterThan(0);
    }
  });

  it('flags missing, stale and changed entries, and unlisted differences', () => {
    const out = (o: Partial<Outcome>): Outcome => ({ matches: false, ours: 'reject', name: 'quirk-a', ...o });
    expect(divergenceProblems(table, 'fam', 'public', new Map([['public/fam/0001', out({})]]))).toEqual([]);
    expect(divergenceProblems(table, 'fam', 'public', new Map())).toHaveLength(1);
    expect(divergenceProblems(table, 'fam', 'public', new Map([['public/fam/0001', out({ matches: true })]]))).toHaveLength(1);
    expect(divergenceProblems(table, 'fam', 'public', new Map([['public/fam/0001', out({ ours: 'accept' })]]))).toHaveLength(1);
    expect(
      divergenceProblems(table, 'fam', 'public', new Map([['public/fam/0001', out({})], ['public/fam/0002', out({ name: 'other' })]])),
    ).toHaveLength(1);
  });

  it('recognises the same divergence in another split by scenario name and outcome', () => {
    const out = (o: Partial<Outcome>): Outcome => ({ matches: false, ours: 'reject', name: 'quirk-a', ...o });
    expect(divergenceProblems(table, 'fam', 'hidden', new Map([['hidden/fam/0009', out({})]]))).toEqual([]);
    expect(divergenceProblems(table, 'fam', 'hidden', new Map([['hidden/fam/0009', out({ ours: 'accept' })]]))).toHaveLength(1);
    expect(divergenceProblems(table, 'fam', 'hidden', new Map([['hidden/fam/0009', out({ name: 'new' })]]))).toHaveLength(1);
  });
});
