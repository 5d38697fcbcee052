/**
 * Reads the root README's five-minute tour as the tour test runs it: every `console` block of the
 * section, each `$` line a command, the lines under it what the command prints.
 */

/** One command of the tour and the lines the README says it prints. */
export interface TourStep {
  readonly command: string;
  readonly expected: readonly string[];
}

const SECTION = '## A five-minute tour';
const ELLIPSIS = '…';

/** The tour's commands in README order. Throws when the section or its blocks are missing. */
export function readTour(readme: string): TourStep[] {
  const from = readme.indexOf(SECTION);
  if (from < 0) throw new Error(`the README has no "${SECTION}" section`);
  const next = readme.indexOf('\n## ', from + SECTION.length);
  const section = readme.slice(from, next < 0 ? undefined : next);
  const steps: { command: string; expected: string[] }[] = [];
  for (const block of section.matchAll(/^( *)```console\n([\s\S]*?)^ *```$/gm)) {
    const indent = (block[1] ?? '').length;
    for (const raw of (block[2] ?? '').split('\n')) {
      const text = raw.slice(Math.min(indent, raw.length - raw.trimStart().length)).trimEnd();
      if (text.startsWith('$ ')) steps.push({ command: text.slice(2).trim(), expected: [] });
      else if (text.trim() !== '' && text.trim() !== ELLIPSIS) {
        const step = steps[steps.length - 1];
        if (step === undefined) throw new Error(`a tour block prints "${text}" before any command`);
        step.expected.push(text);
      }
    }
  }
  return steps;
}

/** A README output line as a whole-line pattern: `…` is any text, a run of spaces any spacing. */
export function linePattern(expected: string): RegExp {
  const body = expected
    .trim()
    .split(ELLIPSIS)
    .map((part) =>
      part
        .split(/\s+/)
        .map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('\\s+'),
    )
    .join('.*');
  return new RegExp(`^\\s*${body}\\s*$`);
}

/**
 * The first expected line that does not appear in `output` after the lines matched before it,
 * or undefined when every line appears in order.
 */
export function firstMissing(output: string, expected: readonly string[]): string | undefined {
  const lines = output.split('\n');
  let at = 0;
  for (const want of expected) {
    const pattern = linePattern(want);
    let found = -1;
    for (let i = at; i < lines.length; i++) {
      if (pattern.test(lines[i] as string)) {
        found = i;
        break;
      }
    }
    if (found < 0) return want;
    at = found + 1;
  }
  return undefined;
}
