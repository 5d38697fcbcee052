import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CommandCode,
  decodeSendMessagesResponse,
  decodeUserHeaders,
  encodeSendMessagesRequest,
  headerValue,
  initChecksums,
  partitioning,
} from '@agdx/iggy-protocol';
import type { HeaderValue } from '@agdx/iggy-protocol';
import { RawClient } from './helpers/raw-client.js';
import { exited, startChildServer } from './helpers/child-server.js';
import type { ChildServer } from './helpers/child-server.js';
import { createTopic, pollFrom } from './helpers/ops.js';

const children: ChildServer[] = [];
const folders: string[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) {
    c.process.kill('SIGKILL');
    await exited(c.process);
  }
  for (const f of folders.splice(0)) rmSync(f, { recursive: true, force: true });
});

interface Acknowledged {
  readonly partition: number;
  readonly offset: bigint;
  readonly payload: string;
  readonly headers: Map<string, HeaderValue>;
}

describe('crash recovery', () => {
  it('keeps every acknowledged append with its offset and headers after SIGKILL mid-stream (fsync always)', async () => {
    await initChecksums();
    const data = mkdtempSync(join(tmpdir(), 'agdx-iggy-crash-'));
    folders.push(data);
    const first = await startChildServer(['--port', '0', '--data', data, '--fsync', 'always']);
    children.push(first);
    const c = await RawClient.connect(first.port, 'vsr');
    await c.login();
    await createTopic(c, 'crash', 'log', 3);

    const acked: Acknowledged[] = [];
    const enc = new TextEncoder();
    let killed = false;
    const writer = (async () => {
      for (let i = 0; !killed; i++) {
        const count = (i % 3) + 1;
        const messages = Array.from({ length: count }, (_, j) => {
          const headers = new Map<string, HeaderValue>([
            ['seq', headerValue.uint64(BigInt(i))],
            ['part', headerValue.int32(j)],
            ['label', headerValue.string(`batch ${i} ✓`)],
          ]);
          return { payload: enc.encode(`${i}/${j}`), headers };
        });
        const body = encodeSendMessagesRequest({ stream: 'crash', topic: 'log', partitioning: i % 4 === 0 ? partitioning.balanced() : partitioning.key(`k${i % 7}`), messages }, 'vsr');
        let reply;
        try {
          reply = await c.call(CommandCode.SendMessages, body);
        } catch {
          return; // the server died with this request in flight: it was never acknowledged
        }
        if (!reply.ok) throw reply.error;
        const [confirmation] = decodeSendMessagesResponse(reply.payload);
        if (confirmation === undefined) throw new Error('no confirmation');
        messages.forEach((m, j) => acked.push({ partition: confirmation.partitionId, offset: confirmation.baseOffset + BigInt(j), payload: `${i}/${j}`, headers: m.headers }));
      }
    })();
    await expect.poll(() => acked.length, { timeout: 15_000 }).toBeGreaterThan(150);
    first.process.kill('SIGKILL');
    killed = true;
    await writer;
    await exited(first.process);
    c.close();

    const second = await startChildServer(['--port', '0', '--data', data, '--fsync', 'always']);
    children.push(second);
    const r = await RawClient.connect(second.port, 'classic');
    await r.login();
    const dec = new TextDecoder();
    for (let p = 0; p < 3; p++) {
      const recovered = await pollFrom(r, 'crash', 'log', p, 0n, 100_000);
      const byOffset = new Map(recovered.messages.map((m) => [m.offset, m]));
      // Offsets are contiguous from 0: nothing acknowledged is missing and nothing is reordered.
      expect(recovered.messages.map((m) => m.offset)).toEqual(recovered.messages.map((_, i) => BigInt(i)));
      for (const a of acked.filter((x) => x.partition === p)) {
        const m = byOffset.get(a.offset);
        expect(m, `partition ${p} offset ${a.offset}`).toBeDefined();
        expect(dec.decode(m?.payload)).toBe(a.payload);
        expect(decodeUserHeaders(m?.rawHeaders ?? new Uint8Array(0))).toEqual(a.headers);
      }
    }
    r.close();
  }, 60_000);
});
