/** Argument parsing on node:util parseArgs, with every parse failure turned into a usage error. */

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './errors.js';

/** The options of one subcommand, in parseArgs form. */
export type OptionSpecs = NonNullable<ParseArgsConfig['options']>;

/** The parsed command line of one subcommand. */
export interface ParsedArgs {
  /** Option values by name (strings, booleans, or arrays for `multiple`). */
  readonly values: Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>;
  /** Positional arguments. */
  readonly positionals: readonly string[];
}

/** Parses `argv` strictly; an unknown option or a missing value is a {@link UsageError}. */
export function parseCommandArgs(argv: readonly string[], options: OptionSpecs, allowPositionals: boolean): ParsedArgs {
  try {
    const parsed = parseArgs({ args: [...argv], options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals, strict: true });
    return { values: parsed.values as ParsedArgs['values'], positionals: parsed.positionals };
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error), { cause: error });
  }
}

/** A string option, or undefined. */
export function stringOption(args: ParsedArgs, name: string): string | undefined {
  const value = args.values[name];
  return typeof value === 'string' ? value : undefined;
}

/** A boolean flag. */
export function flag(args: ParsedArgs, name: string): boolean {
  return args.values[name] === true;
}

/** A repeatable string option. */
export function listOption(args: ParsedArgs, name: string): string[] {
  const value = args.values[name];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return typeof value === 'string' ? [value] : [];
}

/** A whole number option within [min, max], or the default. */
export function intOption(args: ParsedArgs, name: string, fallback: number, min: number, max: number): number {
  const text = stringOption(args, name);
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text)) throw new UsageError(`--${name} must be a whole number, got "${text}"`);
  const value = Number(text);
  if (value < min || value > max) throw new UsageError(`--${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}
