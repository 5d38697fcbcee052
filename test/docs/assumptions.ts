/**
 * `// assumes:` lines: the names a fragment uses without defining them, compiled as
 * `declare const` on the line itself, so every later line keeps its Markdown line number.
 */
import ts from 'typescript';

/** A type name to the one `@agdx/*` package it is imported from; undefined when ambiguous. */
export type ExportedTypes = ReadonlyMap<string, string | undefined>;

/** An `@agdx/*` package's public entry, imported by a virtual file in the package's folder. */
export interface PackageEntry {
  readonly name: string;
  readonly fileName: string;
}

/** The source of the virtual file that imports `entry`, so its exports can be listed. */
export function entrySource(entry: PackageEntry): string {
  return `import * as entry from '${entry.name}';\nexport { entry };\n`;
}

/**
 * The type names the packages' entries export. One declaration re-exported by several packages
 * is one name (the first package in `entries` order); two declarations under one name are
 * ambiguous, and an assumption must then import the one it means.
 */
export function exportedTypes(program: ts.Program, entries: readonly PackageEntry[]): ExportedTypes {
  const checker = program.getTypeChecker();
  const found = new Map<string, { readonly target: ts.Symbol; readonly from: string } | undefined>();
  for (const entry of entries) {
    const statement = program.getSourceFile(entry.fileName)?.statements.find(ts.isImportDeclaration);
    const module = statement === undefined ? undefined : checker.getSymbolAtLocation(statement.moduleSpecifier);
    if (module === undefined) continue;
    for (const symbol of checker.getExportsOfModule(module)) {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      if ((target.flags & ts.SymbolFlags.Type) === 0) continue;
      const name = symbol.getName();
      if (!found.has(name)) found.set(name, { target, from: entry.name });
      else if (found.get(name)?.target !== target) found.set(name, undefined);
    }
  }
  return new Map([...found].map(([name, at]) => [name, at?.from]));
}

/**
 * One `// assumes: agent: Agent, log: LogTransport` line as TypeScript: an `import type` for each
 * type name that `blockText` does not bind and one package exports, then `declare const` of the
 * names. Problems (nothing assumed, an ambiguous name) are pushed to `errors`.
 */
export function assumptionSource(text: string, blockText: string, exported: ExportedTypes, errors: string[]): string {
  if (text === '') {
    errors.push('"// assumes:" names nothing');
    return '';
  }
  const declaration = `declare const ${text};`;
  const bound = boundNames(ts.createSourceFile('block.ts', blockText, ts.ScriptTarget.Latest, true));
  const wanted = new Map<string, Set<string>>();
  const visit = (node: ts.Node): void => {
    if (ts.isTypeReferenceNode(node)) {
      let name: ts.EntityName = node.typeName;
      while (ts.isQualifiedName(name)) name = name.left;
      const from = exported.get(name.text);
      if (bound.has(name.text) || !exported.has(name.text)) {
        // The block's own, a global (Uint8Array, Request) or unknown: the compiler has the last word.
      } else if (from === undefined) errors.push(`"// assumes:" names ${name.text}, which several @agdx packages export as different declarations: import the one meant`);
      else wanted.set(from, (wanted.get(from) ?? new Set()).add(name.text));
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile('assumes.ts', declaration, ts.ScriptTarget.Latest, true));
  const imports = [...wanted].map(([from, names]) => `import type { ${[...names].join(', ')} } from '${from}'; `);
  return imports.join('') + declaration;
}

/** The names a module binds at its top level: imports and declarations. */
function boundNames(file: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.name) names.add(clause.name.text);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) names.add(bindings.name.text);
      else if (bindings) for (const element of bindings.elements) names.add(element.name.text);
    } else if (ts.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations) if (ts.isIdentifier(d.name)) names.add(d.name.text);
    } else if ((ts.isClassDeclaration(statement) || ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement) || ts.isFunctionDeclaration(statement) || ts.isEnumDeclaration(statement)) && statement.name) {
      names.add(statement.name.text);
    }
  }
  return names;
}
