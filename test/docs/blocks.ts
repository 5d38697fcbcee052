/**
 * The TypeScript examples of a Markdown document: every fenced block tagged `ts` or `typescript`,
 * with where it starts and what its leading directive comments say (see the root README,
 * "Examples in the documentation").
 */

/** How a block asks to be compiled: on its own, after the block before it, or not at all. */
export type BlockMode = { readonly kind: 'alone' } | { readonly kind: 'continues' } | { readonly kind: 'not-compiled'; readonly reason: string };

/** One `// assumes:` line of a block. */
export interface Assumption {
  /** The 0-based index of the line in the block's `lines`. */
  readonly line: number;
  /** What follows `// assumes:` (`agent: Agent, log: LogTransport`). */
  readonly text: string;
}

/** One fenced TypeScript block of a Markdown file. */
export interface DocBlock {
  /** The Markdown file, relative to the repository root, with `/` separators. */
  readonly file: string;
  /** The 1-based line of the opening fence. */
  readonly fenceLine: number;
  /** The code lines, with the fence's indentation removed (list items indent their fences). */
  readonly lines: readonly string[];
  readonly mode: BlockMode;
  /** The `// assumes:` lines, each compiled as a `declare const` on the same line. */
  readonly assumptions: readonly Assumption[];
  /** `file:line`, the name the block's test carries. */
  readonly name: string;
}

// A fence (indented too: list items indent theirs) and its info string, whose first word is the
// language (CommonMark).
const ANY_OPEN = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/;
const TYPESCRIPT = new Set(['ts', 'typescript']);
const ASSUMES = /^\/\/\s*assumes:\s*(.*)$/;
const CONTINUES = /^\/\/\s*continues the example above\b/;
const NOT_COMPILED = /^\/\/\s*not compiled:\s*(.*)$/;

/** The TypeScript blocks of `markdown`, in document order; an unclosed block runs to the end. */
export function extractBlocks(file: string, markdown: string): DocBlock[] {
  const source = markdown.split(/\r?\n/);
  const blocks: DocBlock[] = [];
  for (let i = 0; i < source.length; i += 1) {
    const opening = ANY_OPEN.exec(source[i]!);
    if (opening === null) continue;
    const indent = opening[1]!.length;
    const fence = opening[2]!;
    const isTs = TYPESCRIPT.has(opening[3]!.toLowerCase());
    const lines: string[] = [];
    let j = i + 1;
    // A closing fence is the same character, at least as long, and nothing but spaces after it.
    const closing = new RegExp(`^\\s*${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
    for (; j < source.length && !closing.test(source[j]!); j += 1) lines.push(stripIndent(source[j]!, indent));
    if (isTs) blocks.push(describe(file, i + 1, lines));
    i = j;
  }
  return blocks;
}

/** Removes up to `indent` leading spaces: the fence's own indentation, as CommonMark does. */
function stripIndent(line: string, indent: number): string {
  let n = 0;
  while (n < indent && line[n] === ' ') n += 1;
  return line.slice(n);
}

/** Reads the directives from the block's leading comment lines. */
function describe(file: string, fenceLine: number, lines: string[]): DocBlock {
  let mode: BlockMode = { kind: 'alone' };
  const assumptions: Assumption[] = [];
  for (let k = 0; k < lines.length; k += 1) {
    const line = lines[k]!.trim();
    if (!line.startsWith('//')) break;
    const skip = NOT_COMPILED.exec(line);
    const assumed = ASSUMES.exec(line);
    if (skip !== null) mode = { kind: 'not-compiled', reason: skip[1]!.trim() };
    else if (CONTINUES.test(line)) mode = { kind: 'continues' };
    else if (assumed !== null) assumptions.push({ line: k, text: assumed[1]!.trim() });
  }
  return { file, fenceLine, lines, mode, assumptions, name: `${file}:${fenceLine}` };
}
