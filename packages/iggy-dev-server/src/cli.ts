#!/usr/bin/env node
/** The agdx-iggy-dev command. */
export {};
