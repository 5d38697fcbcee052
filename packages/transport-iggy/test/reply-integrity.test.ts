/**
 * A client that checks what it is told: a poll reply with one byte flipped under a checksum is
 * refused with ChecksumMismatchError and none of its records reach `read`; a duplicated reply is
 * never taken as the answer to the next call; a VSR reply with another request number is refused
 * and the connection starts over, retrying reads and reporting an append's outcome as unknown.
 */

import { CommandCode } from '@agdx/iggy-protocol';
import { ChecksumMismatchError, IggyTransport, UnexpectedReplyError, isOutcomeUnknown } from '@agdx/transport-iggy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeAction, FakeRequest } from './support/fake-iggy-server.js';
import { startFakeServer, type FakeServer } from './support/fake-iggy-server.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

let server: FakeServer;
let intercept: ((r: FakeRequest) => FakeAction | undefined) | undefined;
beforeAll(async () => {
  server = await startFakeServer({ intercept: (r) => intercept?.(r) });
});
afterAll(async () => {
  await server.close();
});

/** The index of `needle` in `haystack`, or -1. */
function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** Acts on the next request with `code` only, once. */
function once(code: number, action: FakeAction): void {
  let used = false;
  intercept = (r) => {
    if (used || r.code !== code) return undefined;
    used = true;
    return action;
  };
}

for (const protocol of ['vsr', 'classic'] as const) {
  describe(`reply integrity (${protocol})`, () => {
    const stream = `integrity-${protocol}`;
    const address = { stream, topic: 't' };
    const payloads = ['payload-alpha', 'payload-bravo', 'payload-charlie'].map((p) => encoder.encode(p));

    const connect = (): Promise<IggyTransport> =>
      IggyTransport.connect(server.url, { protocol, requestTimeoutMs: 2_000, heartbeatIntervalMs: 0, reconnect: { maxAttempts: 5, initialDelayMs: 1 } });

    beforeAll(async () => {
      const t = await connect();
      try {
        await t.ensureStream(stream);
        await t.ensureTopic(address, { partitions: 1 });
        await t.append({ ...address, records: payloads.map((payload) => ({ payload })), routing: { partition: 0 } });
      } finally {
        await t.close();
      }
    });

    it('refuses every poll reply with a flipped byte in a message (payload, headers or fields) and reads clean bytes next', async () => {
      const t = await connect();
      try {
        const target = payloads[1] as Uint8Array;
        // Positions relative to the second payload: inside it, in the frame header before it
        // (ids, deltas or offsets, lengths excluded: they reframe rather than corrupt).
        const shifts = [0, 3, target.length - 1, -40, -32];
        let refused = 0;
        for (const shift of shifts) {
          for (const bit of [0x01, 0x80]) {
            once(CommandCode.PollMessages, {
              tamper: (frame) => {
                const copy = frame.slice();
                const at = indexOf(copy, target) + shift;
                copy[at] = (copy[at] as number) ^ bit;
                return copy;
              },
            });
            const error = await t.read({ ...address, partition: 0, offset: 0n, maxCount: 10 }).then(
              () => undefined,
              (e: unknown) => e,
            );
            expect(error).toBeInstanceOf(ChecksumMismatchError);
            expect((error as ChecksumMismatchError).kind).toBe('transport');
            expect((error as ChecksumMismatchError).context?.['partition']).toBe(0);
            refused++;
            const clean = await t.read({ ...address, partition: 0, offset: 0n, maxCount: 10 });
            expect(clean.map((r) => decoder.decode(r.payload))).toEqual(['payload-alpha', 'payload-bravo', 'payload-charlie']);
          }
        }
        expect(refused).toBe(shifts.length * 2);
      } finally {
        intercept = undefined;
        await t.close();
      }
    });

    it('does not take a duplicated reply for the answer to the next call', async () => {
      const t = await connect();
      try {
        const before = server.accepted();
        once(CommandCode.PollMessages, { tamper: (frame) => [frame, frame] });
        // Two polls at once: on classic the second is pipelined behind the first, so the
        // duplicate of the first reply is the next frame it would be handed.
        const [first, second] = await Promise.all([
          t.read({ ...address, partition: 0, offset: 0n, maxCount: 1 }),
          t.read({ ...address, partition: 0, offset: 2n, maxCount: 1 }),
        ]);
        expect(first.map((r) => decoder.decode(r.payload))).toEqual(['payload-alpha']);
        expect(second.map((r) => [r.offset, decoder.decode(r.payload)])).toEqual([[2n, 'payload-charlie']]);
        const topic = await t.describeTopic(address);
        expect(topic.partitionCount).toBe(1);
        // The stray frame was noticed: the connection was replaced.
        expect(server.accepted()).toBeGreaterThan(before);
      } finally {
        intercept = undefined;
        await t.close();
      }
    });
  });
}

describe('reply integrity (classic appends)', () => {
  it('does not take a duplicated send reply for the offset read behind it: the append fails as unknown and is stored once', async () => {
    const address = { stream: 'integrity-classic-append', topic: 't' };
    const t = await IggyTransport.connect(server.url, { protocol: 'classic', requestTimeoutMs: 2_000, heartbeatIntervalMs: 0, reconnect: { maxAttempts: 5, initialDelayMs: 1 } });
    try {
      await t.ensureStream(address.stream);
      await t.ensureTopic(address, { partitions: 1 });
      await t.append({ ...address, records: [{ payload: encoder.encode('first') }], routing: { partition: 0 } });
      once(CommandCode.SendMessages, { tamper: (frame) => [frame, frame] });
      const error = await t.append({ ...address, records: [{ payload: encoder.encode('doubled') }], routing: { partition: 0 } }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UnexpectedReplyError);
      expect((error as UnexpectedReplyError).mismatch).toBe('reply-shape');
      // It was stored: a caller must not take the refusal for a clean failure.
      expect(isOutcomeUnknown(error)).toBe(true);
      const records = await t.read({ ...address, partition: 0, offset: 0n, maxCount: 10 });
      expect(records.map((r) => decoder.decode(r.payload))).toEqual(['first', 'doubled']);
      const after = await t.append({ ...address, records: [{ payload: encoder.encode('after') }], routing: { partition: 0 } });
      expect(after.baseOffset).toBe(2n);
    } finally {
      intercept = undefined;
      await t.close();
    }
  });
});

describe('reply integrity (vsr request numbers)', () => {
  const address = { stream: 'integrity-numbers', topic: 't' };
  const renumber = (frame: Uint8Array): Uint8Array => {
    const copy = frame.slice();
    const view = new DataView(copy.buffer);
    view.setBigUint64(200, view.getBigUint64(200, true) + 7n, true);
    return copy;
  };

  it('refuses a reply with another request number, reconnects and retries a read', async () => {
    const t = await IggyTransport.connect(server.url, { protocol: 'vsr', requestTimeoutMs: 2_000, heartbeatIntervalMs: 0, reconnect: { maxAttempts: 5, initialDelayMs: 1 } });
    try {
      await t.ensureStream(address.stream);
      await t.ensureTopic(address, { partitions: 1 });
      const before = server.accepted();
      once(CommandCode.GetTopic, { tamper: renumber });
      expect((await t.describeTopic(address)).partitionCount).toBe(1);
      expect(server.accepted()).toBe(before + 1);
    } finally {
      intercept = undefined;
      await t.close();
    }
  });

  it('reports an append whose reply was renumbered as failed with unknown outcome, and does not resend it', async () => {
    const t = await IggyTransport.connect(server.url, { protocol: 'vsr', requestTimeoutMs: 2_000, heartbeatIntervalMs: 0, reconnect: { maxAttempts: 5, initialDelayMs: 1 } });
    try {
      await t.ensureStream(address.stream);
      await t.ensureTopic(address, { partitions: 1 });
      const start = (await t.describeTopic(address)).partitions[0]?.nextOffset ?? 0n;
      once(CommandCode.SendMessages, { tamper: renumber });
      const error = await t.append({ ...address, records: [{ payload: encoder.encode('renumbered') }], routing: { partition: 0 } }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((error as { kind?: string }).kind).toBe('transport');
      expect((error as Error).cause).toBeInstanceOf(UnexpectedReplyError);
      expect(((error as Error).cause as UnexpectedReplyError).mismatch).toBe('request-number');
      // The server did append it; the client must not have appended it a second time.
      const records = await t.read({ ...address, partition: 0, offset: start, maxCount: 10 });
      expect(records.map((r) => decoder.decode(r.payload))).toEqual(['renumbered']);
    } finally {
      intercept = undefined;
      await t.close();
    }
  });
});
