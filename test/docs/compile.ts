/**
 * Typechecks the documentation's TypeScript blocks against the packages' sources: one TypeScript
 * program, one virtual file per block, compiled with the repository's `tsconfig.json` options
 * (so `@agdx/*` resolves through the `@agdx/source` export condition to `src/`, as the typecheck
 * and vitest do). A block of `packages/<name>/README.md` sits, virtually, in that package's folder
 * and resolves its imports as the package does; the others sit beside their Markdown file.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';
import { assumptionSource, entrySource, exportedTypes, type ExportedTypes, type PackageEntry } from './assumptions.js';
import type { DocBlock } from './blocks.js';

/** What the compiler said about one block, each line `file:line:column TSnnnn message`. */
export interface BlockReport {
  readonly block: DocBlock;
  readonly errors: readonly string[];
}

/** The outcome of one check: a report per compiled block and anything not tied to a block. */
export interface DocsCheck {
  readonly reports: ReadonlyMap<DocBlock, BlockReport>;
  readonly general: readonly string[];
}

/** One block as the compiler sees it. */
interface VirtualBlock {
  readonly block: DocBlock;
  readonly fileName: string;
  readonly text: string;
  /** The 0-based line of the virtual file where the block's own code starts. */
  readonly firstLine: number;
  readonly errors: string[];
}

/** Compiles every block whose mode is not `not-compiled`; `blocks` in document order per file. */
export function checkDocBlocks(root: string, blocks: readonly DocBlock[]): DocsCheck {
  const general: string[] = [];
  const options = compilerOptions(root, general);
  const virtualFiles = new Map<string, string>();
  const host = cachingHost(options, virtualFiles);

  // Pass one: what each @agdx package exports, for the type names `// assumes:` may leave unimported.
  const entries = packageEntries(root);
  for (const entry of entries) virtualFiles.set(entry.fileName, entrySource(entry));
  const first = ts.createProgram({ rootNames: entries.map((e) => e.fileName), options, host });
  const exported = exportedTypes(first, entries);

  // Pass two: the blocks, reusing pass one's parsed sources.
  const virtual = virtualBlocks(root, blocks, exported);
  for (const v of virtual) virtualFiles.set(v.fileName, v.text);
  const program = ts.createProgram({ rootNames: virtual.map((v) => v.fileName), options, host, oldProgram: first });
  general.push(...program.getOptionsDiagnostics().map((d) => format(d)), ...program.getGlobalDiagnostics().map((d) => format(d)));
  for (const v of virtual) {
    const file = program.getSourceFile(v.fileName);
    if (file === undefined) {
      v.errors.push(`${v.block.name} was not compiled`);
      continue;
    }
    const syntactic = program.getSyntacticDiagnostics(file);
    const diagnostics = syntactic.length > 0 ? syntactic : program.getSemanticDiagnostics(file);
    for (const d of diagnostics) {
      const at = d.start === undefined ? undefined : file.getLineAndCharacterOfPosition(d.start);
      // Lines before the block's own are the block it continues: that block's test reports them.
      if (at !== undefined && at.line < v.firstLine) continue;
      const line = at === undefined ? v.block.fenceLine : v.block.fenceLine + 1 + at.line - v.firstLine;
      v.errors.push(`${v.block.file}:${line}:${(at?.character ?? 0) + 1} TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    }
  }
  return { reports: new Map(virtual.map((v) => [v.block, { block: v.block, errors: v.errors }])), general };
}

/** The repository's `tsconfig.json` options, as `scripts/typecheck.mjs` reads them. */
function compilerOptions(root: string, general: string[]): ts.CompilerOptions {
  const host: ts.ParseConfigFileHost = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => general.push(format(d)) };
  const parsed = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), { noEmit: true }, host);
  if (parsed === undefined) return {};
  general.push(...parsed.errors.map((d) => format(d)));
  return parsed.options;
}

/**
 * A compiler host that serves the virtual files and keeps every parsed source, so the second
 * program parses only the blocks.
 */
function cachingHost(options: ts.CompilerOptions, virtualFiles: ReadonlyMap<string, string>): ts.CompilerHost {
  const base = ts.createCompilerHost(options, true);
  const parsed = new Map<string, ts.SourceFile>();
  return {
    ...base,
    fileExists: (fileName) => virtualFiles.has(fileName) || base.fileExists(fileName),
    readFile: (fileName) => virtualFiles.get(fileName) ?? base.readFile(fileName),
    getSourceFile: (fileName, languageVersion, onError, shouldCreate) => {
      const cached = parsed.get(fileName);
      if (cached !== undefined && !shouldCreate) return cached;
      const text = virtualFiles.get(fileName);
      const file = text === undefined ? base.getSourceFile(fileName, languageVersion, onError, shouldCreate) : ts.createSourceFile(fileName, text, languageVersion, true);
      if (file !== undefined) parsed.set(fileName, file);
      return file;
    },
  };
}

/** Every package's public entry, imported by name from a virtual file in its own folder. */
function packageEntries(root: string): PackageEntry[] {
  const dir = join(root, 'packages');
  return readdirSync(dir)
    .filter((d) => existsSync(join(dir, d, 'package.json')))
    .sort()
    .map((d) => ({ name: (JSON.parse(readFileSync(join(dir, d, 'package.json'), 'utf8')) as { name: string }).name, fileName: join(dir, d, '__docs_check_exports__.ts') }));
}

/** The virtual file of every compiled block, continuations joined to the blocks they continue. */
function virtualBlocks(root: string, blocks: readonly DocBlock[], exported: ExportedTypes): VirtualBlock[] {
  const out: VirtualBlock[] = [];
  const textOf = new Map<DocBlock, string>();
  let previous: DocBlock | undefined;
  for (const block of blocks) {
    if (previous !== undefined && previous.file !== block.file) previous = undefined;
    const before = previous;
    previous = block;
    if (block.mode.kind === 'not-compiled') continue;
    const errors: string[] = [];
    let prefix = '';
    if (block.mode.kind === 'continues') {
      const earlier = before === undefined ? undefined : textOf.get(before);
      if (earlier === undefined) errors.push(`${block.name} says it continues the example above, but no compiled TypeScript block of ${block.file} comes before it`);
      else prefix = earlier;
    }
    const own = [...block.lines];
    // In order, so a later line sees the imports an earlier one added and adds none twice.
    for (const assumption of block.assumptions) {
      const problems: string[] = [];
      own[assumption.line] = assumptionSource(assumption.text, prefix + own.join('\n'), exported, problems);
      errors.push(...problems.map((p) => `${block.file}:${block.fenceLine + 1 + assumption.line} ${p}`));
    }
    const body = own.join('\n');
    textOf.set(block, `${prefix}${body}\n`);
    const fileName = resolve(root, dirname(block.file), `${block.file.split('/').pop()}.${block.fenceLine}.ts`);
    // `export {}` makes every block a module: top-level await, and no globals shared between blocks.
    out.push({ block, fileName, text: `${prefix}${body}\nexport {};\n`, firstLine: lineCount(prefix), errors });
  }
  return out;
}

function lineCount(text: string): number {
  return text === '' ? 0 : text.split('\n').length - 1;
}

function format(d: ts.Diagnostic): string {
  return `TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
}
