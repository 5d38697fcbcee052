/** `agdx demo` runs to the end on the embedded log and its transcript tells every step. */
import { DEMO_STEPS } from '@agdx/cli';
import { describe, expect, it } from 'vitest';
import { runAgdx } from './support.js';

const CROCKFORD_ID = /\b[0-9A-HJKMNP-TV-Z]{26}\b/;

describe('agdx demo', () => {
  it('runs every step in order and exits 0', async () => {
    const result = await runAgdx(['demo'], 60_000);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const out = result.stdout;
    let last = -1;
    DEMO_STEPS.forEach((title, index) => {
      const heading = `${String(index + 1).padStart(2)}. ${title}`;
      const at = out.indexOf(heading);
      expect(at, `missing step "${heading}"`).toBeGreaterThan(last);
      last = at;
    });
    expect(out).toMatch(CROCKFORD_ID);
    expect(out).toContain('5DD4NKQAN5D8VA7ZZRG8ZSN1R1'); // ConversationId.derive("incident-42")
    expect(out).toMatch(/reasoning\s+Incident 42 mentions/);
    expect(out).toMatch(/decision\s+approved \(by approver\)/);
    expect(out).toMatch(/state now\s+\{"incident":42,"status":"summarized","approvedBy":"approver"\}/);
    expect(out).toMatch(/dead letter\s+DecodeFailed/);
    expect(out).toMatch(/state\s+TASK_STATE_COMPLETED/);
    expect(out).toMatch(/isError\s+false/);
    expect(out).toMatch(/REASONING_MESSAGE_START.*TOOL_CALL_START.*TOOL_CALL_RESULT.*STATE_DELTA.*TEXT_MESSAGE_START/);
    expect(out).toContain('Session timeline — status completed');
    expect(out).toMatch(/demo finished in \d+ ms/);
  }, 70_000);
});
