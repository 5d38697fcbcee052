/**
 * Against @agdx/iggy-dev-server in a separate process: the dropped-connection scenario and a
 * few client behaviours that need a real server (group rebalance across connections, heartbeats
 * on idle connections, keyed routing). The full conformance suite over TCP with both protocols
 * lives in packages/iggy-dev-server/test/conformance-over-tcp.test.ts.
 */

import { sealHeaders } from '@agdx/transport';
import { IggyTransport } from '@agdx/transport-iggy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevServerProcess, type DevServerProcess } from './support/dev-server-process.js';
import { runDropScenario } from './support/drop-scenario.js';

let server: DevServerProcess;
beforeAll(async () => {
  server = await startDevServerProcess();
}, 30_000);
afterAll(async () => {
  await server?.stop();
});

const text = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('against the dev server (separate process)', () => {
  it('vsr: 64 concurrent appends on one connection (merged behind the first) each get the offsets their own records are stored at', async () => {
    const t = await IggyTransport.connect({ port: server.port, protocol: 'vsr', heartbeatIntervalMs: 0 });
    try {
      const stream = `merge-${Date.now().toString(36)}`;
      await t.ensureStream(stream);
      await t.ensureTopic({ stream, topic: 't' }, { partitions: 2 });
      const appends = Array.from({ length: 64 }, (_, i) =>
        t.append({
          stream,
          topic: 't',
          routing: { partition: 1 },
          records: Array.from({ length: 1 + (i % 3) }, (_, k) => ({ payload: text(`${i}.${k}`), headers: new Map([['n', { kind: 'string' as const, value: text(`${i}`) }]]) })),
        }),
      );
      const results = await Promise.all(appends);
      const seen = new Set<bigint>();
      for (const [i, r] of results.entries()) {
        expect(r.partition).toBe(1);
        expect(r.count).toBe(1 + (i % 3));
        const back = await t.read({ stream, topic: 't', partition: 1, offset: r.baseOffset, maxCount: r.count });
        expect(back.map((x) => new TextDecoder().decode(x.payload))).toEqual(Array.from({ length: r.count }, (_, k) => `${i}.${k}`));
        expect(back.every((x) => new TextDecoder().decode(x.headers.get('n')?.value) === `${i}`)).toBe(true);
        for (const x of back) seen.add(x.offset);
      }
      expect(seen.size).toBe(results.reduce((n, r) => n + r.count, 0));
      const description = await t.describeTopic({ stream, topic: 't' });
      expect(description.partitions.find((p) => p.partition === 1)?.nextOffset).toBe(BigInt(seen.size));
    } finally {
      await t.close();
    }
  });

  for (const protocol of ['vsr', 'classic'] as const) {
    it(`${protocol}: what an append sends is fixed when append() is called: a queued append's records array, record objects and header maps may change afterwards, and sealed header maps are sent right on every use`, async () => {
      const t = await IggyTransport.connect({ port: server.port, protocol, heartbeatIntervalMs: 0 });
      try {
        const stream = `snapshot-${protocol}-${Date.now().toString(36)}`;
        await t.ensureStream(stream);
        await t.ensureTopic({ stream, topic: 't' }, { partitions: 1 });
        const sealed = sealHeaders(new Map([['agent', { kind: 'string' as const, value: text('a1') }]]));
        const loose = new Map([['n', { kind: 'string' as const, value: text('before') }]]);
        // The first append is on the wire when the second is called, so the second waits in the queue.
        const first = t.append({ stream, topic: 't', routing: { partition: 0 }, records: [{ payload: text('p0'), headers: sealed }] });
        const reused = { payload: text('p2') };
        const records = [{ payload: text('p1') }, reused];
        const second = t.append({ stream, topic: 't', routing: { partition: 0 }, records });
        records.push({ payload: text('late') });
        records[0] = { payload: text('replaced') };
        reused.payload = text('changed');
        const third = t.append({ stream, topic: 't', routing: { partition: 0 }, records: [{ payload: text('p3'), headers: sealed }, { payload: text('p4'), headers: loose }] });
        loose.set('n', { kind: 'string', value: text('after') });
        const placed = await Promise.all([first, second, third]);
        expect(placed.map((r) => [r.baseOffset, r.count])).toEqual([
          [0n, 1],
          [1n, 2],
          [3n, 2],
        ]);
        // Keyed: a classic append reads the partition count before it encodes its batch.
        const keyedRecord = { payload: text('k1') };
        const keyed = t.append({ stream, topic: 't', routing: { key: 'k' }, records: [keyedRecord] });
        keyedRecord.payload = text('k-changed');
        expect((await keyed).baseOffset).toBe(5n);
        const back = await t.read({ stream, topic: 't', partition: 0, offset: 0n, maxCount: 10 });
        const dec = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : new TextDecoder().decode(b));
        expect(back.map((r) => dec(r.payload))).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'k1']);
        expect(back.map((r) => [...r.headers].map(([k, v]) => `${k}=${dec(v.value)}`).join(','))).toEqual(['agent=a1', '', '', 'agent=a1', 'n=before', '']);
      } finally {
        await t.close();
      }
    });

    it(`${protocol}: concurrent appends to one partition or key over four connections land in call order, each at the offsets it was given`, async () => {
      const t = await IggyTransport.connect({ port: server.port, protocol, heartbeatIntervalMs: 0, connections: 4 });
      try {
        const stream = `order-${protocol}-${Date.now().toString(36)}`;
        await t.ensureStream(stream);
        await t.ensureTopic({ stream, topic: 't' }, { partitions: 3 });
        for (const routing of [{ partition: 2 }, { key: 'conversation-7' }] as const) {
          // Three waves: the first append of each goes alone, the rest queue behind it.
          for (let wave = 0; wave < 3; wave++) {
            const results = await Promise.all(
              Array.from({ length: 48 }, (_, i) => t.append({ stream, topic: 't', routing, records: Array.from({ length: 1 + (i % 2) }, (_, k) => ({ payload: text(`${wave}.${i}.${k}`) })) })),
            );
            for (let i = 1; i < results.length; i++) {
              const prev = results[i - 1] as { baseOffset: bigint; count: number; partition: number };
              expect(results[i]?.partition).toBe(prev.partition);
              expect(results[i]?.baseOffset).toBe(prev.baseOffset + BigInt(prev.count));
            }
            const first = results[0] as { baseOffset: bigint; partition: number };
            const total = results.reduce((n, r) => n + r.count, 0);
            const back = await t.read({ stream, topic: 't', partition: first.partition, offset: first.baseOffset, maxCount: total });
            const expected = results.flatMap((r, i) => Array.from({ length: r.count }, (_, k) => `${wave}.${i}.${k}`));
            expect(back.map((x) => new TextDecoder().decode(x.payload))).toEqual(expected);
          }
        }
      } finally {
        await t.close();
      }
    });

    it(`${protocol}: large batches sent from pooled frame buffers, several on the wire at once and one after another, are stored byte for byte`, async () => {
      // Batches of 300 × 200 B are frames of about 75 KB, so every send takes a pooled buffer; four
      // partitions put four sends on the wire together (classic pipelined on one connection, VSR
      // over four). Classic frames wait in the corked socket until the next tick, so there a buffer
      // handed to the next send before its frame left shows as wrong bytes (checked by making the
      // pool take buffers back at once); a VSR frame is written at once, usually in full.
      const t = await IggyTransport.connect({ port: server.port, protocol, heartbeatIntervalMs: 0, connections: protocol === 'vsr' ? 4 : 1 });
      try {
        const stream = `pool-${protocol}-${Date.now().toString(36)}`;
        await t.ensureStream(stream);
        await t.ensureTopic({ stream, topic: 't' }, { partitions: 4 });
        const payload = (p: number, round: number, i: number): Uint8Array => new Uint8Array(200).map((_, k) => (p * 61 + round * 29 + i * 7 + k) & 0xff);
        const sent: { partition: number; baseOffset: bigint; round: number }[] = [];
        for (let round = 0; round < 3; round++) {
          const results = await Promise.all(
            [0, 1, 2, 3].map((p) => t.append({ stream, topic: 't', routing: { partition: p }, records: Array.from({ length: 300 }, (_, i) => ({ payload: payload(p, round, i) })) })),
          );
          for (const r of results) sent.push({ partition: r.partition, baseOffset: r.baseOffset, round });
        }
        for (const { partition, baseOffset, round } of sent) {
          const back = await t.read({ stream, topic: 't', partition, offset: baseOffset, maxCount: 300 });
          expect(back.length).toBe(300);
          const wrong = back.findIndex((r, i) => Buffer.compare(r.payload, payload(partition, round, i)) !== 0);
          expect(wrong).toBe(-1);
        }
      } finally {
        await t.close();
      }
    });

    it(`${protocol}: a dropped connection mid-stream — reconnect, re-join, continue from the committed offset`, async () => {
      await runDropScenario(server.port, protocol);
    });

    it(`${protocol}: connection strings in both forms reach the server`, async () => {
      const bare = await IggyTransport.connect(`iggy:iggy@127.0.0.1:${server.port}`, { protocol });
      const full = await IggyTransport.connect(`iggy://iggy:iggy@127.0.0.1:${server.port}?protocol=${protocol}`);
      try {
        expect(full.protocol).toBe(protocol);
        const stream = `cs-${protocol}-${Date.now().toString(36)}`;
        await bare.ensureStream(stream);
        await full.ensureTopic({ stream, topic: 't' }, { partitions: 3 });
        const sent = await bare.append({ stream, topic: 't', routing: { key: 'session-1' }, records: [{ payload: text('k') }] });
        const [record] = await full.read({ stream, topic: 't', partition: sent.partition, offset: sent.baseOffset });
        expect(new TextDecoder().decode(record?.payload)).toBe('k');
      } finally {
        await bare.close();
        await full.close();
      }
    });

    it(`${protocol}: many concurrent calls and waits sharing one signal end together without a listener-leak warning`, async () => {
      const t = await IggyTransport.connect({ port: server.port, protocol, waitPollMs: { min: 2, max: 10 } });
      const warnings: Error[] = [];
      const onWarning = (warning: Error): void => void warnings.push(warning);
      process.on('warning', onWarning);
      try {
        const stream = `sig-${protocol}-${Date.now().toString(36)}`;
        await t.ensureStream(stream);
        await t.ensureTopic({ stream, topic: 't' }, { partitions: 1 });
        const controller = new AbortController();
        const signal = controller.signal;
        const reads = Array.from({ length: 20 }, () => t.read({ stream, topic: 't', partition: 0, offset: 0n, signal }));
        const waits = Array.from({ length: 20 }, () => t.waitFor({ stream, topic: 't', partition: 0, offset: 5n, timeoutMs: 30_000, signal }));
        for (const w of waits) w.catch(() => undefined);
        expect((await Promise.all(reads)).every((r) => r.length === 0)).toBe(true);
        controller.abort();
        for (const w of waits) await expect(w).rejects.toMatchObject({ kind: 'cancelled' });
        await new Promise((r) => setTimeout(r, 10));
        expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
      } finally {
        process.off('warning', onWarning);
        await t.close();
      }
    });
  }
});
