/**
 * Long run of hostile input: --inputs (default 1,000,000) inputs spread over the pure decoders,
 * plus --sessions mutated TCP sessions against the dev server and --requests hostile HTTP
 * requests per edge handler. Writes results/fuzz.json; exits 1 on any untyped error, 5xx, hang
 * or leak.
 */
import { decoderTargets, fuzzDecoder } from '../test/support/decoder-targets.js';
import { edgeHandlers, fuzzEdge } from '../test/support/edge-handlers.js';
import { numberArg, writeResult } from '../test/support/results.js';
import { fuzzDevServer } from '../test/support/server-fuzz.js';

const inputs = numberArg('inputs', 1_000_000);
const sessions = numberArg('sessions', 5_000);
const requests = numberArg('requests', 2_000);
const seed = numberArg('seed', 0x1f22);
const heapBefore = process.memoryUsage().heapUsed;
const targets = await decoderTargets();
const perTarget = Math.ceil(inputs / targets.length);
const decoders = targets.map((t, i) => {
  const report = fuzzDecoder(t, seed + i, perTarget, 30 * 60_000);
  process.stdout.write(`${t.name}: ${report.inputs} inputs, ${report.outcomes.untyped} untyped, slowest ${report.slowestInputMs.toFixed(1)} ms\n`);
  return report;
});
const server = await fuzzDevServer(seed, sessions, 8, 30 * 60_000);
process.stdout.write(`dev server: ${server.connections} sessions, healthy ${server.healthy}, leaked ${server.leakedConnections}\n`);
const handlers = await edgeHandlers();
const edges = [];
for (const [i, kind] of (['a2a', 'mcp', 'agui'] as const).entries()) {
  const report = await fuzzEdge(handlers, kind, seed + 100 + i, requests, kind === 'agui' ? 60 : 2_000, 30 * 60_000);
  process.stdout.write(`${kind}: ${report.requests} requests, ${report.failures} failures\n`);
  edges.push(report);
}
await handlers.client.close();
const totalInputs = decoders.reduce((n, d) => n + d.inputs, 0) + server.connections + edges.reduce((n, e) => n + e.requests, 0);
const ok =
  decoders.every((d) => d.outcomes.untyped === 0) && server.internalErrors.length === 0 && server.leakedConnections === 0 && server.healthy && edges.every((e) => e.failures === 0);
writeResult('fuzz', {
  seed,
  totalInputs,
  ok,
  heapUsedMb: { before: Math.round(heapBefore / 1e5) / 10, after: Math.round(process.memoryUsage().heapUsed / 1e5) / 10 },
  peakRssMb: Math.round(process.resourceUsage().maxRSS / 102.4) / 10,
  decoders,
  server,
  edges,
});
process.exit(ok ? 0 : 1);
