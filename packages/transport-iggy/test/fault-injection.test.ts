import { CommandCode, EvictionReason, IGGY_PROTOCOL_VERSION } from '@agdx/iggy-protocol';
import type { FakeAction, FakeRequest } from './support/fake-iggy-server.js';
import { IggyTransport } from '@agdx/transport-iggy';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from './support/fake-iggy-server.js';

let server: FakeServer;
let fault: ((request: FakeRequest) => FakeAction | undefined) | undefined;
const seen: FakeRequest[] = [];
const open: IggyTransport[] = [];

beforeAll(async () => {
  server = await startFakeServer({
    intercept: (request) => {
      seen.push(request);
      return fault?.(request);
    },
  });
});
afterEach(async () => {
  fault = undefined;
  seen.length = 0;
  for (const t of open.splice(0)) await t.close();
});
afterAll(async () => {
  await server.close();
});

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
let counter = 0;

async function connect(protocol: 'vsr' | 'classic', extra: Record<string, unknown> = {}): Promise<IggyTransport> {
  const t = await IggyTransport.connect(server.url, { protocol, requestTimeoutMs: 400, heartbeatIntervalMs: 0, reconnect: { maxAttempts: 3, initialDelayMs: 10 }, ...extra });
  open.push(t);
  return t;
}

async function topicOn(t: IggyTransport): Promise<{ stream: string; topic: string }> {
  const stream = `fault-${++counter}-${Date.now().toString(36)}`;
  await t.ensureStream(stream);
  await t.ensureTopic({ stream, topic: 't' }, { partitions: 2 });
  return { stream, topic: 't' };
}

async function failure(action: () => Promise<unknown>): Promise<{ kind?: string; context?: Record<string, unknown> }> {
  try {
    await action();
  } catch (error) {
    return error as { kind?: string; context?: Record<string, unknown> };
  }
  throw new Error('expected the call to fail');
}

/** A VSR reply header claiming a size below the 256-byte minimum. */
function vsrWrongSize(): Uint8Array {
  const frame = new Uint8Array(256);
  new DataView(frame.buffer).setUint32(48, 100, true);
  frame[60] = 6;
  return frame;
}

/** A classic response announcing far more bytes than any frame may hold. */
function classicWrongSize(): Uint8Array {
  const frame = new Uint8Array(8);
  new DataView(frame.buffer).setUint32(4, 0xffff_fff0, true);
  return frame;
}

/** The first bytes of a frame and no more. */
function truncated(protocol: 'vsr' | 'classic'): Uint8Array {
  if (protocol === 'classic') return Uint8Array.of(0, 0, 0, 0, 100, 0, 0, 0, 1, 2, 3);
  const head = new Uint8Array(100);
  new DataView(head.buffer).setUint32(48, 300, true);
  return head;
}

for (const protocol of ['vsr', 'classic'] as const) {
  describe(`bad input from the network (${protocol})`, () => {
    it('an unknown status ends the call with a typed error carrying the code; the connection goes on', async () => {
      const t = await connect(protocol);
      const target = await topicOn(t);
      fault = (r) => (r.code === CommandCode.GetTopic ? { status: 54_321 } : undefined);
      const error = await failure(() => t.describeTopic(target));
      expect(error.kind).toBe('transport');
      expect(error.context).toMatchObject({ iggyCode: 54_321, iggyCodeName: 'Unknown(54321)' });
      fault = undefined;
      expect((await t.describeTopic(target)).partitionCount).toBe(2);
    });

    it('a known status maps to its kind (not-found)', async () => {
      const t = await connect(protocol);
      const target = await topicOn(t);
      fault = (r) => (r.code === CommandCode.GetTopic ? { status: 2010 } : undefined);
      expect((await failure(() => t.describeTopic(target))).kind).toBe('not-found');
    });

    it('a malformed payload is a transport error, and the next call works', async () => {
      const t = await connect(protocol);
      const target = await topicOn(t);
      fault = (r) => (r.code === CommandCode.GetTopic ? { payload: Uint8Array.of(1, 2, 3) } : undefined);
      expect((await failure(() => t.describeTopic(target))).kind).toBe('transport');
      fault = undefined;
      expect((await t.describeTopic(target)).partitionCount).toBe(2);
    });

    it('a frame with an impossible size ends the call; the client reconnects for the next one', async () => {
      const t = await connect(protocol);
      const target = await topicOn(t);
      const accepted = server.accepted();
      fault = (r) => (r.code === CommandCode.CreateStream ? { raw: protocol === 'vsr' ? vsrWrongSize() : classicWrongSize() } : undefined);
      expect((await failure(() => t.ensureStream('another'))).kind).toBe('transport');
      fault = undefined;
      expect((await t.describeTopic(target)).partitionCount).toBe(2);
      expect(server.accepted()).toBeGreaterThan(accepted);
      expect(t.reconnects).toBeGreaterThanOrEqual(1);
    });

    it('a truncated frame then a dropped socket fails the mutation and retries the read', async () => {
      const t = await connect(protocol);
      const target = await topicOn(t);
      let drops = 0;
      fault = (r) => (r.code === CommandCode.SendMessages || (r.code === CommandCode.GetTopic && drops++ === 0) ? { raw: truncated(protocol) } : undefined);
      const sent = failure(() => t.append({ ...target, routing: { partition: 0 }, records: [{ payload: text('x') }] }));
      await new Promise((r) => setTimeout(r, 50));
      server.dropAll();
      expect((await sent).kind).toBe('transport');
      fault = (r) => (r.code === CommandCode.GetTopic && drops++ === 1 ? { destroy: true } : undefined);
      // The read is idempotent: it is written again on the new connection and succeeds.
      expect((await t.describeTopic(target)).partitionCount).toBe(2);
    });

    it('a server that never answers gives a timeout error within the request timeout', async () => {
      const t = await connect(protocol);
      const target = await topicOn(t);
      fault = (r) => (r.code === CommandCode.GetTopic ? { silent: true } : undefined);
      const started = Date.now();
      expect((await failure(() => t.describeTopic(target))).kind).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(3000);
      fault = undefined;
      expect((await t.describeTopic(target)).partitionCount).toBe(2);
    });

    it('an aborted call rejects at once with a cancelled error', async () => {
      const t = await connect(protocol, { requestTimeoutMs: 10_000 });
      const target = await topicOn(t);
      fault = (r) => (r.code === CommandCode.GetTopic ? { silent: true } : undefined);
      const controller = new AbortController();
      const pending = failure(() => t.describeTopic(target, { signal: controller.signal }));
      setTimeout(() => controller.abort(), 20);
      expect((await pending).kind).toBe('cancelled');
    });

    it('after an aborted call the server never answers, later calls still complete (the connection resets)', async () => {
      const t = await connect(protocol, { requestTimeoutMs: 300 });
      const target = await topicOn(t);
      let silenced = false;
      fault = (r) => (r.code === CommandCode.GetTopic && !silenced ? ((silenced = true), { silent: true }) : undefined);
      const controller = new AbortController();
      const aborted = failure(() => t.describeTopic(target, { signal: controller.signal }));
      setTimeout(() => controller.abort(), 20);
      expect((await aborted).kind).toBe('cancelled');
      // Whatever the first attempt meets, a call made afterwards must complete.
      let described: unknown;
      for (let i = 0; i < 3 && described === undefined; i++) {
        described = await t.describeTopic(target).catch(() => undefined);
      }
      expect(described).toMatchObject({ partitionCount: 2 });
    });

    it('close rejects pending calls with a closed error', async () => {
      const t = await connect(protocol, { requestTimeoutMs: 10_000 });
      const target = await topicOn(t);
      fault = (r) => (r.code === CommandCode.GetTopic ? { silent: true } : undefined);
      const pending = failure(() => t.describeTopic(target));
      await new Promise((r) => setTimeout(r, 20));
      await t.close();
      expect((await pending).kind).toBe('closed');
    });

    it('bad credentials fail connect with a transport error naming the Iggy code, without retries', async () => {
      const before = server.accepted();
      const error = await failure(() => IggyTransport.connect(`iggy://iggy:wrong@127.0.0.1:${server.port}`, { protocol }));
      expect(error.kind).toBe('transport');
      expect(error.context).toMatchObject({ iggyCode: 42 });
      expect(server.accepted() - before).toBe(1);
    });

    it('a personal access token logs in', async () => {
      const t = await IggyTransport.connect(`iggy://:secret-token@127.0.0.1:${server.port}?protocol=${protocol}`);
      open.push(t);
      await t.ensureStream(`pat-${protocol}`);
    });

    it('idle connections send heartbeat pings', async () => {
      await connect(protocol, { heartbeatIntervalMs: 30 });
      await new Promise((r) => setTimeout(r, 250));
      expect(seen.filter((r) => r.code === CommandCode.Ping).length).toBeGreaterThanOrEqual(2);
    });

    it('pipelines classic requests and keeps one VSR request in flight, answering each call with its own reply', async () => {
      const t = await connect(protocol, { requestTimeoutMs: 5000 });
      const target = await topicOn(t);
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) => t.append({ ...target, routing: { partition: i % 2 }, records: [{ payload: text(`m${i}`) }] })),
      );
      const offsets = [0, 1].map((p) => results.filter((r) => r.partition === p).map((r) => r.baseOffset).sort((a, b) => (a < b ? -1 : 1)));
      expect(offsets[0]).toEqual(Array.from({ length: 15 }, (_, i) => BigInt(i)));
      expect(offsets[1]).toEqual(Array.from({ length: 15 }, (_, i) => BigInt(i)));
    });
  });
}

describe('VSR evictions', () => {
  it('an eviction for a stale client ends the call, and the client registers again', async () => {
    const t = await connect('vsr');
    const target = await topicOn(t);
    fault = (r) => (r.code === CommandCode.GetTopic ? { evict: EvictionReason.StaleClient } : undefined);
    const error = await failure(() => t.describeTopic(target));
    expect(error.kind).toBe('transport');
    fault = undefined;
    expect((await t.describeTopic(target)).partitionCount).toBe(2);
  });

  it('an eviction for bad credentials is final: later calls fail without reconnecting', async () => {
    const t = await connect('vsr');
    const target = await topicOn(t);
    fault = (r) => (r.code === CommandCode.GetTopic ? { evict: EvictionReason.InvalidCredentials } : undefined);
    expect((await failure(() => t.describeTopic(target))).kind).toBe('transport');
    fault = undefined;
    const before = server.accepted();
    const later = await failure(() => t.describeTopic(target));
    expect(later.kind).toBe('transport');
    expect(later.context).toMatchObject({ iggyCode: 42 });
    expect(server.accepted()).toBe(before);
  });
});

describe('VSR transient statuses', () => {
  it('a 57/58 status makes the client resend the identical request, and the call succeeds', async () => {
    const t = await connect('vsr', { requestTimeoutMs: 2000 });
    const target = await topicOn(t);
    let transient = 2;
    const frames: Uint8Array[] = [];
    fault = (r) => {
      if (r.code !== CommandCode.GetTopic) return undefined;
      frames.push(r.body.slice());
      return transient-- > 0 ? { status: transient === 1 ? 57 : 58 } : undefined;
    };
    expect((await t.describeTopic(target)).partitionCount).toBe(2);
    expect(frames).toHaveLength(3);
    expect(frames[1]).toEqual(frames[0]);
    expect(frames[2]).toEqual(frames[0]);
  });
});

describe('connecting', () => {
  it('a refused connection fails after the bounded attempts with a transport error', async () => {
    const probe = await startFakeServer();
    const port = probe.port;
    await probe.close();
    const started = Date.now();
    const error = await failure(() => IggyTransport.connect({ port, reconnect: { maxAttempts: 3, initialDelayMs: 10 } }));
    expect(error.kind).toBe('transport');
    expect(error.context).toMatchObject({ attempts: 3 });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a script awaiting connect() stays alive through the back-off and ends with the typed error', async () => {
    const probe = await startFakeServer();
    const port = probe.port;
    await probe.close();
    // Nothing else keeps this child's event loop open: only the pending connect() does.
    const script = [
      "import { IggyTransport } from '@agdx/transport-iggy';",
      `try { await IggyTransport.connect({ port: ${port}, reconnect: { maxAttempts: 3, initialDelayMs: 200 } }); console.log('connected'); }`,
      "catch (e) { console.log('error:' + e.kind); }",
    ].join('\n');
    const { spawnSync } = await import('node:child_process');
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--conditions=@agdx/source', '--input-type=module', '-e', script], {
      cwd: new URL('..', import.meta.url),
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.stdout.trim()).toBe('error:transport');
    expect(run.status).toBe(0);
  });

  it('speaks the packed protocol version the VSR servers accept', () => {
    expect(IGGY_PROTOCOL_VERSION).toBe(11264);
  });
});
