/**
 * Long run of load, one transport per process (so peak memory is that run's): --transport
 * memory|iggy (default iggy, with the dev server in a child process), --agents × --sessions
 * concurrent sessions, streamed answers of --chunks chunks, for --seconds; --pipelining=false
 * makes the agents await every answer (the runtime before pipelined answers). The heap is read
 * as it is once a second (`process.memoryUsage()`, no forced collection, so sampling does not
 * stall the event loop and inflate the latency tail); --force-gc samples the live heap after a
 * forced full collection instead (the memory log's heap is never collected by force). Also
 * reports this process's CPU time (requester and agents) per request during the load phase and
 * with setup and teardown, the child server's own CPU time per request during the load phase
 * (Linux), the requests written to the server per answered request by command, and the load
 * average before and after; over Iggy also those requests split between the requester and the agents.
 * --connections (default 2; the transport's own default is 1) sets each
 * Iggy transport's shared connections: VSR carries one request at a time per connection. Writes
 * results/load-<transport>.json (the memory series included).
 */
import { loadavg } from 'node:os';
import { runLoad } from '../test/support/load-scenario.js';
import { numberArg, writeResult } from '../test/support/results.js';

const hit = process.argv.find((a) => a.startsWith('--transport='));
const transport = hit === undefined ? 'iggy' : hit.slice('--transport='.length);
if (transport !== 'memory' && transport !== 'iggy') throw new Error('--transport must be memory or iggy');
const pipelining = !process.argv.includes('--pipelining=false');
// A forced full collection every second pauses every agent and the requester at once: opt-in.
const forceGc = process.argv.includes('--force-gc') && transport === 'iggy';
const loadBefore = loadavg().map((l) => Number(l.toFixed(2)));
const cpuBefore = process.cpuUsage();
const run = await runLoad({
  pipelining,
  transport,
  agents: numberArg('agents', 4),
  sessionsPerAgent: numberArg('sessions', 8),
  chunksPerAnswer: numberArg('chunks', 16),
  durationMs: numberArg('seconds', 60) * 1000,
  partitions: 8,
  // Two: an agent's reads go out beside its answer appends instead of queueing behind them.
  connections: numberArg('connections', 2),
  sampleEveryMs: 1_000,
  serverInChild: true,
  // The in-memory log grows by design; forced full collections of it would dominate the run.
  forceGc,
});
const cpu = process.cpuUsage(cpuBefore);
const report = {
  ...run,
  // Setup and teardown included, so this is an upper bound of the per-request cost.
  cpuMicrosPerRequest: run.requests === 0 ? undefined : Math.round((cpu.user + cpu.system) / run.requests),
  loadAverage: { before: loadBefore, after: loadavg().map((l) => Number(l.toFixed(2))) },
};
const { latencyMs: l, memory: m } = report;
const wire = report.wireRequestsPerRequest;
const commands = (w: { readonly byCommand: Readonly<Record<string, number>> }): string => Object.entries(w.byCommand).map(([name, n]) => `${name} ${n}`).join(', ');
const sides = report.wireRequestsPerRequestBySide;
const sideLine = sides?.requester === undefined || sides.agents === undefined ? '' : `; requester ${sides.requester.total} (${commands(sides.requester)}), agents ${sides.agents.total} (${commands(sides.agents)})`;
const wireLine = wire === undefined ? '' : `, ${wire.total} requests on the wire per request (${commands(wire)}${sideLine})`;
process.stdout.write(
  `${transport}${pipelining ? '' : ' (not pipelined)'}: ${report.requests} requests (${report.requestsPerSecond}/s, ${report.chunksPerSecond} chunks/s), p50 ${l.p50.toFixed(1)} ms, p99 ${l.p99.toFixed(1)} ms, errors ${report.errors}, peak RSS ${m.peakRssMb} MB, ${m.gcForced ? 'live heap after forced GC' : 'heap as sampled, no forced GC'} ${m.heapSecondQuarterMb} → ${m.heapLastQuarterMb} MB (${m.heapSlopeMbPerMin} MB/min over the second half), 100 ms timer fired ${report.timer.ticks}/${report.timer.expectedTicks} (max lag ${report.timer.maxLagMs} ms), ${report.clientCpuMicrosPerRequest ?? '?'} µs client CPU per request in the load phase (${report.cpuMicrosPerRequest} µs with setup and teardown; server ${report.serverCpuMicrosPerRequest ?? '?'} µs)${wireLine}, load ${report.loadAverage.before[0]} → ${report.loadAverage.after[0]}\n`,
);
writeResult(`load-${transport}`, report);
process.exit(report.errors === 0 ? 0 : 1);
