// What the crash-loop guard costs an agent start, on MemoryLog and over the dev server (another
// process, VSR): each start spawns an agent on its group, a command is published, the start ends
// when the agent handled it and shut down cleanly (so the next start resumes at the next record,
// as ordinary restarts do). Ours: the guard on (the default: one marker append and one read of
// the 512 records before it on `agdx.resumes`, which earlier starts have filled); baseline, same
// run: `crashLoopGuard(false)`, rounds alternating. Reported per start: process CPU time and wall
// time (medians of the rounds, with their range). Nothing per record is measured here: the guard
// adds no log operation to a record that is not a start's first. Prints one JSON object.
import { AgdxClient, Agent, AgentTopic } from '@agdx/agents';
import { MemoryLog, type LogTransport } from '@agdx/transport';
import { IggyTransport } from '@agdx/transport-iggy';
import { AgentEnvelope, AgentId, ContentType, ConversationId, CorrelationId, MintUlid, RecordId } from '@agdx/wire';
import { startDevServer } from './support/dev-server.js';
import { machine } from './support/machine.js';
import { spread } from './support/stats.js';

const STREAM = 'bench-resume';
const ROUNDS = Number(process.env.AGDX_BENCH_RUNS ?? 5);
const MEMORY_STARTS = 100;
const DEV_STARTS = 20;
const planner = AgentId.new('planner');

interface Side {
  cpu: number[];
  wall: number[];
}

/** `starts` agent starts on `group`, each handling one new command and shutting down. */
async function starts(laser: AgdxClient, group: string, guarded: boolean, count: number, pollMs: number): Promise<{ cpuMicros: number; wallMicros: number }> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < count; i++) {
    let done!: () => void;
    const handled = new Promise<void>((resolve) => (done = resolve));
    const builder = Agent.builder().id(group).listenOn(AgentTopic.Sessions).pollInterval(pollMs).heartbeats(false).followControl(false).handler(() => done());
    if (!guarded) builder.crashLoopGuard(false);
    const agent = builder.spawn(laser);
    await agent.ready();
    const command = AgentEnvelope.command(MintUlid.mint(RecordId), ConversationId.new(), planner, MintUlid.mint(CorrelationId), new Uint8Array([1])).withOperation('work');
    await laser.publish(AgentTopic.Sessions, command, ContentType.raw);
    await handled;
    await agent.shutdown();
  }
  const used = process.cpuUsage(cpu);
  return { cpuMicros: (used.user + used.system) / count, wallMicros: ((performance.now() - t0) * 1000) / count };
}

async function measure(transport: LogTransport, count: number, pollMs: number): Promise<Record<string, unknown>> {
  const laser = AgdxClient.from(transport, { stream: STREAM });
  await laser.bootstrap(1);
  // Fill the marker topic's look-back window first, so a guarded start reads a full one.
  await starts(laser, 'warm-up', true, 520, pollMs);
  const ours: Side = { cpu: [], wall: [] };
  const base: Side = { cpu: [], wall: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [side, guarded] of (round % 2 === 0 ? [[ours, true], [base, false]] : [[base, false], [ours, true]]) as [Side, boolean][]) {
      const r = await starts(laser, guarded ? 'guarded' : 'unguarded', guarded, count, pollMs);
      side.cpu.push(r.cpuMicros);
      side.wall.push(r.wallMicros);
    }
  }
  await laser.close();
  const cpuOurs = spread(ours.cpu, 1);
  const cpuBase = spread(base.cpu, 1);
  return {
    startsPerRound: count,
    guarded: { cpuMicrosPerStart: cpuOurs, wallMicrosPerStart: spread(ours.wall, 1) },
    baselineUnguarded: { cpuMicrosPerStart: cpuBase, wallMicrosPerStart: spread(base.wall, 1) },
    guardCpuMicrosPerStart: Math.round((cpuOurs.median - cpuBase.median) * 10) / 10,
  };
}

const startedAt = machine();
const memory = await measure(new MemoryLog(), MEMORY_STARTS, 100);
const server = await startDevServer();
let devServer: Record<string, unknown>;
try {
  const transport = await IggyTransport.connect({ port: server.port, protocol: 'vsr', heartbeatIntervalMs: 0 });
  try {
    devServer = await measure(transport, DEV_STARTS, 20);
  } finally {
    await transport.close();
  }
} finally {
  await server.stop();
}
console.log(
  JSON.stringify(
    {
      name: 'agents-resume',
      environment: { ...machine(), loadAverageAtStart: startedAt.loadAverage },
      config: { rounds: ROUNDS, lookBack: 512 },
      results: { memory, devServer },
    },
    null,
    2,
  ),
);
