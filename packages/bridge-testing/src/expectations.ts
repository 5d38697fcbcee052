import { readFileSync } from 'node:fs';
import { applyJsonPatch, type JsonValue } from '@agdx/wire';
import { expect } from 'vitest';

/** One recorded difference from the published reference. */
export interface Divergence {
  /** Why we differ (the specification, the seeds, or a reference quirk). */
  readonly reason: string;
  /** RFC 6902 patch turning the reference's answer into ours; absent when a case-specific check applies. */
  readonly patch?: readonly unknown[];
}

/** The divergences recorded in a bridge's expectations file (test/expectations/<file>), and the ids a run exercised. */
export class Divergences {
  readonly table: ReadonlyMap<string, Divergence>;
  readonly used: Set<string> = new Set();

  /** `file`: the bridge's expectations file, e.g. `new URL('./expectations/a2a.json', import.meta.url)` in its test folder. */
  constructor(file: URL) {
    const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Divergence>;
    this.table = new Map(Object.entries(raw).filter(([id]) => !id.startsWith('$')));
    for (const [id, entry] of this.table) expect(entry.reason.length, `${id} needs a reason`).toBeGreaterThan(0);
  }

  /** True when `id` is recorded as divergent. */
  has(id: string): boolean {
    return this.table.has(id);
  }

  /**
   * Ours must equal the reference unless the case is recorded; a recorded case must differ
   * (else the entry is stale) and, with a patch, equal the patched reference.
   */
  compare(id: string, ours: unknown, reference: unknown): void {
    const entry = this.table.get(id);
    const normal = JSON.parse(JSON.stringify(ours)) as unknown;
    if (entry === undefined) {
      expect(normal, id).toEqual(reference);
      return;
    }
    this.used.add(id);
    expect(normal, `${id} is recorded as divergent but matches the reference (stale entry)`).not.toEqual(reference);
    if (entry.patch !== undefined) expect(normal, id).toEqual(applyJsonPatch(reference as JsonValue, entry.patch));
  }

  /** Marks a recorded case as exercised by a case-specific check. */
  markChecked(id: string): void {
    expect(this.table.has(id), `${id} differs from the reference but is not recorded`).toBe(true);
    this.used.add(id);
  }

  /** Every recorded id must name a case that exists and was exercised. */
  expectNoStaleEntries(existing: ReadonlySet<string>): void {
    for (const id of this.table.keys()) {
      expect(existing.has(id), `${id} names no fixture case`).toBe(true);
      expect(this.used.has(id), `${id} was not exercised (stale entry)`).toBe(true);
    }
  }
}
