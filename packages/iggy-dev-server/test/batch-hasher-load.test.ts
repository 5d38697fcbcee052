/**
 * `batchHashing: 'wasm'` loads the WebAssembly batch hasher at start. Where the runtime does not
 * support WebAssembly (the loader rejects with kind `unsupported`, as under `node --jitless`) the
 * server starts and verifies batches with the JavaScript checksums; any other failure of the
 * loader rejects the start with a `DevServerError` of kind `internal` carrying it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IggyUnsupportedError, wasmBatchHashingReady } from '@agdx/iggy-protocol';
import { DevServerError, startDevCluster, startDevServer, type DevServer } from '@agdx/iggy-dev-server';
import { IggyTransport } from '@agdx/transport-iggy';

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

let server: DevServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  loader.failure = undefined;
  loader.calls = 0;
});

describe('loading the batch hasher at start', () => {
  it('starts and admits batches on the JavaScript checksums when WebAssembly is unsupported', async () => {
    loader.failure = new IggyUnsupportedError('this runtime has no WebAssembly');
    server = await startDevServer({ port: 0, batchHashing: 'wasm' });
    // The dev server's load and the client's (the same process) were both refused.
    const t = await IggyTransport.connect({ port: server.port, heartbeatIntervalMs: 0 });
    try {
      expect(loader.calls).toBe(2);
      expect(wasmBatchHashingReady()).toBe(false);
      await t.ensureStream('s');
      await t.ensureTopic({ stream: 's', topic: 't' }, { partitions: 1 });
      const records = Array.from({ length: 100 }, (_, i) => ({ payload: Uint8Array.from({ length: 100 }, (_, k) => (i + k) & 0xff) }));
      await t.append({ stream: 's', topic: 't', routing: { partition: 0 }, records });
      const read = await t.read({ stream: 's', topic: 't', partition: 0, offset: 0n, maxCount: 1000 });
      expect(read.length).toBe(100);
      expect([...(read[99]?.payload ?? [])]).toEqual([...records[99]!.payload]);
    } finally {
      await t.close();
    }
  });

  it('rejects the start with kind internal on any other failure, for a server and a cluster', async () => {
    const broken = new DOMException('The string to be decoded is not correctly encoded.', 'InvalidCharacterError');
    loader.failure = broken;
    const single = await startDevServer({ port: 0, batchHashing: 'wasm' }).then(
      (started) => ((server = started), undefined),
      (error: unknown) => error,
    );
    expect(DevServerError.is(single, 'internal')).toBe(true);
    expect((single as Error).cause).toBe(broken);
    const cluster = await startDevCluster({ nodes: 2, batchHashing: 'wasm' }).then(
      async (started) => {
        await started.close();
        return undefined;
      },
      (error: unknown) => error,
    );
    expect(DevServerError.is(cluster, 'internal')).toBe(true);
  });

  it('does not load it at all with batchHashing javascript', async () => {
    loader.failure = new Error('must not be called');
    server = await startDevServer({ port: 0, batchHashing: 'javascript' });
    expect(loader.calls).toBe(0);
  });
});
