import { AgdxError } from '@agdx/wire';
import { backtickedField } from './fixtures.js';

/** The field an error names: its first backticked name, else `context.field`. */
export function errorField(e: { message: string; context?: Readonly<Record<string, unknown>> | undefined }): string | undefined {
  const ticked = backtickedField(e.message);
  if (ticked !== undefined) return ticked;
  const f = e.context?.field;
  return typeof f === 'string' ? f : undefined;
}

/** Outcome string of running `fn`: `accept`, or `reject:<stage>:<kind>[:<field>]`. Untyped throws are re-thrown. */
export function outcomeOf(fn: () => void, stage: string): string {
  try {
    fn();
    return 'accept';
  } catch (e) {
    if (!AgdxError.is(e)) throw e;
    const field = errorField(e);
    return `reject:${stage}:${e.kind}${field === undefined ? '' : `:${field}`}`;
  }
}
