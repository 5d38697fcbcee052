// The WebAssembly XXH3-64 batch hasher (`loadWasmChecksums()` of the ./wasm-checksums entry) held to
// hash-wasm and to the package's JavaScript paths: the checked-in module is the build of its WAT
// source, every input length 0..2,100 and random unaligned inputs hash as hash-wasm does, sealed
// batches equal the plain reference writer byte for byte, verification names the first bad frame
// or the batch checksum, and the apache/iggy vectors still encode and verify.
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  IggyIntegrityError,
  computeBatchChecksum,
  decodeMessageBatch,
  decodeSendMessagesRequest,
  encodeMessageBatch,
  encodeSendMessagesRequest,
  partitioning,
  wasmBatchHashingReady,
} from '@agdx/iggy-protocol';
import { loadWasmChecksums } from '@agdx/iggy-protocol/wasm-checksums';
import type { OutgoingMessage } from '@agdx/iggy-protocol';
import { wasmXxh3 } from '../src/internal/xxh3-wasm.js';
import { toHex } from './helpers.js';
import { plainMessageBatch } from './support/plain-message-batch.js';
import { V1, V1_MESSAGES } from './support/repo-batch-vectors.js';
import { expectedXxh3, loadReference, pattern } from './support/xxh3-reference.js';

beforeAll(async () => {
  await loadWasmChecksums();
  await loadReference();
});

/** Each frame's stored checksum against hash-wasm over the frame's bytes 8..end. */
function expectFrameSums(batch: Uint8Array): void {
  const view = new DataView(batch.buffer, batch.byteOffset, batch.byteLength);
  let at = 256;
  for (let i = 0; i < view.getUint32(48, true); i++) {
    const end = at + 48 + view.getUint32(at + 32, true) + view.getUint32(at + 36, true);
    expect(view.getBigUint64(at, true), `frame ${i}`).toBe(expectedXxh3(batch.subarray(at + 8, end)));
    at = end;
  }
}

const messageArb: fc.Arbitrary<OutgoingMessage> = fc.record(
  {
    id: fc.bigInt({ min: 1n, max: (1n << 128n) - 1n }),
    payload: fc.uint8Array({ maxLength: 600 }),
    rawHeaders: fc.uint8Array({ minLength: 1, maxLength: 40 }),
    originTimestamp: fc.bigInt({ min: 1n << 40n, max: (1n << 40n) + 0xffff_ffffn }),
  },
  { requiredKeys: ['id', 'payload', 'originTimestamp'] },
);

describe('the WebAssembly XXH3-64', () => {
  it('is loaded by loadWasmChecksums()', () => {
    expect(wasmBatchHashingReady()).toBe(true);
  });

  it('is checked in as the build of wasm/xxh3.wat', () => {
    // Exits non-zero (and the call throws) when the generated module differs from a fresh build.
    execFileSync(process.execPath, ['scripts/build-wasm.mjs', '--check'], { cwd: new URL('..', import.meta.url) });
  });

  it('equals hash-wasm for every length 0..2,100 (short, mid-size and long paths, partial blocks)', () => {
    for (let length = 0; length <= 2100; length++) {
      const bytes = pattern(length, length * 31 + 5);
      expect(wasmXxh3(bytes), `length ${length}`).toBe(expectedXxh3(bytes));
    }
    for (const length of [240, 241, 1024, 1025, 2048, 4096, 65_537]) {
      expect(wasmXxh3(new Uint8Array(length).fill(0xff)), `length ${length}, all ones`).toBe(expectedXxh3(new Uint8Array(length).fill(0xff)));
    }
  });

  it('equals hash-wasm for random inputs and unaligned views', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), fc.nat({ max: 7 }), (bytes, shift) => {
        const host = new Uint8Array(bytes.length + shift + 3);
        host.set(bytes, shift);
        expect(wasmXxh3(host.subarray(shift, shift + bytes.length))).toBe(expectedXxh3(bytes));
      }),
      { numRuns: 1000 },
    );
  });

  it('matches the published XXH3-64 of the empty input', () => {
    expect(wasmXxh3(new Uint8Array(0))).toBe(0x2d06800538d394c2n);
  });
});

describe('message batches hashed in WebAssembly', () => {
  it('equal the plain reference writer byte for byte, every checksum equal to hash-wasm', () => {
    fc.assert(
      fc.property(fc.array(messageArb, { minLength: 1, maxLength: 30 }), (messages) => {
        const batch = encodeMessageBatch(messages);
        const plain = plainMessageBatch(messages, () => 1n, () => 0n);
        expect(toHex(batch)).toBe(toHex(plain));
        expectFrameSums(batch);
        expect(computeBatchChecksum(batch)).toBe(new DataView(batch.buffer).getBigUint64(40, true));
        expect(decodeMessageBatch(batch, 0, { verifyChecksums: true }).frames.length).toBe(messages.length);
      }),
      { numRuns: 200 },
    );
  });

  it('seal 1,000 frames of 100 bytes (the benchmark shape) as hash-wasm does', () => {
    const messages = Array.from({ length: 1000 }, (_, i) => ({ id: BigInt(i + 1), payload: pattern(100, i), originTimestamp: 7n }));
    const batch = encodeMessageBatch(messages);
    expectFrameSums(batch);
    expect(toHex(batch)).toBe(toHex(plainMessageBatch(messages, () => 1n, () => 0n)));
  });

  it('seal a batch of bare payloads (minted ids, one clock reading) as the plain writer would with those ids', () => {
    const messages = Array.from({ length: 1000 }, (_, i) => ({ payload: pattern(1 + (i % 250), i) }));
    // Written into a reused, dirty buffer: every byte of the batch must be written.
    const dirty = new Uint8Array(256 * 1024).fill(0xee);
    const req = { stream: 's', topic: 't', partitioning: partitioning.partitionId(0), messages };
    const body = encodeSendMessagesRequest(req, 'vsr', { nowMicros: () => 1_700_000_000_000_000n, allocate: (n) => dirty.subarray(0, n) });
    const batch = (decodeSendMessagesRequest(body, 'vsr').batch as { bytes: Uint8Array }).bytes.slice();
    const ids = decodeMessageBatch(batch).frames.map((f) => f.id);
    let next = 0;
    expect(toHex(batch)).toBe(toHex(plainMessageBatch(messages, () => ids[next++] as bigint, () => 1_700_000_000_000_000n)));
    expectFrameSums(batch);
    expect(computeBatchChecksum(batch)).toBe(new DataView(batch.buffer).getBigUint64(40, true));
  });

  it('name the first frame whose bytes changed, or the batch checksum', () => {
    const messages = Array.from({ length: 50 }, (_, i) => ({ id: BigInt(i + 1), payload: pattern(60 + i * 7, i), originTimestamp: 7n }));
    const batch = encodeMessageBatch(messages);
    const view = new DataView(batch.buffer);
    const starts: number[] = [];
    for (let i = 0, at = 256; i < 50; i++) {
      starts.push(at);
      at += 48 + view.getUint32(at + 36, true);
    }
    const failure = (bytes: Uint8Array): unknown => {
      try {
        decodeMessageBatch(bytes, 0, { verifyChecksums: true });
      } catch (error) {
        return error;
      }
      return undefined;
    };
    for (const k of [0, 17, 49]) {
      const payloadFlip = batch.slice();
      payloadFlip[(starts[k] as number) + 48 + 3]! ^= 0x40;
      payloadFlip[(starts[49] as number) + 50]! ^= 0x01; // a later frame too: the first one is named
      const e = failure(payloadFlip);
      expect(e).toBeInstanceOf(IggyIntegrityError);
      expect((e as IggyIntegrityError).context).toMatchObject({ index: k, iggyCode: 4027 });
      const sumFlip = batch.slice();
      sumFlip[starts[k] as number]! ^= 0x80;
      expect((failure(sumFlip) as IggyIntegrityError).context).toMatchObject({ index: k, iggyCode: 4027 });
    }
    const batchSum = batch.slice();
    batchSum[44]! ^= 0x01;
    expect(failure(batchSum)).toBeInstanceOf(IggyIntegrityError);
    expect((failure(batchSum) as IggyIntegrityError).context).toMatchObject({ iggyCode: 4039 });
    const header = batch.slice();
    header[24]! ^= 0x01; // origin timestamp: part of the batch checksum's input
    expect((failure(header) as IggyIntegrityError).context).toMatchObject({ iggyCode: 4039 });
    expect(failure(batch)).toBeUndefined();
  });

  it('above the WebAssembly size limit take the JavaScript path with the same result', () => {
    const big = pattern(8 * 1024 * 1024 + 1, 3);
    const messages = [{ id: 9n, payload: big, originTimestamp: 1n }, { id: 10n, payload: pattern(100, 4), originTimestamp: 1n }];
    const batch = encodeMessageBatch(messages);
    expectFrameSums(batch);
    expect(decodeMessageBatch(batch, 0, { verifyChecksums: true }).header.messageCount).toBe(2);
  });

  it('keep the apache/iggy V1 vector: encoded byte for byte and verified', () => {
    const body = encodeSendMessagesRequest({ stream: 1, topic: 2, partitioning: partitioning.balanced(), messages: V1_MESSAGES }, 'vsr');
    expect(toHex(body)).toBe(toHex(V1));
    const d = decodeSendMessagesRequest(V1, 'vsr', { verifyChecksums: true });
    expect(d.batch?.header.batchChecksum).toBe(0x7c260763c8381fa9n);
    expect(d.batch?.frames.map((f) => f.checksum)).toEqual([0x7596755a20b9d2bfn, 0xc0b78e751c7e6bd6n]);
  });
});
