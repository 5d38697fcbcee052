// The repository typecheck: one TypeScript program over `tsconfig.json` (every package's sources,
// tests, scripts, benchmarks and examples), with the build's declaration rules on packages' `src`.
//
// Why not plain `tsc -p tsconfig.json --noEmit`: each package's build emits declarations with
// `isolatedDeclarations`, so an export without an explicit type passed the typecheck and failed
// only in the build. Turning the option on for the whole program would hold tests and benchmarks
// (never emitted) to a rule only published declarations need, and a second program over `src`
// alone would check the sources twice. So this builds the program once with
// `isolatedDeclarations` on and asks for declaration diagnostics only where declarations are
// emitted; every other diagnostic is reported for every file, as `tsc` would.
//
// Usage: node scripts/typecheck.mjs [path/to/tsconfig.json]. Exit code 0 when clean, 1 otherwise.
import { relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const root = resolve(import.meta.dirname, '..');
const configPath = resolve(root, process.argv[2] ?? 'tsconfig.json');

/** Files whose declarations a package build emits: `packages/<name>/src/**`. */
function emitsDeclarations(fileName) {
  const parts = relative(root, fileName).split(sep);
  return parts.length > 3 && parts[0] === 'packages' && parts[2] === 'src' && !fileName.endsWith('.d.ts');
}

const configDiagnostics = [];
const host = {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (diagnostic) => configDiagnostics.push(diagnostic),
};
const parsed = ts.getParsedCommandLineOfConfigFile(configPath, { isolatedDeclarations: true, declaration: true, noEmit: true }, host);

const diagnostics = [...configDiagnostics];
if (parsed !== undefined) {
  diagnostics.push(...parsed.errors);
  const program = ts.createProgram({
    rootNames: parsed.fileNames,
    options: parsed.options,
    projectReferences: parsed.projectReferences,
    configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(parsed),
  });
  diagnostics.push(...program.getConfigFileParsingDiagnostics(), ...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics());
  for (const file of program.getSourceFiles()) {
    if (program.isSourceFileDefaultLibrary(file) || program.isSourceFileFromExternalLibrary(file)) continue;
    const syntactic = program.getSyntacticDiagnostics(file);
    diagnostics.push(...syntactic);
    if (syntactic.length > 0) continue;
    const semantic = program.getSemanticDiagnostics(file);
    diagnostics.push(...semantic);
    if (semantic.length === 0 && emitsDeclarations(file.fileName)) diagnostics.push(...program.getDeclarationDiagnostics(file));
  }
}

const sorted = ts.sortAndDeduplicateDiagnostics(diagnostics);
const formatHost = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => ts.sys.newLine };
if (sorted.length > 0) {
  const format = process.stdout.isTTY ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics;
  process.stdout.write(format(sorted, formatHost));
  const errors = sorted.filter((d) => d.category === ts.DiagnosticCategory.Error).length;
  process.stdout.write(`${ts.sys.newLine}Found ${errors} error${errors === 1 ? '' : 's'}.${ts.sys.newLine}`);
}
process.exitCode = sorted.some((d) => d.category === ts.DiagnosticCategory.Error) ? 1 : 0;
