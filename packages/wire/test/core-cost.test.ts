import { AgdxError, costToMicros, isTerminalTaskState, TaskState, taskStateDisplay, taskStateName } from '@agdx/wire';
import { describe, expect, it } from 'vitest';

describe('costToMicros (wire-facts §9: × 1,000,000, round half up, u64)', () => {
  it.each([
    ['0', 0n],
    ['1', 1_000_000n],
    ['0.000001', 1n],
    ['0.0000005', 1n],
    ['0.0000004999', 0n],
    ['0.0125', 12_500n],
    ['12.3456785', 12_345_679n],
    ['12.34567849999', 12_345_678n],
    ['.5', 500_000n],
    ['5.', 5_000_000n],
    ['+2.5', 2_500_000n],
    ['18446744073709.551615', 18_446_744_073_709_551_615n],
    ['18446744073709.5516154', 18_446_744_073_709_551_615n],
  ])('%s → %s', (input, expected) => {
    expect(costToMicros(input)).toBe(expected);
  });

  it.each(['-1', '-0.000001', '1e3', '', '.', 'abc', '1.2.3', '0x10', 'NaN', '18446744073709.5516155', '18446744073709.551616'])(
    'rejects %j',
    (input) => {
      let err: unknown;
      try {
        costToMicros(input);
      } catch (e) {
        err = e;
      }
      expect(AgdxError.is(err, 'invalid')).toBe(true);
    },
  );
});

describe('task state dictionary', () => {
  it('names, display and terminal set (Paused = 10 is not terminal; unknown codes pass through)', () => {
    expect(taskStateName(TaskState.InputRequired)).toBe('InputRequired');
    expect(taskStateDisplay(3)).toBe('input-required');
    expect(taskStateDisplay(10)).toBe('paused');
    expect(taskStateDisplay(11)).toBe('unrecognized-11');
    expect(taskStateName(11)).toBeUndefined();
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].filter(isTerminalTaskState)).toEqual([4, 5, 6, 7]);
  });
});
