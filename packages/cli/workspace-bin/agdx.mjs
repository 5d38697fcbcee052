#!/usr/bin/env node
// The `agdx` command inside this repository. The published package runs dist/bin.js
// (publishConfig.bin), but dist/ does not exist in a fresh clone, so pnpm could not link a bin
// pointing there ("Failed to create bin") and `pnpm exec agdx` was "not found". This file is
// always present: it runs the TypeScript source through tsx with the source condition, the
// same way the root `pnpm agdx` and `pnpm demo` scripts do.
import { runSource } from '../../../scripts/run-source.mjs';

runSource(new URL('../src/bin.ts', import.meta.url));
