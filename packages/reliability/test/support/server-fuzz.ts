/**
 * Hostile input to the dev server over real TCP: real client sessions (both protocols) are
 * recorded through the proxy, then replayed with mutated, dropped, duplicated and random chunks
 * on many short connections. Afterwards the server must have reported no internal error, hold no
 * leaked connection, and still serve a correct client.
 */
import { createConnection } from 'node:net';
import { startDevServer } from '@agdx/iggy-dev-server';
import { mutateBytes, SeededRandom } from '@agdx/reliability';
import { IggyTransport } from '@agdx/transport-iggy';
import { FaultProxy } from './fault-proxy.js';

/** Figures of a run. */
export interface ServerFuzzReport {
  readonly connections: number;
  readonly chunksSent: number;
  readonly bytesSent: number;
  /** Connections the server closed on its own (fatal framing, evictions). */
  readonly closedByServer: number;
  readonly internalErrors: string[];
  /** Connections still open on the server a moment after the clients left (must be 0). */
  readonly leakedConnections: number;
  /** A correct client of each protocol still works afterwards. */
  readonly healthy: boolean;
  readonly heapUsedMb: { readonly before: number; readonly after: number };
  readonly elapsedMs: number;
}

async function recordSessions(port: number): Promise<Uint8Array[][]> {
  const proxy = await FaultProxy.start(() => ({ host: '127.0.0.1', port }));
  const sessions = new Map<number, Uint8Array[]>();
  proxy.onClientData = (connection, chunk) => {
    const list = sessions.get(connection) ?? [];
    list.push(chunk);
    sessions.set(connection, list);
  };
  for (const protocol of ['vsr', 'classic'] as const) {
    const t = await IggyTransport.connect({ host: '127.0.0.1', port: proxy.port, protocol, heartbeatIntervalMs: 0 });
    await t.ensureStream('fuzz');
    await t.ensureTopic({ stream: 'fuzz', topic: 'corpus' }, { partitions: 2 });
    const enc = new TextEncoder();
    await t.append({ stream: 'fuzz', topic: 'corpus', routing: { key: 'k' }, records: [{ payload: enc.encode('hello'), headers: new Map([['h', { kind: 'string', value: enc.encode('v') }]]) }] });
    await t.read({ stream: 'fuzz', topic: 'corpus', partition: 0, offset: 0n });
    await t.storeOffset({ stream: 'fuzz', topic: 'corpus', partition: 0, consumer: { kind: 'consumer', name: 'c' }, offset: 0n }).catch(() => undefined);
    const member = await t.joinGroup({ stream: 'fuzz', topic: 'corpus', group: 'g' });
    await member.poll({ maxCount: 10 });
    await member.leave();
    await t.close();
  }
  await proxy.close();
  return [...sessions.values()].filter((s) => s.length > 0);
}

function oneConnection(port: number, chunks: readonly Uint8Array[], lingerMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let closedByServer = false;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(closedByServer);
    };
    const timer = setTimeout(finish, lingerMs + 2_000);
    socket.on('error', finish);
    socket.on('end', () => {
      closedByServer = true;
      finish();
    });
    socket.on('data', () => undefined);
    socket.on('connect', () => {
      for (const chunk of chunks) socket.write(chunk);
      setTimeout(finish, lingerMs);
    });
  });
}

/** Sends `connections` hostile sessions (seeded), `parallel` at a time. */
export async function fuzzDevServer(seed: number, connections: number, parallel: number, maxMs: number): Promise<ServerFuzzReport> {
  const started = performance.now();
  const internalErrors: string[] = [];
  await using server = await startDevServer({ onInternalError: (e: unknown) => void (internalErrors.length < 5 && internalErrors.push(String(e))), maxFrameSize: 1 << 20 });
  const sessions = await recordSessions(server.port);
  const random = new SeededRandom(seed);
  const heapBefore = process.memoryUsage().heapUsed;
  let chunksSent = 0;
  let bytesSent = 0;
  let closedByServer = 0;
  let made = 0;
  const lane = async (): Promise<void> => {
    while (made < connections && performance.now() - started < maxMs) {
      made += 1;
      const session = random.pick(sessions);
      const chunks: Uint8Array[] = [];
      // Keep a valid prefix (the login) most of the time so the hostile bytes reach the commands.
      const keep = random.chance(0.7) ? 1 + random.int(session.length) : 0;
      for (let i = 0; i < session.length; i++) {
        const chunk = session[i]!;
        if (i < keep - 1) chunks.push(chunk);
        else if (random.chance(0.15)) continue;
        else if (random.chance(0.1)) chunks.push(random.bytes(1 + random.int(300)));
        else chunks.push(mutateBytes(random, chunk));
        if (random.chance(0.05)) chunks.push(chunk);
      }
      chunksSent += chunks.length;
      bytesSent += chunks.reduce((n, c) => n + c.length, 0);
      if (await oneConnection(server.port, chunks, 20 + random.int(40))) closedByServer += 1;
    }
  };
  await Promise.all(Array.from({ length: parallel }, () => lane()));
  let leaked = server.connectionCount();
  for (let i = 0; i < 100 && leaked > 0; i++) {
    await new Promise((r) => setTimeout(r, 20));
    leaked = server.connectionCount();
  }
  let healthy = true;
  for (const protocol of ['vsr', 'classic'] as const) {
    try {
      const t = await IggyTransport.connect(server.url, { protocol, requestTimeoutMs: 5_000 });
      const r = await t.append({ stream: 'fuzz', topic: 'corpus', routing: { partition: 1 }, records: [{ payload: new TextEncoder().encode(`healthy ${protocol}`) }] });
      const back = await t.read({ stream: 'fuzz', topic: 'corpus', partition: 1, offset: r.baseOffset });
      healthy &&= new TextDecoder().decode(back[0]?.payload) === `healthy ${protocol}`;
      await t.close();
    } catch {
      healthy = false;
    }
  }
  const heapAfter = process.memoryUsage().heapUsed;
  return {
    connections: made,
    chunksSent,
    bytesSent,
    closedByServer,
    internalErrors,
    leakedConnections: leaked,
    healthy,
    heapUsedMb: { before: Math.round(heapBefore / 1e5) / 10, after: Math.round(heapAfter / 1e5) / 10 },
    elapsedMs: performance.now() - started,
  };
}
