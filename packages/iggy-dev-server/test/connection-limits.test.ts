/**
 * The limits that keep the dev server serving under hostile sockets: pre-login and idle
 * timeouts, the small pre-login buffer, login failures per connection and per address with
 * delayed answers and lockout, and the connection limit that sheds unauthenticated sockets
 * first. Timeouts are configured small; the tests wait for outcomes with generous bounds and
 * assert no upper speed limit.
 */
import { describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { CommandCode, IggyEvictionError, VsrClientSession, encodeClassicRequest, initChecksums } from '@agdx/iggy-protocol';
import { startDevServer } from '@agdx/iggy-dev-server';
import { IggyTransport } from '@agdx/transport-iggy';
import { PROTOCOLS, RawClient } from './helpers/raw-client.js';

/** A loopback address other than 127.0.0.1, so per-address limits can be told apart. */
const OTHER_HOST = '127.0.0.2';

function rawSocket(port: number, localAddress?: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, ...(localAddress === undefined ? {} : { localAddress }) }, () => resolve(s));
    s.once('error', reject);
  });
}

function closedWithin(socket: Socket, ms: number): Promise<boolean> {
  if (socket.destroyed || socket.readyState === 'closed') return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntil(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}

describe('pre-login and idle timeouts', () => {
  it('closes sockets that do not log in within preLoginTimeoutMs (silent, 8 bytes, trickling), not logged-in ones', async () => {
    await initChecksums();
    await using server = await startDevServer({ preLoginTimeoutMs: 200 });
    const silent = await rawSocket(server.port);
    const eight = await rawSocket(server.port);
    eight.write(new Uint8Array([0, 1, 0, 0, 1, 0, 0, 0]));
    const trickle = await rawSocket(server.port);
    const tick = setInterval(() => trickle.write(new Uint8Array([0])), 20);
    const good = await RawClient.connect(server.port, 'classic');
    expect((await good.login()).ok).toBe(true);
    try {
      expect(await closedWithin(silent, 10_000)).toBe(true);
      expect(await closedWithin(eight, 10_000)).toBe(true);
      expect(await closedWithin(trickle, 10_000)).toBe(true);
    } finally {
      clearInterval(tick);
    }
    await sleep(300);
    await good.ok(CommandCode.Ping);
    expect(good.closed).toBe(false);
    good.close();
  });

  it.each(PROTOCOLS)('closes a logged-in %s connection that sends no whole request for idleTimeoutMs, and keeps a pinging one', async (protocol) => {
    await initChecksums();
    // Generous against a loaded machine: a ping every ~50 ms must never leave 1 s of silence.
    await using server = await startDevServer({ idleTimeoutMs: 1000 });
    const idle = await RawClient.connect(server.port, protocol);
    const trickling = await RawClient.connect(server.port, protocol);
    const pinging = await RawClient.connect(server.port, protocol);
    for (const c of [idle, trickling, pinging]) expect((await c.login()).ok).toBe(true);
    // Bytes of a request that never completes are not activity.
    const partial = protocol === 'vsr' ? trickling.vsr.command(CommandCode.Ping).frame : encodeClassicRequest(CommandCode.Ping);
    let sent = 0;
    const trickle = setInterval(() => {
      if (sent < partial.length - 1) trickling.write(partial.subarray(sent, ++sent));
    }, 20);
    try {
      const start = Date.now();
      while (Date.now() - start < 2500) {
        await pinging.ok(CommandCode.Ping);
        await sleep(50);
      }
      expect(await idle.waitClosed(10_000)).toBe(true);
      expect(await trickling.waitClosed(10_000)).toBe(true);
    } finally {
      clearInterval(trickle);
    }
    await pinging.ok(CommandCode.Ping);
    expect(pinging.closed).toBe(false);
    pinging.close();
  });

  it('closes nothing for being idle when idleTimeoutMs is 0', async () => {
    await initChecksums();
    await using server = await startDevServer({ idleTimeoutMs: 0 });
    const c = await RawClient.connect(server.port, 'classic');
    expect((await c.login()).ok).toBe(true);
    await sleep(300);
    await c.ok(CommandCode.Ping);
    c.close();
  });
});

describe('pre-login buffer', () => {
  it.each(PROTOCOLS)('closes an unauthenticated %s socket that holds more than preLoginBufferBytes of a frame', async (protocol) => {
    await initChecksums();
    await using server = await startDevServer({ preLoginBufferBytes: 1024 });
    const s = await rawSocket(server.port);
    // A frame that declares 1 MiB, of which 2 KiB arrive: under the frame cap, over the pre-login cap.
    const prefix = new Uint8Array(protocol === 'vsr' ? 256 : 8);
    const view = new DataView(prefix.buffer);
    if (protocol === 'vsr') {
      prefix.set(new VsrClientSession({ sdkName: 'test', sdkVersion: '0' }).register({ username: 'iggy', password: 'iggy' }).frame.subarray(0, 256));
      view.setUint32(48, 1024 * 1024, true);
    } else {
      view.setUint32(0, 1024 * 1024, true);
      view.setUint32(4, CommandCode.SendMessages, true);
    }
    s.write(prefix);
    s.write(new Uint8Array(2048));
    expect(await closedWithin(s, 10_000)).toBe(true);
  });

  it.each(PROTOCOLS)('logs %s clients in within the small buffer, then takes frames up to maxFrameSize', async (protocol) => {
    await using server = await startDevServer({ preLoginBufferBytes: 1024 });
    const t = await IggyTransport.connect(server.url, { protocol });
    try {
      await t.ensureStream('s');
      await t.ensureTopic({ stream: 's', topic: 't' }, { partitions: 1 });
      const payload = new Uint8Array(256 * 1024).fill(7);
      const appended = await t.append({ stream: 's', topic: 't', records: [{ payload }] });
      const [record] = await t.read({ stream: 's', topic: 't', partition: appended.partition, offset: appended.baseOffset, maxCount: 1 });
      expect(record?.payload).toEqual(payload);
    } finally {
      await t.close();
    }
  });
});

describe('login failures', () => {
  it('closes a classic connection after loginFailuresPerConnection failures, answering each', async () => {
    await initChecksums();
    await using server = await startDevServer({ loginFailuresPerConnection: 2, loginFailureDelayMs: 0 });
    const c = await RawClient.connect(server.port, 'classic');
    expect(await c.login('iggy', 'wrong1')).toMatchObject({ ok: false, code: 42 });
    expect(await c.login('iggy', 'wrong2')).toMatchObject({ ok: false, code: 42 });
    expect(await c.waitClosed(10_000)).toBe(true);
  });

  it('holds each failed answer back, doubling per recent failure of the address', async () => {
    await initChecksums();
    await using server = await startDevServer({ loginFailureDelayMs: 60, loginFailuresPerConnection: 10, loginFailuresPerAddress: 100 });
    const c = await RawClient.connect(server.port, 'classic', OTHER_HOST);
    const waited: number[] = [];
    for (let i = 0; i < 3; i++) {
      const start = performance.now();
      expect(await c.login('iggy', 'wrong')).toMatchObject({ ok: false, code: 42 });
      waited.push(performance.now() - start);
    }
    // Lower bounds only: 60, 120 and 240 ms (timers may fire a millisecond early).
    expect(waited[0]).toBeGreaterThanOrEqual(55);
    expect(waited[1]).toBeGreaterThanOrEqual(115);
    expect(waited[2]).toBeGreaterThanOrEqual(235);
    // The right password is not held back.
    expect((await c.login()).ok).toBe(true);
    c.close();
  });

  it.each(PROTOCOLS)('locks a %s address out after loginFailuresPerAddress failures (status 58), spares other addresses, and lets it in after loginLockoutMs', async (protocol) => {
    await initChecksums();
    await using server = await startDevServer({ loginFailuresPerAddress: 3, loginLockoutMs: 2000, loginFailureDelayMs: 0 });
    for (let i = 0; i < 3; i++) {
      const c = await RawClient.connect(server.port, protocol, OTHER_HOST);
      if (protocol === 'vsr') await expect(c.login('iggy', `wrong${i}`)).rejects.toBeInstanceOf(IggyEvictionError);
      else expect(await c.login('iggy', `wrong${i}`)).toMatchObject({ ok: false, code: 42 });
      c.close();
    }
    const locked = await RawClient.connect(server.port, protocol, OTHER_HOST);
    expect(await locked.login()).toMatchObject({ ok: false, code: 58 });
    const elsewhere = await RawClient.connect(server.port, protocol);
    expect((await elsewhere.login()).ok).toBe(true);
    elsewhere.close();
    locked.close();
    // Once the window has passed the address may log in again (bounded wait, no upper speed claim).
    let admitted = false;
    for (let i = 0; i < 50 && !admitted; i++) {
      await sleep(200);
      const later = await RawClient.connect(server.port, protocol, OTHER_HOST);
      const outcome = await later.login();
      later.close();
      if (outcome.ok) admitted = true;
      else expect(outcome).toMatchObject({ code: 58 });
    }
    expect(admitted).toBe(true);
  });

  it('refuses a locked-out VSR client until the lockout ends, and the real client then logs in by resending', async () => {
    await using server = await startDevServer({ loginFailuresPerAddress: 2, loginLockoutMs: 1500, loginFailureDelayMs: 0 });
    for (let i = 0; i < 2; i++) {
      const c = await RawClient.connect(server.port, 'vsr');
      await expect(c.login('iggy', 'wrong')).rejects.toBeInstanceOf(IggyEvictionError);
      c.close();
    }
    const lockedAt = Date.now();
    // @agdx/transport-iggy resends a Register refused with a transient status.
    const t = await IggyTransport.connect(server.url, { protocol: 'vsr', connectTimeoutMs: 10_000 });
    // Not before the lockout ended (a lower bound; the 1.5 s lockout began just before lockedAt).
    expect(Date.now() - lockedAt).toBeGreaterThanOrEqual(750);
    await t.ensureStream('after-lockout');
    await t.close();
  });
});

describe('connection limit', () => {
  it('sheds the oldest unauthenticated socket for a newcomer, and refuses only when every slot is logged in', async () => {
    await initChecksums();
    await using server = await startDevServer({ maxConnections: 4 });
    const a = await RawClient.connect(server.port, 'classic');
    const b = await RawClient.connect(server.port, 'vsr');
    expect((await a.login()).ok).toBe(true);
    expect((await b.login()).ok).toBe(true);
    const oldest = await rawSocket(server.port);
    const newer = await rawSocket(server.port);
    expect(await waitUntil(() => server.connectionCount() === 4, 5000)).toBe(true);
    const newcomer = await RawClient.connect(server.port, 'classic');
    expect(await closedWithin(oldest, 10_000)).toBe(true);
    expect((await newcomer.login()).ok).toBe(true);
    expect(server.shedCount()).toBe(1);
    expect(newer.destroyed).toBe(false);
    const last = await RawClient.connect(server.port, 'vsr');
    expect(await closedWithin(newer, 10_000)).toBe(true);
    expect((await last.login()).ok).toBe(true);
    // Four logged-in clients: a fifth socket is refused and nobody is shed.
    const refused = await rawSocket(server.port);
    expect(await closedWithin(refused, 10_000)).toBe(true);
    for (const c of [a, b, newcomer, last]) await c.ok(CommandCode.Ping);
    expect(server.shedCount()).toBe(2);
    for (const c of [a, b, newcomer, last]) c.close();
  });

  it('counts a logged-out connection as unauthenticated again', async () => {
    await initChecksums();
    await using server = await startDevServer({ maxConnections: 2, preLoginTimeoutMs: 60_000 });
    const a = await RawClient.connect(server.port, 'classic');
    expect((await a.login()).ok).toBe(true);
    a.write(a.classic.logout().frame);
    expect(typeof (await a.nextFrame())).not.toBe('string');
    const b = await RawClient.connect(server.port, 'classic');
    expect((await b.login()).ok).toBe(true);
    const c = await RawClient.connect(server.port, 'classic');
    expect(await a.waitClosed(10_000)).toBe(true);
    expect((await c.login()).ok).toBe(true);
    b.close();
    c.close();
  });
});
