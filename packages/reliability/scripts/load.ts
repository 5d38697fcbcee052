/**
 * Long run of load: --agents × --sessions concurrent sessions, streamed answers of --chunks
 * chunks, for --seconds on the in-memory log and over TCP to the dev server. Writes
 * results/load.json (the memory series included).
 */
import { runLoad } from '../test/support/load-scenario.js';
import { numberArg, writeResult } from '../test/support/results.js';

const runs = [];
for (const transport of ['memory', 'iggy'] as const) {
  const report = await runLoad({
    transport,
    agents: numberArg('agents', 4),
    sessionsPerAgent: numberArg('sessions', 8),
    chunksPerAnswer: numberArg('chunks', 16),
    durationMs: numberArg('seconds', 60) * 1000,
    partitions: 8,
    sampleEveryMs: 1_000,
  });
  const { latencyMs: l, memory: m } = report;
  process.stdout.write(
    `${transport}: ${report.requests} requests (${report.requestsPerSecond}/s, ${report.chunksPerSecond} chunks/s), p50 ${l.p50.toFixed(1)} ms, p99 ${l.p99.toFixed(1)} ms, errors ${report.errors}, peak RSS ${m.peakRssMb} MB, live heap ${m.heapSecondQuarterMb} → ${m.heapLastQuarterMb} MB (${m.heapSlopeMbPerMin} MB/min)\n`,
  );
  runs.push(report);
}
writeResult('load', runs);
process.exit(runs.every((r) => r.errors === 0) ? 0 : 1);
