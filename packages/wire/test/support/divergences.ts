import { readFileSync } from 'node:fs';
import { expect } from 'vitest';

/** One deliberate difference from reference 0.1.1. */
export interface Divergence {
  /** Oracle family the case belongs to. */
  family: string;
  /** What we do instead, as the outcome string the family test computes. */
  ours: string;
  /** Why (which seed / doc rule we follow instead). */
  why: string;
}

const FILE = new URL('../expectations/oracle-divergences.json', import.meta.url);

/** The committed expectations file: case id → divergence. */
export function loadDivergences(): Record<string, Divergence> {
  const json = JSON.parse(readFileSync(FILE, 'utf8')) as { cases: Record<string, Divergence> };
  return json.cases;
}

/**
 * Checks one family's outcomes against the expectations file: every case we do not match must be
 * listed with exactly our outcome, and every listed case of the family must exist and still differ
 * (no stale entries).
 */
export function checkDivergences(family: string, outcomes: Map<string, { matches: boolean; ours: string }>): void {
  const listed = Object.entries(loadDivergences()).filter(([, d]) => d.family === family);
  const problems: string[] = [];
  for (const [id, d] of listed) {
    const got = outcomes.get(id);
    if (got === undefined) problems.push(`${id}: listed but no such case in ${family}`);
    else if (got.matches) problems.push(`${id}: listed but we now match the reference`);
    else if (got.ours !== d.ours) problems.push(`${id}: listed as "${d.ours}" but we do "${got.ours}"`);
  }
  const listedIds = new Set(listed.map(([id]) => id));
  for (const [id, o] of outcomes) {
    if (!o.matches && !listedIds.has(id)) problems.push(`${id}: we differ (${o.ours}) but the case is not listed`);
  }
  expect(problems).toEqual([]);
}
