/**
 * Size budgets: each neutral package's browser entry and "only encodeEnvelope" must stay within
 * size-budget.json. The figures are written to bench/results/size.json on every run. A change that
 * needs more raises the budget in the same commit, on purpose.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { measureAll, NEUTRAL_PACKAGES, root, type SizeEntry } from './measure.js';

interface Budget {
  readonly gzippedBytes: Record<string, number>;
}

const budget = JSON.parse(readFileSync(`${root}size-budget.json`, 'utf8')) as Budget;
let entries: SizeEntry[] = [];

beforeAll(async () => {
  const missing = NEUTRAL_PACKAGES.filter((pkg) => !existsSync(`${root}packages/${pkg}/dist/index.js`));
  if (missing.length) throw new Error(`not built: ${missing.join(', ')}; run \`pnpm run build\` first`);
  entries = await measureAll();
  mkdirSync(`${root}bench/results`, { recursive: true });
  const report = entries.map(({ name, minifiedBytes, gzippedBytes }) => ({ name, minifiedBytes, gzippedBytes, budgetGzippedBytes: budget.gzippedBytes[name] ?? null }));
  writeFileSync(`${root}bench/results/size.json`, `${JSON.stringify({ measuredAt: new Date().toISOString(), unit: 'bytes', entries: report }, null, 2)}\n`);
}, 120_000);

describe('size budgets (minified + gzipped, bytes)', () => {
  it('has a budget for every measured bundle and no stale ones', () => {
    expect(Object.keys(budget.gzippedBytes).sort()).toEqual(entries.map((e) => e.name).sort());
  });

  it('keeps every bundle within its budget', () => {
    const over = entries.filter((e) => e.gzippedBytes > (budget.gzippedBytes[e.name] ?? 0)).map((e) => `${e.name}: ${e.gzippedBytes} B > budget ${budget.gzippedBytes[e.name]} B`);
    expect(over).toEqual([]);
  });

  it('tree-shakes: encodeEnvelope alone pulls in no sign or transport code and is a fraction of @agdx/wire', () => {
    const alone = entries.find((e) => e.name === 'encodeEnvelope only');
    const wire = entries.find((e) => e.name === '@agdx/wire');
    expect(alone && wire).toBeTruthy();
    expect(alone?.inputs.filter((path) => /packages\/(sign|transport)\//.test(path) || path.includes('@noble/curves'))).toEqual([]);
    expect(alone?.inputs.some((path) => path.includes('packages/wire/dist/'))).toBe(true);
    expect(alone!.gzippedBytes).toBeLessThan(wire!.gzippedBytes / 2);
  });
});
