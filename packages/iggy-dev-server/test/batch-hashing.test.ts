// Batch admission with each hashing back end (`batchHashing`): a 1,000-message batch is admitted,
// and a batch whose frame bytes or batch checksum were changed is refused with Iggy's code (4027
// for a frame, 4039 for the batch) while the connection keeps serving. The JavaScript server runs
// first: once the WebAssembly hasher is loaded it stays on for the process.
import { afterEach, describe, expect, it } from 'vitest';
import {
  CommandCode,
  encodeCreateStreamRequest,
  encodeCreateTopicRequest,
  encodeSendMessagesRequest,
  initChecksums,
  partitioning,
  wasmBatchHashingReady,
} from '@agdx/iggy-protocol';
import { startDevServer } from '@agdx/iggy-dev-server';
import type { BatchHashing, DevServer } from '@agdx/iggy-dev-server';
import { RawClient } from './helpers/raw-client.js';

let server: DevServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function admitsAndRefuses(hashing: BatchHashing): Promise<void> {
  await initChecksums();
  server = await startDevServer({ port: 0, batchHashing: hashing });
  expect(wasmBatchHashingReady()).toBe(hashing === 'wasm');
  const c = await RawClient.connect(server.port, 'vsr');
  await c.login();
  await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name: 's' }, 'vsr'));
  await c.ok(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream: 's', name: 't', partitionsCount: 1 }, 'vsr'));
  const messages = Array.from({ length: 1000 }, (_, i) => ({ payload: Uint8Array.from({ length: 100 }, (_, k) => (i + k) & 0xff) }));
  const body = (): Uint8Array => encodeSendMessagesRequest({ stream: 's', topic: 't', partitioning: partitioning.partitionId(0), messages }, 'vsr');
  await c.ok(CommandCode.SendMessages, body());
  // The batch starts 256 bytes before the end of its 1,000 frames of 148 bytes.
  const frames = body();
  const batchStart = frames.length - 1000 * 148 - 256;
  frames[batchStart + 256 + 700 * 148 + 60]! ^= 0x01; // a payload byte of frame 700
  expect(await c.refused(CommandCode.SendMessages, frames)).toBe(4027);
  const batchSum = body();
  batchSum[batchStart + 40]! ^= 0x01;
  expect(await c.refused(CommandCode.SendMessages, batchSum)).toBe(4039);
  await c.ok(CommandCode.SendMessages, body());
  c.close();
}

describe('batch hashing', () => {
  it('javascript: admits a sound batch and refuses changed frames and batch checksums', async () => {
    await admitsAndRefuses('javascript');
  });

  it('wasm: admits a sound batch and refuses changed frames and batch checksums', async () => {
    await admitsAndRefuses('wasm');
  });

  it('refuses an unknown back end', async () => {
    await expect(startDevServer({ port: 0, batchHashing: 'simd' as BatchHashing })).rejects.toMatchObject({ kind: 'invalid' });
  });
});
