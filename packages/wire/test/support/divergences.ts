import { readFileSync } from 'node:fs';
import { expect } from 'vitest';

/** One deliberate difference from reference 0.1.1. */
export interface Divergence {
  /** Oracle family the case belongs to. */
  family: string;
  /** The case's scenario name, stable across fixture splits. */
  name: string;
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

/** One case's outcome as a family test computed it. */
export interface Outcome {
  /** True when we reproduce the reference result. */
  matches: boolean;
  /** Our outcome, in the family's outcome notation. */
  ours: string;
  /** The case's stable scenario name (the same across fixture splits). */
  name: string;
}

/**
 * Checks one family's outcomes against the expectations file: every case we do not match must be
 * listed with exactly our outcome, and every listed case of this split must exist and still differ
 * (no stale entries). Entries are keyed by the public split's case ids; a case of another split
 * (the held-back one) that differs is accepted when a listed case of the same family has the same
 * scenario name and the same outcome.
 */
export function checkDivergences(family: string, split: string, outcomes: Map<string, Outcome>): void {
  expect(divergenceProblems(loadDivergences(), family, split, outcomes)).toEqual([]);
}

/** The problems {@link checkDivergences} reports, for a given expectations table. */
export function divergenceProblems(
  table: Record<string, Divergence>,
  family: string,
  split: string,
  outcomes: Map<string, Outcome>,
): string[] {
  const all = Object.entries(table).filter(([, d]) => d.family === family);
  const listed = all.filter(([id]) => id.startsWith(`${split}/`));
  const problems: string[] = [];
  for (const [id, d] of listed) {
    const got = outcomes.get(id);
    if (got === undefined) problems.push(`${id}: listed but no such case in ${family}`);
    else if (got.matches) problems.push(`${id}: listed but we now match the reference`);
    else if (got.ours !== d.ours) problems.push(`${id}: listed as "${d.ours}" but we do "${got.ours}"`);
  }
  const listedIds = new Set(listed.map(([id]) => id));
  for (const [id, o] of outcomes) {
    if (o.matches || listedIds.has(id)) continue;
    const twin = all.some(([, d]) => d.name === o.name && d.ours === o.ours);
    if (!twin || split === 'public') problems.push(`${id}: we differ (${o.ours}) but the case is not listed`);
  }
  return problems;
}
