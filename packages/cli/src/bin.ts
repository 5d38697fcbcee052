#!/usr/bin/env node
/** The agdx command. */
export {};
