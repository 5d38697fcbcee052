/** The Markdown files whose TypeScript examples must compile, relative to the repository root. */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The root README, every package's README and every document under `docs/`, sorted. */
export function documentedFiles(root: string): string[] {
  const packages = readdirSync(join(root, 'packages'))
    .filter((d) => existsSync(join(root, 'packages', d, 'README.md')))
    .map((d) => `packages/${d}/README.md`);
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return ['README.md', ...packages.sort(), ...docs.sort()];
}
