/**
 * A transport-neutral runtime test environment: the runtime scenarios (support-runtime/scenarios.ts)
 * take a {@link RuntimeEnvFactory} and run the same bodies on the embedded MemoryLog
 * ({@link memoryEnv}) and over Iggy TCP (support-runtime/iggy-env.ts).
 */
import { AgdxClient, type AgdxClientOptions } from '@agdx/agents';
import type { LogTransport } from '@agdx/transport';
import { harness, STREAM } from './harness.js';

/** A bootstrapped log, a client on it, and a way to reach the same log from "another process". */
export interface RuntimeEnv {
  /** Where the scenario runs; the well-known topics exist in it. */
  readonly stream: string;
  /** The connection of {@link laser}. */
  readonly transport: LogTransport;
  /** A client on `stream` over `transport`. */
  readonly laser: AgdxClient;
  /** A client on `stream` over a connection of its own to the same log (a second process). */
  connect(options?: AgdxClientOptions): Promise<AgdxClient>;
  /** Closes the clients and every connection this environment opened. */
  close(): Promise<void>;
}

/** Opens a fresh environment whose topics have `partitions` partitions. */
export type RuntimeEnvFactory = (partitions?: number, options?: AgdxClientOptions) => Promise<RuntimeEnv>;

/** The embedded MemoryLog: a fresh log per environment; `connect()` is `log.connect()`. */
export const memoryEnv: RuntimeEnvFactory = async (partitions = 1, options = {}) => {
  const h = await harness(partitions, options);
  const clients: AgdxClient[] = [h.laser];
  return {
    stream: STREAM,
    transport: h.log,
    laser: h.laser,
    connect: async (more: AgdxClientOptions = {}) => {
      const client = h.connect(more);
      clients.push(client);
      return client;
    },
    close: async () => {
      await Promise.allSettled(clients.map((c) => c.close()));
    },
  };
};

/**
 * Builds an environment from a way to open connections: the first one carries `laser`, each
 * `connect()` opens another. Every connection is closed by `close()`.
 */
export async function openEnv(
  openConnection: () => Promise<LogTransport>,
  stream: string,
  partitions = 1,
  options: AgdxClientOptions = {},
): Promise<RuntimeEnv> {
  const transports: LogTransport[] = [];
  const clients: AgdxClient[] = [];
  const client = async (more: AgdxClientOptions): Promise<AgdxClient> => {
    const transport = await openConnection();
    transports.push(transport);
    const c = AgdxClient.from(transport, { stream, ...options, ...more });
    clients.push(c);
    return c;
  };
  const close = async (): Promise<void> => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await Promise.allSettled(transports.map((t) => t.close()));
  };
  try {
    const laser = await client({});
    await laser.bootstrap(partitions);
    await laser.ensureOnFirstUseTopic('agent.control');
    return { stream, transport: laser.transport, laser, connect: (more = {}) => client(more), close };
  } catch (error) {
    await close();
    throw error;
  }
}
