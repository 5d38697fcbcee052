/**
 * Records whose header bytes fall outside the typed model (another client wrote them; servers
 * store headers unchecked) are still delivered with their payload; unreadable headers are skipped.
 */

import {
  CommandCode,
  encodeMessageBatch,
  encodePollResponseClassic,
  encodePollResponseVsr,
  stampMessageBatch,
} from '@agdx/iggy-protocol';
import { IggyTransport } from '@agdx/transport-iggy';
import { readHeaderValue } from '@agdx/transport';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeAction, FakeRequest } from './support/fake-iggy-server.js';
import { startFakeServer, type FakeServer } from './support/fake-iggy-server.js';

function entry(keyKind: number, key: Uint8Array, valueKind: number, value: Uint8Array): Uint8Array {
  const out = new Uint8Array(10 + key.length + value.length);
  const view = new DataView(out.buffer);
  out[0] = keyKind;
  view.setUint32(1, key.length, true);
  out.set(key, 5);
  out[5 + key.length] = valueKind;
  view.setUint32(6 + key.length, value.length, true);
  out.set(value, 10 + key.length);
  return out;
}

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const concat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

const MIXED = concat(
  entry(2, utf8('good'), 2, utf8('ok')),
  entry(2, utf8('unknown-kind'), 99, utf8('x')),
  entry(1, utf8('raw-key'), 2, utf8('y')),
  entry(2, utf8('short-int'), 6, Uint8Array.of(1, 2)),
  entry(2, Uint8Array.of(0xff, 0xfe), 2, utf8('bad key')),
);
const NOT_TLV = Uint8Array.of(1, 2, 3);

let server: FakeServer;
let blocks: Uint8Array[] = [];
let protocolInUse: 'vsr' | 'classic' = 'vsr';

function pollReply(request: FakeRequest): FakeAction | undefined {
  if (request.code !== CommandCode.PollMessages || blocks.length === 0) return undefined;
  const now = BigInt(Date.now()) * 1000n;
  const payload = utf8('payload survives');
  if (protocolInUse === 'classic') {
    return {
      payload: encodePollResponseClassic(
        0,
        BigInt(blocks.length - 1),
        blocks.map((rawHeaders, i) => ({ id: 1n, offset: BigInt(i), timestamp: now, originTimestamp: now, payload, rawHeaders })),
      ),
    };
  }
  const batches = blocks.map((rawHeaders, i) =>
    stampMessageBatch(encodeMessageBatch([{ id: 1n, payload, rawHeaders }]), { partitionId: 0, baseOffset: BigInt(i), baseTimestamp: now }),
  );
  return { payload: encodePollResponseVsr(0, BigInt(blocks.length - 1), batches) };
}

beforeAll(async () => {
  server = await startFakeServer({ intercept: pollReply });
});
afterAll(async () => {
  await server.close();
});

for (const protocol of ['vsr', 'classic'] as const) {
  describe(`headers written outside the typed model (${protocol})`, () => {
    it('keeps the readable headers and delivers every record', async () => {
      protocolInUse = protocol;
      const t = await IggyTransport.connect(server.url, { protocol });
      try {
        const stream = `foreign-${protocol}`;
        await t.ensureStream(stream);
        await t.ensureTopic({ stream, topic: 't' }, { partitions: 1 });
        blocks = [MIXED, NOT_TLV];
        const records = await t.read({ stream, topic: 't', partition: 0, offset: 0n });
        expect(records.map((r) => r.offset)).toEqual([0n, 1n]);
        for (const r of records) expect(new TextDecoder().decode(r.payload)).toBe('payload survives');
        expect([...(records[0]?.headers.keys() ?? [])]).toEqual(['good']);
        const good = records[0]?.headers.get('good');
        expect(good === undefined ? undefined : readHeaderValue(good)).toBe('ok');
        expect(records[1]?.headers.size).toBe(0);
      } finally {
        blocks = [];
        await t.close();
      }
    });
  });
}
