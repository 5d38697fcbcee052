// The producer clock (`nowMicros`) gives the origin timestamp of every message without one. Its
// reading is range-checked once per batch on both generations: a clock answering a negative,
// fractional, over-u64 or non-bigint value is an IggyInvalidError, never a RangeError or
// TypeError from a DataView nor a batch carrying a wrapped timestamp.
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeMessageBatch, decodeSendMessagesRequest, encodeMessageBatch, encodeSendMessagesRequest, IggyInvalidError, initChecksums, partitioning } from '@agdx/iggy-protocol';
import type { IggyProtocol, OutgoingMessage } from '@agdx/iggy-protocol';

beforeAll(async () => {
  await initChecksums();
});

const PROTOCOLS: IggyProtocol[] = ['vsr', 'classic'];
const U64_MAX = 2n ** 64n - 1n;
const bare: OutgoingMessage[] = [{ payload: Uint8Array.of(1) }, { payload: Uint8Array.of(2, 3) }];
const BAD_READINGS: readonly unknown[] = [-1n, 2n ** 64n, -(2n ** 64n), 1.5, 5, Number.NaN, '5', undefined, null];

function send(protocol: IggyProtocol, messages: readonly OutgoingMessage[], clock: () => unknown): Uint8Array {
  return encodeSendMessagesRequest({ stream: 's', topic: 't', partitioning: partitioning.partitionId(0), messages }, protocol, { nowMicros: clock as () => bigint });
}

describe.each(PROTOCOLS)('the producer clock [%s]', (protocol) => {
  it.each(BAD_READINGS.map((v) => [String(v), v] as const))('a reading of %s is an IggyInvalidError naming the origin timestamp', (_name, reading) => {
    expect(() => send(protocol, bare, () => reading)).toThrow(IggyInvalidError);
    expect(() => send(protocol, bare, () => reading)).toThrow(/originTimestamp must be a u64/);
    // also when only a later message takes the clock
    expect(() => send(protocol, [{ payload: Uint8Array.of(1), originTimestamp: 7n }, { payload: Uint8Array.of(2) }], () => reading)).toThrow(IggyInvalidError);
  });

  it('the extremes 0 and u64 max are written as read', () => {
    for (const now of [0n, U64_MAX]) {
      const decoded = decodeSendMessagesRequest(send(protocol, bare, () => now), protocol).messages;
      expect(decoded.map((m) => m.originTimestamp)).toEqual([now, now]);
    }
  });

  it('is read once per batch, and not at all when every message carries its own origin', () => {
    let reads = 0;
    send(protocol, [...bare, ...bare], () => (reads++, 5n));
    expect(reads).toBe(1);
    expect(() => send(protocol, [{ payload: Uint8Array.of(1), originTimestamp: 9n }], () => -1n)).not.toThrow();
  });
});

describe('the VSR batch encoder on its own', () => {
  it('refuses a bad clock reading with an IggyInvalidError and encodes a good one', () => {
    for (const reading of BAD_READINGS) expect(() => encodeMessageBatch(bare, { nowMicros: () => reading as bigint })).toThrow(IggyInvalidError);
    const batch = decodeMessageBatch(encodeMessageBatch(bare, { nowMicros: () => 1_700_000_000_000_000n }));
    expect(batch.header.originTimestamp).toBe(1_700_000_000_000_000n);
    expect(batch.frames).toHaveLength(2);
  });
});
