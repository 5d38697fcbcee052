/**
 * Crash and replay: a dev server on disk and a fleet of agent processes (one consumer group)
 * handle a stream of commands while a seeded controller SIGKILLs random agents and the server
 * and restarts them. Afterwards every acknowledged command is in the log, every command has a
 * reply, and duplicate replies (at-least-once redelivery) are counted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { AgdxClient, AgentTopic, readAgentMessage } from '@agdx/agents';
import { SeededRandom } from '@agdx/reliability';
import { IggyTransport } from '@agdx/transport-iggy';
import { ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { kill, startChild } from './processes.js';

/** Settings of a run. */
export interface CrashRunOptions {
  readonly seed: number;
  readonly agents: number;
  readonly commands: number;
  readonly partitions: number;
  /** Pause between two commands of the producer, in ms. */
  readonly sendEveryMs: number;
  /** Pause between two kills, in ms. */
  readonly killEveryMs: number;
  /** Kills in total (the first hits an agent, the second the server, then the seed decides). */
  readonly kills: number;
  /** Share of kills aimed at the server rather than an agent. */
  readonly serverKillShare: number;
  /** Give up waiting for the replies after this long. */
  readonly settleMs: number;
  /** Handler delay inside each agent, in ms (widens the window a kill lands in). */
  readonly handlerDelayMs: number;
}

/** Figures of a run. */
export interface CrashRunReport {
  readonly options: CrashRunOptions;
  readonly commandsAcknowledged: number;
  /** Send attempts that failed at the client (retried with a new record). */
  readonly sendFailures: number;
  readonly agentKills: number;
  readonly serverKills: number;
  /** Acknowledged command records not found in the log afterwards (must be 0). */
  readonly acknowledgedMissing: number;
  /** Commands (by correlation) with no reply at the end (must be 0). */
  readonly repliesMissing: number;
  /** Replies beyond the first per command: redelivery after a crash. */
  readonly duplicateReplies: number;
  readonly commandsWithDuplicates: number;
  readonly repliesTotal: number;
  readonly settleMs: number;
  readonly elapsedMs: number;
}

const STREAM = 'crash';
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function readAll(transport: IggyTransport, topic: string, partitions: number): Promise<ReturnType<typeof readAgentMessage>[]> {
  const out: ReturnType<typeof readAgentMessage>[] = [];
  for (let p = 0; p < partitions; p++) {
    for (let offset = 0n; ; ) {
      const batch = await transport.read({ stream: STREAM, topic, partition: p, offset, maxCount: 1_000 });
      if (batch.length === 0) break;
      for (const r of batch) out.push(readAgentMessage(r, { stream: STREAM, topic }));
      offset = batch[batch.length - 1]!.offset + 1n;
    }
  }
  return out;
}

/** Runs the scenario; child processes and the data folder are removed at the end. */
export async function runCrashAndReplay(options: CrashRunOptions): Promise<CrashRunReport> {
  const started = performance.now();
  const data = mkdtempSync(join(tmpdir(), 'agdx-reliability-crash-'));
  const random = new SeededRandom(options.seed);
  let server: ChildProcess | undefined;
  const agents: (ChildProcess | undefined)[] = [];
  let controller: IggyTransport | undefined;
  try {
    const first = await startChild('./server-main.ts', ['0', data], 'URL ');
    server = first.process;
    const url = first.line;
    const port = /:(\d+)$/.exec(url)?.[1] ?? '0';
    controller = await IggyTransport.connect(url, { requestTimeoutMs: 2_000, connectTimeoutMs: 2_000, reconnect: { maxAttempts: 1_000, initialDelayMs: 50, maxDelayMs: 300 } });
    const client = AgdxClient.from(controller, { stream: STREAM });
    await client.bootstrap(options.partitions);
    const startAgent = async (i: number): Promise<void> => {
      agents[i] = (await startChild('./agent-main.ts', [url, STREAM, String(options.handlerDelayMs)], 'READY')).process;
    };
    await Promise.all(Array.from({ length: options.agents }, (_, i) => startAgent(i)));

    const acked = new Map<string, string>(); // record id → correlation
    const correlations: string[] = [];
    let sendFailures = 0;
    const producer = (async () => {
      const enc = new TextEncoder();
      for (let i = 0; i < options.commands; i++) {
        const correlation = MintUlid.mint(CorrelationId);
        const conversation = ConversationId.derive(`crash-${options.seed}-${i % 16}`);
        correlations.push(correlation.toString());
        for (;;) {
          try {
            const id = await client.agdx(AgentTopic.Commands, 'controller', conversation).command(correlation, enc.encode(`command ${i}`)).send();
            acked.set(id.toString(), correlation.toString());
            break;
          } catch {
            // The server is down or the connection broke: the outcome is unknown, so the command
            // is sent again (a new record, the same correlation); a second copy is a duplicate.
            sendFailures += 1;
            await sleep(100);
          }
        }
        await sleep(options.sendEveryMs);
      }
    })();

    let agentKills = 0;
    let serverKills = 0;
    for (let k = 0; k < options.kills; k++) {
      await sleep(options.killEveryMs);
      const hitServer = k === 1 || (k > 1 && random.chance(options.serverKillShare));
      if (hitServer) {
        await kill(server);
        serverKills += 1;
        server = (await startChild('./server-main.ts', [port, data], 'URL ')).process;
      } else {
        const i = random.int(options.agents);
        const victim = agents[i];
        if (victim !== undefined) await kill(victim);
        agentKills += 1;
        await startAgent(i);
      }
    }
    await producer;

    // Wait until every command has a reply (or the settle time runs out).
    const settleStart = performance.now();
    let replies: ReturnType<typeof readAgentMessage>[] = [];
    let answered = new Set<string>();
    while (performance.now() - settleStart < options.settleMs) {
      replies = await readAll(controller, AgentTopic.Responses, options.partitions);
      answered = new Set(replies.map((m) => m.provenance.correlation?.toString() ?? ''));
      if (correlations.every((c) => answered.has(c))) break;
      await sleep(200);
    }
    const settleMs = performance.now() - settleStart;
    const commands = await readAll(controller, AgentTopic.Commands, options.partitions);
    const storedIds = new Set(commands.map((m) => m.envelope?.record?.toString() ?? ''));
    const perCorrelation = new Map<string, number>();
    for (const m of replies) {
      const c = m.provenance.correlation?.toString();
      if (c !== undefined) perCorrelation.set(c, (perCorrelation.get(c) ?? 0) + 1);
    }
    const duplicates = [...perCorrelation.values()].filter((n) => n > 1);
    return {
      options,
      commandsAcknowledged: acked.size,
      sendFailures,
      agentKills,
      serverKills,
      acknowledgedMissing: [...acked.keys()].filter((id) => !storedIds.has(id)).length,
      repliesMissing: correlations.filter((c) => !answered.has(c)).length,
      duplicateReplies: duplicates.reduce((s, n) => s + n - 1, 0),
      commandsWithDuplicates: duplicates.length,
      repliesTotal: replies.length,
      settleMs,
      elapsedMs: performance.now() - started,
    };
  } finally {
    await controller?.close().catch(() => undefined);
    await Promise.all(agents.map((a) => (a === undefined ? undefined : kill(a))));
    if (server !== undefined) await kill(server);
    rmSync(data, { recursive: true, force: true });
  }
}
