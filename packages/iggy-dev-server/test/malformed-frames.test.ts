import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CommandCode,
  EvictionReason,
  Operation,
  VSR_HEADER_SIZE,
  decodeClassicResponse,
  decodeVsrServerFrame,
  encodeClassicRequest,
  encodeRegisterRequest,
  encodeSendMessagesRequest,
  encodeCreateStreamRequest,
  encodeCreateTopicRequest,
  encodeVsrRequestFrame,
  initChecksums,
  packProtocolVersion,
  partitioning,
} from '@agdx/iggy-protocol';
import { startDevServer } from '@agdx/iggy-dev-server';
import type { DevServer } from '@agdx/iggy-dev-server';
import { RawClient } from './helpers/raw-client.js';

let server: DevServer;

beforeAll(async () => {
  await initChecksums();
  server = await startDevServer({ port: 0, maxFrameSize: 64 * 1024 });
});
afterAll(async () => {
  await server.close();
});

async function frameOf(c: RawClient, timeoutMs = 5000): Promise<Uint8Array> {
  const f = await c.nextFrame(timeoutMs);
  if (typeof f === 'string') throw new Error(`no frame: ${f}`);
  return f;
}

async function pingWorks(c: RawClient): Promise<void> {
  expect((await c.call(CommandCode.Ping)).ok).toBe(true);
}

describe('malformed VSR frames', () => {
  it('drops a request with an undeclared operation without replying, and keeps serving', async () => {
    const c = await RawClient.connect(server.port, 'vsr');
    const frame = encodeVsrRequestFrame({ client: 5n, request: 1n, operation: Operation.NonReplicated, code: CommandCode.Ping });
    frame[176] = 70;
    c.write(frame);
    expect(await c.nextFrame(300)).toBe('timeout');
    const zeroClient = encodeVsrRequestFrame({ client: 5n, request: 1n, operation: Operation.NonReplicated, code: CommandCode.Ping });
    zeroClient.fill(0, 128, 144);
    c.write(zeroClient);
    expect(await c.nextFrame(300)).toBe('timeout');
    await pingWorks(c);
    c.close();
  });

  it('closes the connection on an impossible size, a command byte above 29 or an oversized frame', async () => {
    const small = await RawClient.connect(server.port, 'vsr');
    const frame = encodeVsrRequestFrame({ client: 5n, request: 1n, operation: Operation.NonReplicated, code: CommandCode.Ping });
    new DataView(frame.buffer).setUint32(48, 100, true);
    small.write(frame);
    expect(await small.waitClosed()).toBe(true);

    const command = await RawClient.connect(server.port, 'vsr');
    await pingWorks(command);
    const bad = encodeVsrRequestFrame({ client: 5n, request: 1n, operation: Operation.NonReplicated, code: CommandCode.Ping });
    bad[60] = 40;
    command.write(bad);
    expect(await command.waitClosed()).toBe(true);

    const big = await RawClient.connect(server.port, 'vsr');
    big.write(encodeVsrRequestFrame({ client: 5n, request: 1n, operation: Operation.NonReplicated, code: CommandCode.Ping }, new Uint8Array(128 * 1024)));
    expect(await big.waitClosed()).toBe(true);
  });

  it('answers a request checksum mismatch with status 4', async () => {
    const c = await RawClient.connect(server.port, 'vsr');
    c.write(encodeVsrRequestFrame({ client: 5n, request: 1n, operation: Operation.NonReplicated, code: CommandCode.Ping, requestChecksum: 12345n }, Uint8Array.of(1, 2, 3)));
    const reply = decodeVsrServerFrame(await frameOf(c));
    expect(reply.type === 'reply' && reply.header.status).toBe(4);
    await pingWorks(c);
    c.close();
  });

  it('evicts malformed logins (15) and incompatible protocol versions (14)', async () => {
    const garbage = await RawClient.connect(server.port, 'vsr');
    garbage.write(encodeVsrRequestFrame({ client: 5n, request: 0n, operation: Operation.Register }, Uint8Array.of(1, 2, 3)));
    const e1 = decodeVsrServerFrame(await frameOf(garbage));
    expect(e1.type === 'eviction' && e1.header.reason).toBe(EvictionReason.MalformedLogin);
    expect(await garbage.waitClosed()).toBe(true);

    const old = await RawClient.connect(server.port, 'vsr');
    const body = encodeRegisterRequest({ versionInfo: { protocolVersion: packProtocolVersion(0, 10, 0), sdkName: 'old', sdkVersion: '1' }, credentials: { username: 'iggy', password: 'iggy' } });
    old.write(encodeVsrRequestFrame({ client: 6n, request: 0n, operation: Operation.Register }, body));
    const e2 = decodeVsrServerFrame(await frameOf(old));
    expect(e2.type === 'eviction' && e2.header.reason).toBe(EvictionReason.IncompatibleProtocol);
  });

  it('refuses a send batch with a bad checksum and keeps the connection', async () => {
    const c = await RawClient.connect(server.port, 'vsr');
    await c.login();
    await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name: 'vsr-bad-batch' }, 'vsr'));
    await c.ok(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream: 'vsr-bad-batch', name: 't', partitionsCount: 1 }, 'vsr'));
    const body = encodeSendMessagesRequest({ stream: 'vsr-bad-batch', topic: 't', partitioning: partitioning.balanced(), messages: [{ payload: Uint8Array.of(1, 2, 3) }] }, 'vsr');
    body[body.length - 1] = (body[body.length - 1] ?? 0) ^ 0xff;
    const code = await c.refused(CommandCode.SendMessages, body);
    expect([4027, 4039]).toContain(code);
    await pingWorks(c);
    c.close();
  });
});

describe('malformed classic frames', () => {
  it('answers unknown codes with 3 and malformed payloads with an Iggy status, and keeps serving', async () => {
    const c = await RawClient.connect(server.port, 'classic');
    await c.login();
    c.write(encodeClassicRequest(9999));
    expect(decodeClassicResponse(await frameOf(c)).status).toBe(3);
    c.write(encodeClassicRequest(CommandCode.CreateStream, Uint8Array.of(200, 1, 2)));
    expect(decodeClassicResponse(await frameOf(c)).status).not.toBe(0);
    c.write(encodeClassicRequest(CommandCode.Ping));
    expect(decodeClassicResponse(await frameOf(c)).status).toBe(0);
    c.close();
  });

  it('closes the connection on a length below 4, an oversized frame, or a send before login', async () => {
    const short = await RawClient.connect(server.port, 'classic');
    short.write(Uint8Array.of(2, 0, 0, 0, 1, 0, 0, 0));
    expect(decodeClassicResponse(await frameOf(short)).status).toBe(3);
    expect(await short.waitClosed()).toBe(true);

    const big = await RawClient.connect(server.port, 'classic');
    big.write(encodeClassicRequest(CommandCode.Ping, new Uint8Array(128 * 1024)));
    expect(decodeClassicResponse(await frameOf(big)).status).toBe(3);
    expect(await big.waitClosed()).toBe(true);

    const anonymous = await RawClient.connect(server.port, 'classic');
    anonymous.write(encodeClassicRequest(CommandCode.SendMessages, new Uint8Array(32)));
    expect(decodeClassicResponse(await frameOf(anonymous)).status).toBe(40);
    expect(await anonymous.waitClosed()).toBe(true);
  });
});

describe('unknown first bytes', () => {
  it('closes a connection that speaks neither generation', async () => {
    const c = await RawClient.connect(server.port, 'classic');
    c.write(new TextEncoder().encode('GET / HTTP/1.1\r\nHost: x\r\n\r\n'.padEnd(VSR_HEADER_SIZE, ' ')));
    expect(await c.waitClosed()).toBe(true);
  });

  it('survives all of the above', async () => {
    const c = await RawClient.connect(server.port, 'vsr');
    expect((await c.login()).ok).toBe(true);
    await pingWorks(c);
    c.close();
  });
});
