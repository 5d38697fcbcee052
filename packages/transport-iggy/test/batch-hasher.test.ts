/**
 * `connect` loads the WebAssembly batch hasher. Where the runtime does not support WebAssembly
 * (the loader rejects with kind `unsupported`, as under `node --jitless`) the client connects and
 * works on the JavaScript checksums; any other failure of the loader rejects the connect with a
 * typed `transport` error carrying it, instead of being swallowed.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { IggyUnsupportedError } from '@agdx/iggy-protocol';
import { TransportError, TransportFailureError } from '@agdx/transport';
import { IggyTransport } from '@agdx/transport-iggy';
import { startFakeServer, type FakeServer } from './support/fake-iggy-server.js';

const loader = vi.hoisted(() => ({ failure: undefined as unknown, calls: 0 }));

vi.mock('@agdx/iggy-protocol/wasm-checksums', async (importOriginal) => {
  const real = await importOriginal<typeof import('@agdx/iggy-protocol/wasm-checksums')>();
  return {
    ...real,
    loadWasmChecksums: async (): Promise<void> => {
      loader.calls++;
      if (loader.failure !== undefined) throw loader.failure;
      await real.loadWasmChecksums();
    },
  };
});

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  loader.failure = undefined;
  loader.calls = 0;
});

const options = (): { port: number; heartbeatIntervalMs: number } => ({ port: server.port, heartbeatIntervalMs: 0 });

describe('loading the batch hasher at connect', () => {
  it('connects and works when the runtime does not support WebAssembly', async () => {
    loader.failure = new IggyUnsupportedError('this runtime has no WebAssembly');
    const t = await IggyTransport.connect(options());
    try {
      expect(loader.calls).toBe(1);
      await t.ensureStream('s');
      await t.ensureTopic({ stream: 's', topic: 't' }, { partitions: 1 });
      await t.append({ stream: 's', topic: 't', routing: { partition: 0 }, records: [{ payload: new Uint8Array([1, 2, 3]) }] });
      const read = await t.read({ stream: 's', topic: 't', partition: 0, offset: 0n, maxCount: 10 });
      expect(read.map((r) => [...r.payload])).toEqual([[1, 2, 3]]);
    } finally {
      await t.close();
    }
  });

  it('rejects with a typed transport error carrying any other failure', async () => {
    const broken = new DOMException('The string to be decoded is not correctly encoded.', 'InvalidCharacterError');
    loader.failure = broken;
    const failed = await IggyTransport.connect(options()).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(TransportFailureError);
    expect(TransportError.is(failed, 'transport')).toBe(true);
    expect((failed as Error).cause).toBe(broken);
    // A later connect, with the loader working again, succeeds.
    loader.failure = undefined;
    const t = await IggyTransport.connect(options());
    await t.close();
  });
});
