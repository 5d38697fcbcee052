// Throughput of the same user journeys under each stream layout (issue 16), on the embedded
// MemoryLog, each reported as a ratio to the shared layout measured in the same run:
//  - request: seed 002's round trip, `laser.request(command)` to a declared assistant agent that
//    answers with `ctx.respond`;
//  - stream: the same round trip where the assistant first streams an answer (two reasoning
//    chunks and two chat chunks, each stream finished) before its final response;
//  - session: a session with turns: create, begin, an instruction turn, a model call to the
//    assistant (a request round trip), a response turn, end.
// Each layout has its own MemoryLog and stream (4 partitions; the single-partition layout
// bootstraps one) and its own assistant spawned with the layout, so every record takes the route
// the layout gives it and the assistant consumes what the layout makes it consume. Rounds
// alternate: every round runs each layout once, the order rotating, and the per-round ratio is
// layout rate / shared rate of that round. Rates are per CPU second of this process (the requester
// and the agent share it) and per wall second (noisier on a shared machine). Target: every
// layout within 20% of shared (ratio >= 0.8). Run: pnpm bench layout-throughput → one JSON object.
import { AgdxClient, Agent, AgentTopic, agentMessageBody, type AgentCtx, type AgentHandle, type AgentMessage, type StreamLayout } from '@agdx/agents';
import { sessions } from '@agdx/sessions';
import { MemoryLog } from '@agdx/transport';
import { AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { machine } from './support/machine.js';
import { median } from './support/stats.js';

const STREAM = 'bench';
const PARTITIONS = 4;
const ROUNDS = Number(process.env.AGDX_BENCH_LAYOUT_ROUNDS ?? 9);
const WARMUP_OPS = 300;
/** Operations per timed batch, per scenario: about 150-300 ms of CPU each on a 2-core machine. */
const BATCH: Readonly<Record<Scenario, number>> = { request: 1000, stream: 400, session: 300 };

// A minor GC before every timed batch, so each layout pays for its own short-lived garbage (as
// support/alternating.ts does; a full GC's background sweeping would spill into the next batch).
setFlagsFromString('--expose-gc');
const gc = ((globalThis as { gc?: (o?: { type: 'minor' | 'major' }) => void }).gc ?? runInNewContext('gc')) as (o?: { type: 'minor' | 'major' }) => void;
const assistant = AgentId.new('assistant');
const gateway = AgentId.new('gateway');
const text = new TextEncoder();

type Scenario = 'request' | 'stream' | 'session';
const SCENARIOS: readonly Scenario[] = ['request', 'stream', 'session'];

/** The four layouts, declaring the assistant and the requester (as the reliability suite does). */
const LAYOUTS: readonly (readonly [string, StreamLayout])[] = [
  ['shared', { kind: 'shared' }],
  ['perAgentTopic', { kind: 'perAgentTopic', topics: new Map([[assistant.value, 'agent.assistant'], [gateway.value, 'agent.gateway']]) }],
  ['perAgentPartition', { kind: 'perAgentPartition', partitions: new Map([[assistant.value, 1], [gateway.value, 2]]) }],
  ['singlePartition', { kind: 'singlePartition' }],
];

/** The assistant: a `weather` command gets a streamed answer before the response; anything else only the response. */
async function answer(message: AgentMessage, ctx: AgentCtx): Promise<void> {
  if (message.envelope?.operation === 'weather') {
    const reasoning = ctx.stream('reasoning');
    await reasoning.write(text.encode('The user wants '));
    await reasoning.write(text.encode('the weather.'));
    await reasoning.finish('stop');
    const chat = ctx.stream('chat');
    await chat.write(text.encode('It is 21 °C '));
    await chat.write(text.encode('in Oslo.'));
    await chat.finish('stop');
  }
  await ctx.respond(text.encode('ok'));
}

interface Env {
  readonly name: string;
  readonly laser: AgdxClient;
  readonly agent: AgentHandle;
  readonly log: MemoryLog;
}

async function openEnv(name: string, layout: StreamLayout): Promise<Env> {
  const log = new MemoryLog();
  const laser = AgdxClient.from(log, { stream: STREAM, layout });
  await laser.bootstrap(PARTITIONS);
  const agent = Agent.builder().id(assistant).listenOn(AgentTopic.Sessions).respondOn(AgentTopic.Sessions).handler({ handle: answer }).build().spawn(AgdxClient.from(log, { stream: STREAM, layout }));
  await agent.ready();
  return { name, laser, agent, log };
}

async function roundTrip(env: Env, conversation: ConversationId, operation: string): Promise<void> {
  const request = env.laser.agdx(AgentTopic.Sessions, gateway, conversation).command(MintUlid.mint(CorrelationId), text.encode('{"prompt":"summarize"}')).withOperation(operation).withTarget(assistant);
  const reply = await env.laser.request(request, { replyTopic: AgentTopic.Sessions, timeoutMs: 10_000 });
  if (agentMessageBody(reply).length !== 2) throw new Error(`${env.name}: unexpected reply`);
}

let sessionCount = 0;
async function once(env: Env, scenario: Scenario): Promise<void> {
  if (scenario === 'request') return roundTrip(env, ConversationId.new(), 'chat');
  if (scenario === 'stream') return roundTrip(env, ConversationId.new(), 'weather');
  const session = sessions(env.laser).create(`bench-${env.name}-${sessionCount++}`);
  await session.lifecycle.begin({ agent: gateway });
  await session.append('instruction', 'summarize the ticket');
  await roundTrip(env, session.conversation, 'chat');
  await session.append('response', 'ok');
  await session.lifecycle.end();
}

interface Timed {
  readonly perCpuSecond: number;
  readonly perWallSecond: number;
}

async function batch(env: Env, scenario: Scenario, n: number): Promise<Timed> {
  gc({ type: 'minor' });
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await once(env, scenario);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  return { perCpuSecond: n / (Math.max(1, cpu.user + cpu.system) / 1e6), perWallSecond: n / (wallMs / 1000) };
}

function spread(values: readonly number[], digits: number): { min: number; median: number; max: number } {
  const f = (v: number): number => Number(v.toFixed(digits));
  return { min: f(Math.min(...values)), median: f(median(values)), max: f(Math.max(...values)) };
}

const envs: Env[] = [];
try {
  for (const [name, layout] of LAYOUTS) envs.push(await openEnv(name, layout));
  const results: Record<string, Record<string, unknown>> = {};
  for (const scenario of SCENARIOS) {
    for (const env of envs) await batch(env, scenario, WARMUP_OPS);
    const cpu = new Map<string, number[]>(envs.map((e) => [e.name, []]));
    const wall = new Map<string, number[]>(envs.map((e) => [e.name, []]));
    const ratios = new Map<string, number[]>(envs.map((e) => [e.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      // rotate who goes first, so no layout always runs on a warmer or colder heap
      const order = envs.map((_, i) => envs[(i + round) % envs.length] as Env);
      const rate = new Map<string, Timed>();
      for (const env of order) rate.set(env.name, await batch(env, scenario, BATCH[scenario]));
      const shared = rate.get('shared') as Timed;
      for (const env of envs) {
        const r = rate.get(env.name) as Timed;
        cpu.get(env.name)?.push(r.perCpuSecond);
        wall.get(env.name)?.push(r.perWallSecond);
        ratios.get(env.name)?.push(r.perCpuSecond / shared.perCpuSecond);
      }
    }
    results[scenario] = Object.fromEntries(
      envs.map((e) => [
        e.name,
        {
          opsPerCpuSecond: spread(cpu.get(e.name) ?? [], 0),
          opsPerWallSecond: spread(wall.get(e.name) ?? [], 0),
          ratioToShared: spread(ratios.get(e.name) ?? [], 2),
          ratioPerRound: (ratios.get(e.name) ?? []).map((r) => Number(r.toFixed(2))),
        },
      ]),
    );
  }
  for (const env of envs) if (env.agent.errors.length > 0) throw new Error(`${env.name}: agent errors: ${String(env.agent.errors[0])}`);
  process.stdout.write(
    `${JSON.stringify(
      {
        name: 'layout-throughput',
        environment: machine(),
        config: { rounds: ROUNDS, opsPerBatch: BATCH, warmupOps: WARMUP_OPS, partitions: PARTITIONS, log: 'MemoryLog' },
        targets: { ratioToSharedAtLeast: 0.8 },
        results,
        notes:
          'Per scenario and layout: operations per CPU second of this process (requester and assistant agent together) and per wall second, min/median/max over alternating rounds; ratioToShared = that layout\'s CPU rate / the shared layout\'s CPU rate in the same round (shared is 1 by definition). request = one seed 002 round trip; stream = a round trip with 2 reasoning + 2 chat chunks and both streams finished before the response; session = create, begin, instruction turn, one model call round trip, response turn, end. Target: issue 16, every layout within 20% of shared; benchmarks never fail on it.',
      },
      null,
      2,
    )}\n`,
  );
} finally {
  for (const env of envs) {
    await env.agent.shutdown().catch(() => undefined);
    await env.laser.close();
    await env.log.close();
  }
}
