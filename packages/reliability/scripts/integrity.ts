/**
 * Long run of issue 19's client and bridge checks: --corruptions flipped payload bits,
 * --duplicates duplicated replies and --renumbers renumbered VSR replies per protocol through
 * the tampering proxy, then --rounds rounds of hostile bodies (--body-mb MB each) and slow
 * bodies and heads against the A2A and MCP handlers behind bridge-kit's node adapter. Writes
 * results/integrity.json; exits 1 when a corrupted payload got through, a reply answered the
 * wrong call, an append was stored other than once, or a hostile body was not refused.
 */
import { runHostileBodies, type HostileBodyOutcome } from '../test/support/bridge-bodies.js';
import { runIntegrity } from '../test/support/integrity-scenario.js';
import { numberArg, writeResult } from '../test/support/results.js';

const seed = numberArg('seed', 0x1c0de);
const client = [];
for (const [i, protocol] of (['vsr', 'classic'] as const).entries()) {
  const report = await runIntegrity({
    seed: seed + i,
    protocol,
    corruptions: numberArg('corruptions', 5_000),
    duplicates: numberArg('duplicates', 500),
    renumbers: numberArg('renumbers', 500),
  });
  process.stdout.write(`${protocol}: corrupted ${report.corrupted}, detected ${report.detected}, delivered ${report.corruptedDelivered}; duplicated ${report.duplicated}, wrong ${report.duplicateWrongAnswers}; renumbered ${report.renumbered}, wrong ${report.renumberWrongAnswers}, appends not once ${report.renumberedAppendsNotOnce}\n`);
  client.push(report);
}

const rounds = numberArg('rounds', 5);
const bodies: HostileBodyOutcome[] = [];
for (let i = 0; i < rounds; i++) bodies.push(...(await runHostileBodies(numberArg('body-mb', 100))));
const expected = (name: string): number => (name.includes('slow') ? 408 : name.includes('unauthenticated') ? (name.includes('declared') ? 413 : 401) : 413);
const byCase = new Map<string, { statuses: Set<number>; maxMs: number; maxSentMb: number; maxRssGrowthMb: number; wrong: number }>();
for (const o of bodies) {
  const entry = byCase.get(o.name) ?? { statuses: new Set<number>(), maxMs: 0, maxSentMb: 0, maxRssGrowthMb: 0, wrong: 0 };
  entry.statuses.add(o.status);
  entry.maxMs = Math.max(entry.maxMs, o.ms);
  entry.maxSentMb = Math.max(entry.maxSentMb, o.sentMb);
  entry.maxRssGrowthMb = Math.max(entry.maxRssGrowthMb, o.rssGrowthMb);
  if (o.status !== expected(o.name)) entry.wrong++;
  byCase.set(o.name, entry);
}
const summary = [...byCase].map(([name, e]) => ({ name, statuses: [...e.statuses], maxMs: e.maxMs, maxSentMb: e.maxSentMb, maxRssGrowthMb: e.maxRssGrowthMb, wrong: e.wrong }));
for (const s of summary) process.stdout.write(`${s.name}: ${s.statuses.join('/')} in ≤ ${s.maxMs} ms, ≤ ${s.maxSentMb} MB sent, RSS +${s.maxRssGrowthMb} MB\n`);

writeResult('integrity', { client, bodies: { rounds, summary } });
const clientOk = client.every(
  (r) => r.untypedErrors.length === 0 && r.corruptedDelivered === 0 && r.detected === r.corrupted && r.duplicateWrongAnswers === 0 && r.renumberWrongAnswers === 0 && r.renumberedAppendsNotOnce === 0,
);
process.exit(clientOk && summary.every((s) => s.wrong === 0) ? 0 : 1);
