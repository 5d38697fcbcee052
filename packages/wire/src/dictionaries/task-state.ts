/**
 * Task state codes (u8). Unknown codes are kept as plain numbers, treated as non-terminal, and
 * re-encoded unchanged.
 */
export const TaskState: {
  readonly Submitted: 1;
  readonly Working: 2;
  readonly InputRequired: 3;
  readonly Completed: 4;
  readonly Canceled: 5;
  readonly Failed: 6;
  readonly Rejected: 7;
  readonly AuthRequired: 8;
  readonly Unknown: 9;
  readonly Paused: 10;
} = {
  Submitted: 1,
  Working: 2,
  InputRequired: 3,
  Completed: 4,
  Canceled: 5,
  Failed: 6,
  Rejected: 7,
  AuthRequired: 8,
  Unknown: 9,
  Paused: 10,
};

/** A task state code; any other u8 is an unrecognized (but legal) code. */
export type TaskState = (typeof TaskState)[keyof typeof TaskState];

/** A task state name. */
export type TaskStateName = keyof typeof TaskState;

const NAMES: readonly (TaskStateName | undefined)[] = [
  undefined,
  'Submitted',
  'Working',
  'InputRequired',
  'Completed',
  'Canceled',
  'Failed',
  'Rejected',
  'AuthRequired',
  'Unknown',
  'Paused',
];

const DISPLAY: readonly (string | undefined)[] = [
  undefined,
  'submitted',
  'working',
  'input-required',
  'completed',
  'canceled',
  'failed',
  'rejected',
  'auth-required',
  'unknown',
  'paused',
];

/** The name of a known code (`'InputRequired'`), or `undefined` for an unrecognized one. */
export function taskStateName(code: number): TaskStateName | undefined {
  return NAMES[code];
}

/** Kebab-case display form: `'input-required'`, or `'unrecognized-<code>'`. */
export function taskStateDisplay(code: number): string {
  return DISPLAY[code] ?? `unrecognized-${code}`;
}

/** Completed, Canceled, Failed and Rejected end a task; Paused and unrecognized codes do not. */
export function isTerminalTaskState(code: number): boolean {
  return code === 4 || code === 5 || code === 6 || code === 7;
}
