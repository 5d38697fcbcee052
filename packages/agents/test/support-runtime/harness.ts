import { AgdxClient, type AgdxClientOptions, type AgentHandle } from '@agdx/agents';
import { MemoryLog, type LogRecord, type LogTransport } from '@agdx/transport';
import { decodeAgentDeadLetter, type AgentDeadLetter } from '@agdx/wire';

/** The stream every runtime test uses. */
export const STREAM = 'runtime-test';

/** A bootstrapped MemoryLog and a client on it. */
export interface Harness {
  readonly log: MemoryLog;
  readonly laser: AgdxClient;
  /** Another client on its own connection to the same log (a second process). */
  connect(options?: AgdxClientOptions): AgdxClient;
}

/** A fresh in-memory log with the well-known topics on `partitions` partitions. */
export async function harness(partitions = 1, options: AgdxClientOptions = {}): Promise<Harness> {
  const log = new MemoryLog();
  const laser = AgdxClient.from(log, { stream: STREAM, ...options });
  await laser.bootstrap(partitions);
  await laser.ensureOnFirstUseTopic('agent.control');
  return {
    log,
    laser,
    connect: (more: AgdxClientOptions = {}) => AgdxClient.from(log.connect(), { stream: STREAM, ...options, ...more }),
  };
}

/** Every record of a topic of `stream` (default {@link STREAM}), partition by partition. */
export async function readAll(log: LogTransport, topic: string, stream: string = STREAM): Promise<LogRecord[]> {
  const description = await log.describeTopic({ stream, topic });
  const out: LogRecord[] = [];
  for (const p of description.partitions) out.push(...(await log.read({ stream, topic, partition: p.partition, offset: 0n, maxCount: 100_000 })));
  return out;
}

/** The decoded dead letters on agent.dlq of `stream` (default {@link STREAM}). */
export async function deadLetters(log: LogTransport, stream: string = STREAM): Promise<AgentDeadLetter[]> {
  return (await readAll(log, 'agent.dlq', stream)).map((r) => decodeAgentDeadLetter(r.payload));
}

/** Polls `check` (every 5 ms, up to `timeoutMs`) until it returns true. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 5_000, what = 'condition'): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Shuts agents down, ignoring ones already stopped. */
export async function stopAll(...agents: AgentHandle[]): Promise<void> {
  await Promise.allSettled(agents.map((a) => a.shutdown()));
}

/** UTF-8 helpers. */
export const text = new TextEncoder();
/** UTF-8 decoding. */
export const decode = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
