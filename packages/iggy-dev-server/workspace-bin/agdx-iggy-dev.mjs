#!/usr/bin/env node
// The `agdx-iggy-dev` command inside this repository. The published package runs dist/cli.js
// (publishConfig.bin); dist/ does not exist in a fresh clone, so this file, which always does,
// runs the TypeScript source through tsx instead (see scripts/run-source.mjs).
import { runSource } from '../../../scripts/run-source.mjs';

runSource(new URL('../src/cli.ts', import.meta.url));
