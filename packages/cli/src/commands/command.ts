/** The shape every subcommand has. */

import type { CommandIo } from '../io.js';

/** One `agdx` subcommand. */
export interface Command {
  /** The word after `agdx`. */
  readonly name: string;
  /** One line for the overview. */
  readonly summary: string;
  /** The full --help text. */
  readonly help: string;
  /** Runs with the arguments after the subcommand name; throws on failure. */
  run(argv: readonly string[], io: CommandIo): Promise<void>;
}
