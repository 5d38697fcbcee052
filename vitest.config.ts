import { readdirSync, existsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

// One vitest project per package folder; tests import packages by their public names and the
// "@agdx/source" export condition points those names at src/, so no build is needed to test.
const packages = readdirSync(new URL('./packages/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(new URL(`./packages/${entry.name}/package.json`, import.meta.url)))
  .map((entry) => entry.name)
  .sort();

export default defineConfig({
  resolve: { conditions: ['@agdx/source'] },
  ssr: { resolve: { conditions: ['@agdx/source'], externalConditions: ['@agdx/source'] } },
  test: {
    projects: packages.map((name) => ({
      extends: true as const,
      test: {
        name,
        root: `./packages/${name}`,
        include: ['test/**/*.test.ts'],
        testTimeout: 30_000,
      },
    })).concat([
      // Repository-wide checks: the runtime matrix and the size budgets (of the built packages),
      // and the documentation's TypeScript examples (against the sources).
      { extends: true as const, test: { name: 'runtimes', root: './test/runtimes', include: ['**/*.test.ts'], testTimeout: 120_000 } },
      { extends: true as const, test: { name: 'size', root: './test/size', include: ['**/*.test.ts'], testTimeout: 120_000 } },
      { extends: true as const, test: { name: 'docs', root: './test/docs', include: ['**/*.test.ts'], testTimeout: 30_000 } },
    ]),
    reporters: process.env.AGDX_TEST_JSON ? ['default', ['json', { outputFile: process.env.AGDX_TEST_JSON }]] : ['default'],
  },
});
