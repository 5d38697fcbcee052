/**
 * The client against a three-node dev cluster in a child process (`agdx-iggy-dev --cluster 3`):
 * it settles on the primary from any seed, follows view changes and a lost primary while
 * appending, and gives up with typed errors within its stated bound when no primary can be
 * reached. The nodes share one broker (no replication), so every acknowledged append must be
 * readable afterwards; an append whose connection broke may be there or not, and must say so.
 */
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { IggyTransport, isOutcomeUnknown } from '@agdx/transport-iggy';
import type { DevClusterProcess } from './support/dev-cluster-process.js';
import { startDevClusterProcess } from './support/dev-cluster-process.js';

const enc = new TextEncoder();
const dec = new TextDecoder();
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function cluster(nodes = 3, args: readonly string[] = []): Promise<DevClusterProcess> {
  const c = await startDevClusterProcess(nodes, args);
  open.push({ close: () => c.stop() });
  return c;
}

async function connect(url: string, overrides: Parameters<typeof IggyTransport.connect>[1] = {}): Promise<IggyTransport> {
  const t = await IggyTransport.connect(url, { heartbeatIntervalMs: 0, ...overrides });
  open.push(t);
  return t;
}

function portOf(c: DevClusterProcess, index: number): number {
  return (c.initial.nodes[index] as { port: number }).port;
}

/** A port nothing listens on (bound, then released). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address !== null ? address.port : 1;
}

async function until(what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

interface AppendLog {
  readonly acked: Map<string, bigint>;
  readonly unknown: string[];
  readonly failed: string[];
  readonly untyped: string[];
}

/**
 * Appends numbered records one after another until `stop()` is called. `max` only bounds a loop
 * that is never stopped: appends between view changes take well under a millisecond, so a small
 * cap ran out while the primary was still flapping and left nothing to wait for afterwards.
 */
function appendLoop(t: IggyTransport, max = 200_000): { log: AppendLog; stop: () => Promise<void> } {
  const log: AppendLog = { acked: new Map(), unknown: [], failed: [], untyped: [] };
  let running = true;
  const done = (async () => {
    for (let i = 0; running && i < max; i++) {
      const text = `r${i}`;
      try {
        const r = await t.append({ stream: 'c', topic: 't', routing: { partition: 0 }, records: [{ payload: enc.encode(text) }] });
        log.acked.set(text, r.baseOffset);
      } catch (error) {
        if (isOutcomeUnknown(error)) log.unknown.push(text);
        else if ((error as { kind?: string }).kind === 'transport') log.failed.push(`${text}: ${(error as Error).message}`);
        else log.untyped.push(`${text}: ${String(error)}`);
      }
    }
  })();
  return {
    log,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

async function checkAcked(t: IggyTransport, log: AppendLog): Promise<void> {
  const records = await t.read({ stream: 'c', topic: 't', partition: 0, offset: 0n, maxCount: 100_000 });
  const at = new Map(records.map((r) => [r.offset, dec.decode(r.payload)]));
  for (const [text, offset] of log.acked) expect(at.get(offset), `acknowledged ${text} at ${offset}`).toBe(text);
}

describe.each(['vsr', 'classic'] as const)('a three-node dev cluster over %s', (protocol) => {
  it('settles on the primary from any seed, the first seeds dead or backups', async () => {
    const c = await cluster();
    const dead = await deadPort();
    const t = await connect(`iggy://iggy:iggy@127.0.0.1:${dead},127.0.0.1:${portOf(c, 2)}?protocol=${protocol}`, { cluster: { failoverTimeoutMs: 10_000 } });
    expect(t.endpoint).toEqual({ host: '127.0.0.1', port: portOf(c, 0) });
    await t.ensureStream('c');
    await t.ensureTopic({ stream: 'c', topic: 't' }, { partitions: 1 });
  }, 60_000);

  it('keeps appending through a view change, a lost primary and a restarted node; no acknowledged append is lost', async () => {
    const c = await cluster();
    const t = await connect(`${c.url}?protocol=${protocol}`);
    await t.ensureStream('c');
    await t.ensureTopic({ stream: 'c', topic: 't' }, { partitions: 1 });
    const { log, stop } = appendLoop(t);
    // Each step waits for 30 appends acknowledged by the new primary itself: a count taken
    // before the step can already be reached while the client is still finding its way.
    const onPrimary = async (index: number): Promise<void> => {
      await until(`the client on node ${index}`, () => t.endpoint?.port === portOf(c, index));
      const base = log.acked.size;
      await until(`30 appends on node ${index}`, () => log.acked.size >= base + 30);
    };
    try {
      await onPrimary(0);
      expect((await c.control('primary 1')).primary).toBe(1);
      await onPrimary(1);
      // The primary dies: its connections drop and the view moves to node 2.
      expect((await c.control('stop 1')).primary).toBe(2);
      await onPrimary(2);
      await c.control('start 1');
      expect((await c.control('primary 0')).primary).toBe(0);
      await onPrimary(0);
    } finally {
      await stop();
    }
    expect(log.untyped).toEqual([]);
    expect(log.failed).toEqual([]);
    // View changes answer 58 (not applied) and the append is replayed on the new primary; only
    // the stopped primary can take an append down with it, whose outcome is then unknown.
    expect(log.unknown.length).toBeLessThanOrEqual(1);
    expect(t.endpoint?.port).toBe(portOf(c, 0));
    expect(t.reconnects).toBeGreaterThanOrEqual(3);
    await checkAcked(t, log);
  }, 90_000);
});

describe('a cluster without a reachable primary', () => {
  it('every seed unreachable: connect fails with a transport error within failoverTimeoutMs', async () => {
    const ports = [await deadPort(), await deadPort(), await deadPort()];
    const started = Date.now();
    const failure = await IggyTransport.connect(`iggy://iggy:iggy@${ports.map((p) => `127.0.0.1:${p}`).join(',')}`, { cluster: { failoverTimeoutMs: 1_000 }, connectTimeoutMs: 500 }).catch((e: unknown) => e);
    expect((failure as { kind?: string }).kind).toBe('transport');
    expect(String((failure as Error).message)).toMatch(/no Iggy primary found within 1000 ms|ECONNREFUSED/);
    // The bound is stated as failoverTimeoutMs; the margin only absorbs a loaded machine.
    expect(Date.now() - started).toBeLessThan(1_000 + 5_000);
  });

  it('a primary moved to a stopped node: calls fail typed within the bound, and work once a primary is back', async () => {
    const c = await cluster();
    const t = await connect(c.url, { cluster: { failoverTimeoutMs: 1_500 }, connectTimeoutMs: 500 });
    await t.ensureStream('c');
    await t.ensureTopic({ stream: 'c', topic: 't' }, { partitions: 1 });
    await c.control('stop 2');
    expect((await c.control('primary 2')).primary).toBe(2);
    const started = Date.now();
    const failure = await t.append({ stream: 'c', topic: 't', routing: { partition: 0 }, records: [{ payload: enc.encode('x') }] }).catch((e: unknown) => e);
    expect((failure as { kind?: string }).kind).toBe('transport');
    // 58 means "not accepted": the append was not applied, so it must not claim an unknown outcome.
    expect(isOutcomeUnknown(failure)).toBe(false);
    expect(Date.now() - started).toBeLessThan(1_500 + 5_000);
    await c.control('primary 1');
    const ok = await t.append({ stream: 'c', topic: 't', routing: { partition: 0 }, records: [{ payload: enc.encode('y') }] });
    expect(ok.count).toBe(1);
    expect(t.endpoint?.port).toBe(portOf(c, 1));
  }, 60_000);

  it('a flapping primary: every append settles, typed, and none acknowledged is lost', async () => {
    const c = await cluster();
    const t = await connect(c.url, { cluster: { failoverTimeoutMs: 2_000 } });
    await t.ensureStream('c');
    await t.ensureTopic({ stream: 'c', topic: 't' }, { partitions: 1 });
    const { log, stop } = appendLoop(t);
    try {
      for (let i = 0; i < 40; i++) {
        await c.control(`primary ${i % 3}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      const before = log.acked.size;
      await until('appends after the flapping', () => log.acked.size >= before + 20);
    } finally {
      await stop();
    }
    expect(log.untyped).toEqual([]);
    await checkAcked(t, log);
  }, 90_000);

  it('logs in with a personal access token given as the user part, on every node', async () => {
    const c = await cluster(2, ['--token', 'iggypat-cluster-token']);
    const t = await connect(c.url.replace('iggy:iggy@', 'iggypat-cluster-token@'));
    await t.ensureStream('pat');
    expect(t.endpoint?.port).toBe(portOf(c, 0));
  }, 60_000);
});
