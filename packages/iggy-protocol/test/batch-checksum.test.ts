// computeBatchChecksum against the definition in the protocol sheet, assembled by hand: XXH3-64
// of header bytes 0..40 and 48..52, then every frame's 8-byte checksum in frame order. Batches
// vary in frame sizes and user-header blocks, and the largest exceed the encoder's kept scratch
// (1,024 frames), so both the reused and a fresh input buffer are exercised.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { computeBatchChecksum, encodeMessageBatch, encodeUserHeaders, initChecksums, stampMessageBatch, xxh3_64 } from '@agdx/iggy-protocol';
import type { OutgoingMessage } from '@agdx/iggy-protocol';

beforeAll(async () => {
  await initChecksums();
});

/** The batch checksum as the sheet defines it, from the batch's own bytes. */
function byDefinition(batch: Uint8Array): bigint {
  const view = new DataView(batch.buffer, batch.byteOffset, batch.byteLength);
  const count = view.getUint32(48, true);
  const input: number[] = [...batch.subarray(0, 40), ...batch.subarray(48, 52)];
  let pos = 256;
  for (let i = 0; i < count; i++) {
    input.push(...batch.subarray(pos, pos + 8));
    pos += 48 + view.getUint32(pos + 32, true) + view.getUint32(pos + 36, true);
  }
  return xxh3_64(Uint8Array.from(input));
}

const messageArb: fc.Arbitrary<OutgoingMessage> = fc.record(
  {
    payload: fc.uint8Array({ maxLength: 200 }),
    rawHeaders: fc.uint8Array({ minLength: 1, maxLength: 20 }).map((v) => encodeUserHeaders(new Map([['k', { kind: 'raw', value: v }]]))),
  },
  { requiredKeys: ['payload'] },
);

describe('computeBatchChecksum', () => {
  it('equals the definition and the checksum the encoder wrote, for varied batches', () => {
    fc.assert(
      fc.property(fc.array(messageArb, { minLength: 1, maxLength: 40 }), fc.array(messageArb, { minLength: 1, maxLength: 40 }), (messages, other) => {
        const batch = encodeMessageBatch(messages);
        // Another batch in between, so nothing of this one lingers in shared scratch space.
        encodeMessageBatch(other);
        const stored = new DataView(batch.buffer).getBigUint64(40, true);
        expect(computeBatchChecksum(batch)).toBe(byDefinition(batch));
        expect(computeBatchChecksum(batch)).toBe(stored);
      }),
      { numRuns: 60 },
    );
  });

  it('holds for batches beyond the kept scratch, before and after the server stamps them', () => {
    const batches = [1024, 1025, 3000].map((count) => encodeMessageBatch(Array.from({ length: count }, (_, i) => ({ payload: Uint8Array.of(i & 0xff, i >>> 8, count & 0xff) }))));
    // Largest first, so the smaller ones are checked after other batches went through the scratch.
    for (const batch of batches.reverse()) {
      const count = new DataView(batch.buffer).getUint32(48, true);
      expect(computeBatchChecksum(batch)).toBe(byDefinition(batch));
      expect(computeBatchChecksum(batch, count)).toBe(new DataView(batch.buffer).getBigUint64(40, true));
      const stamped = stampMessageBatch(batch, { partitionId: 3, baseOffset: 1_000n, baseTimestamp: 1_700_000_000_000_000n });
      expect(computeBatchChecksum(stamped)).toBe(byDefinition(stamped));
      expect(computeBatchChecksum(stamped)).toBe(new DataView(stamped.buffer, stamped.byteOffset).getBigUint64(40, true));
    }
  });
});
