/**
 * Docs match code: every TypeScript example in the root README, the packages' READMEs and
 * `docs/*.md` typechecks against the packages' sources, one test per block named `file:line`.
 * The conventions (`// assumes:`, `// continues the example above`, `// not compiled:`) are in
 * the root README, "Examples in the documentation".
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { extractBlocks, type DocBlock } from './blocks.js';
import { checkDocBlocks, type DocsCheck } from './compile.js';
import { documentedFiles } from './files.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURE = 'test/docs/fixtures/examples.md';

const blocks = documentedFiles(root).flatMap((file) => extractBlocks(file, readFileSync(join(root, file), 'utf8')));
const fixtureText = readFileSync(join(root, FIXTURE), 'utf8');
const fixture = extractBlocks(FIXTURE, fixtureText);

// One program for the documents and the fixture: the fixture's expectations test the same run.
// It takes seconds (all the packages' sources are parsed), more on a loaded machine, hence the
// hook's own timeout rather than vitest's 10 s default.
let check: DocsCheck;
beforeAll(() => {
  check = checkDocBlocks(root, [...blocks, ...fixture]);
}, 120_000);

function errorsOf(block: DocBlock): readonly string[] | undefined {
  return check.reports.get(block)?.errors;
}

describe('docs match code', () => {
  it('compiles with the repository options', () => {
    expect(check.general).toEqual([]);
  });

  for (const block of blocks) {
    if (block.mode.kind === 'not-compiled') {
      const reason = block.mode.reason;
      if (reason === '') it(block.name, () => expect.fail(`${block.name}: "// not compiled:" must say why`));
      else it.skip(`${block.name} (not compiled: ${reason})`, () => {});
    } else {
      it(block.name, () => expect(errorsOf(block)).toEqual([]));
    }
  }
});

describe('the check itself (test/docs/fixtures/examples.md)', () => {
  /** The 1-based Markdown line holding `marker`. */
  const lineOf = (marker: string): number => fixtureText.split('\n').findIndex((l) => l.includes(marker)) + 1;

  it('finds every ts and typescript block, with its fence line and directives', () => {
    expect(fixture.map((b) => b.mode.kind)).toEqual(['alone', 'continues', 'alone', 'alone', 'not-compiled', 'not-compiled', 'continues', 'alone', 'alone', 'alone', 'alone']);
    expect(fixture[0]?.fenceLine).toBe(lineOf('// assumes: log: LogTransport') - 1);
    expect(fixture[0]?.assumptions).toEqual([{ line: 0, text: 'log: LogTransport' }]);
    expect(fixture[8]?.assumptions.map((a) => a.line)).toEqual([0, 1]);
  });

  it('accepts an assumption typed by a package export, and a continuation of it', () => {
    expect(errorsOf(fixture[0]!)).toEqual([]);
    expect(errorsOf(fixture[1]!)).toEqual([]);
  });

  it('imports a type two assumption lines name once', () => {
    expect(errorsOf(fixture[8]!)).toEqual([]);
  });

  it('names the line of an assumed type that nothing defines', () => {
    expect(errorsOf(fixture[9]!)).toEqual([expect.stringMatching(new RegExp(`^${FIXTURE}:${lineOf('NoSuchTransport')}:\\d+ TS2304 .*NoSuchTransport`))]);
  });

  it('names the file and line of a method that does not exist', () => {
    const errors = errorsOf(fixture[2]!) ?? [];
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(new RegExp(`^${FIXTURE}:${lineOf('WRONG-METHOD')}:\\d+ TS2551 .*ensureStreem`));
  });

  it('names the file and line of an argument of the wrong shape', () => {
    const errors = errorsOf(fixture[3]!) ?? [];
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toMatch(new RegExp(`^${FIXTURE}:${lineOf('WRONG-SHAPE')}:\\d+ TS2345 `));
  });

  it('reads an indented fence in a list item, and no fence inside a longer one', () => {
    expect(fixture[10]?.fenceLine).toBe(lineOf('INDENTED-WRONG') - 3);
    expect(fixture[10]?.lines[0]).toBe("import { MemoryLog } from '@agdx/transport';");
    expect(errorsOf(fixture[10]!)).toEqual([expect.stringMatching(new RegExp(`^${FIXTURE}:${lineOf('INDENTED-WRONG')}:\\d+ TS2551 `))]);
  });

  it('compiles no block marked not compiled, and keeps the reason', () => {
    expect(check.reports.has(fixture[4]!)).toBe(false);
    expect(fixture[4]?.mode).toEqual({ kind: 'not-compiled', reason: 'pseudo-code for the fixture' });
    expect(fixture[5]?.mode).toEqual({ kind: 'not-compiled', reason: '' });
  });

  it('refuses a continuation of a block that is not compiled, and an empty assumption', () => {
    expect(errorsOf(fixture[6]!)?.[0]).toContain('no compiled TypeScript block');
    expect(errorsOf(fixture[7]!)).toEqual([expect.stringContaining('names nothing')]);
  });
});
