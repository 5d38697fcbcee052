/**
 * With fsync `interval`, nobody waits for the periodic sync, so its failure must reach
 * `onStorageError` (a `storage` DevServerError with the cause), be retried on the next tick,
 * and never stop the server. The disk is made to fail by replacing `fdatasync` only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DevServerError, startDevServer } from '@agdx/iggy-dev-server';
import { IggyTransport } from '@agdx/transport-iggy';

const disk = vi.hoisted(() => ({ failing: false, syncs: 0 }));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const fdatasyncSync = (fd: number): void => {
    disk.syncs++;
    if (disk.failing) throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    fs.fdatasyncSync(fd);
  };
  return { ...fs, fdatasyncSync, default: { ...fs, fdatasyncSync } };
});

const folders: string[] = [];
afterEach(() => {
  disk.failing = false;
  for (const f of folders.splice(0)) rmSync(f, { recursive: true, force: true });
});

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

describe('periodic fsync failures', () => {
  it('reach onStorageError as storage errors with the cause, are retried, and the server keeps serving', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agdx-iggy-fsync-'));
    folders.push(dir);
    const reported: DevServerError[] = [];
    await using server = await startDevServer({ data: dir, fsync: 'interval', fsyncIntervalMs: 20, onStorageError: (e) => reported.push(e) });
    const t = await IggyTransport.connect(server.url, { protocol: 'vsr' });
    try {
      await t.ensureStream('s');
      await t.ensureTopic({ stream: 's', topic: 't' }, { partitions: 1 });
      disk.failing = true;
      const appended = await t.append({ stream: 's', topic: 't', records: [{ payload: new Uint8Array([1, 2, 3]) }] });
      expect(await until(() => reported.length >= 2, 10_000)).toBe(true);
      const [first] = reported;
      expect(DevServerError.is(first, 'storage')).toBe(true);
      expect(first?.message).toContain('fsync');
      expect((first?.cause as { code?: string }).code).toBe('EIO');
      // The partition stays dirty, so the sync is tried again once the disk recovers.
      disk.failing = false;
      const before = disk.syncs;
      expect(await until(() => disk.syncs > before, 10_000)).toBe(true);
      const settled = reported.length;
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(reported.length).toBe(settled);
      const records = await t.read({ stream: 's', topic: 't', partition: appended.partition, offset: appended.baseOffset });
      expect(records.map((r) => [...r.payload])).toEqual([[1, 2, 3]]);
    } finally {
      await t.close();
    }
  });

  it('a throwing onStorageError does not stop the periodic syncs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agdx-iggy-fsync-'));
    folders.push(dir);
    let calls = 0;
    await using server = await startDevServer({
      data: dir,
      fsync: 'interval',
      fsyncIntervalMs: 20,
      onStorageError: () => {
        calls++;
        throw new Error('reporter failed');
      },
    });
    const t = await IggyTransport.connect(server.url, { protocol: 'classic' });
    try {
      await t.ensureStream('s');
      await t.ensureTopic({ stream: 's', topic: 't' }, { partitions: 1 });
      disk.failing = true;
      await t.append({ stream: 's', topic: 't', records: [{ payload: new Uint8Array([9]) }] });
      expect(await until(() => calls >= 3, 10_000)).toBe(true);
    } finally {
      disk.failing = false;
      await t.close();
    }
  });
});
