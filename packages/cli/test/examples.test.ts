/**
 * Runs every example of examples/ (the seed snippets and hello-envelope) in its own child
 * process from source, bounded in time, and checks it exits 0. An example that cannot run yet
 * must be listed in examples/PENDING.md with a reason; nothing is skipped silently.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLES_DIR, runNode } from './support.js';

const EXAMPLE_TIMEOUT_MS = 60_000;

const examples = readdirSync(EXAMPLES_DIR)
  .filter((name) => name.endsWith('.ts'))
  .sort();

/** `- file.ts: reason` lines of examples/PENDING.md. */
function pendingList(): Map<string, string> {
  const path = join(EXAMPLES_DIR, 'PENDING.md');
  const pending = new Map<string, string>();
  if (!existsSync(path)) return pending;
  for (const match of readFileSync(path, 'utf8').matchAll(/^- `?([\w.-]+\.ts)`?:\s*(.+)$/gm)) pending.set(match[1]!, match[2]!.trim());
  return pending;
}

const pending = pendingList();

describe('examples', () => {
  it('has the seed examples and every PENDING.md entry names an existing example with a reason', () => {
    expect(examples.filter((name) => name.startsWith('seed-')).length).toBeGreaterThanOrEqual(18);
    for (const [name, reason] of pending) {
      expect(examples, `PENDING.md lists ${name}, which is not in examples/`).toContain(name);
      expect(reason.length, `PENDING.md gives no reason for ${name}`).toBeGreaterThan(10);
    }
  });

  for (const name of examples) {
    const reason = pending.get(name);
    it.concurrent(
      reason === undefined ? `${name} runs and exits 0` : `${name} is pending (${reason}) and still fails`,
      async () => {
        const result = await runNode(join(EXAMPLES_DIR, name), [], EXAMPLE_TIMEOUT_MS);
        const output = `exit ${String(result.code)}${result.timedOut ? ' (timed out)' : ''}\n--- stdout\n${result.stdout.slice(-2000)}\n--- stderr\n${result.stderr.slice(-2000)}`;
        if (reason === undefined) expect(result.code, output).toBe(0);
        // A pending example that now passes must leave PENDING.md, so the list stays honest.
        else expect(result.code, `${name} passes now: remove it from examples/PENDING.md`).not.toBe(0);
      },
      EXAMPLE_TIMEOUT_MS + 10_000,
    );
  }
});
