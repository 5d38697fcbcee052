/**
 * TLS: a TLS-terminating proxy with a self-signed certificate (made with the openssl command
 * line, skipped when it is missing) in front of the fake server.
 */

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { IggyTransport } from '@agdx/transport-iggy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from './support/fake-iggy-server.js';

function makeCertificate(): { key: string; cert: string } | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'agdx-iggy-tls-'));
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=localhost',
        '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const material = makeCertificate();
let server: FakeServer;
let proxy: tls.Server;
let port = 0;

beforeAll(async () => {
  if (material === undefined) return;
  server = await startFakeServer();
  proxy = tls.createServer({ key: material.key, cert: material.cert }, (client) => {
    const upstream = net.connect({ host: '127.0.0.1', port: server.port });
    client.pipe(upstream).pipe(client);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  port = (proxy.address() as net.AddressInfo).port;
});
afterAll(async () => {
  if (material === undefined) return;
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await server.close();
});

describe.skipIf(material === undefined)('TLS', () => {
  for (const protocol of ['vsr', 'classic'] as const) {
    it(`${protocol}: connects over TLS with a trusted CA and works`, async () => {
      const t = await IggyTransport.connect(`iggy+tls://iggy:iggy@127.0.0.1:${port}?protocol=${protocol}`, { tls: { ca: material?.cert } });
      try {
        const stream = `tls-${protocol}`;
        await t.ensureStream(stream);
        await t.ensureTopic({ stream, topic: 't' }, { partitions: 1 });
        const sent = await t.append({ stream, topic: 't', records: [{ payload: Uint8Array.of(1, 2, 3) }] });
        expect((await t.read({ stream, topic: 't', partition: sent.partition, offset: 0n }))[0]?.payload).toEqual(Uint8Array.of(1, 2, 3));
      } finally {
        await t.close();
      }
    });
  }

  it('refuses an untrusted certificate with a transport error', async () => {
    let kind: string | undefined;
    try {
      await IggyTransport.connect({ port, tls: true, reconnect: { maxAttempts: 1 } });
    } catch (error) {
      kind = (error as { kind?: string }).kind;
    }
    expect(kind).toBe('transport');
  });
});
