/** The `agdx` dispatcher: picks the subcommand, prints help, turns failures into one line and an exit code. */

import { UsageError, errorLine, exitCodeOf, ExitCode } from './errors.js';
import { line, type CommandIo } from './io.js';
import type { Command } from './commands/command.js';
import { benchCommand } from './commands/bench.js';
import { demoCommand } from './commands/demo.js';
import { devCommand } from './commands/dev.js';
import { sessionsCommand } from './commands/sessions.js';
import { tailCommand } from './commands/tail.js';
import { tokensCommand } from './commands/tokens.js';
import { usersCommand } from './commands/users.js';

/** Every subcommand, in the order the overview lists them. */
export const COMMANDS: readonly Command[] = [demoCommand, devCommand, tailCommand, sessionsCommand, usersCommand, tokensCommand, benchCommand];

/** The overview printed by `agdx --help`. */
export function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'Usage: agdx <command> [options]',
    '',
    'AGDX on Apache Iggy: agents, sessions and bridges on one durable log.',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `agdx <command> --help` for the options of a command.',
    'Exit codes: 0 success, 1 runtime failure, 2 usage error.',
  ].join('\n');
}

/** Runs `agdx` with `argv` (the words after `agdx`) and returns the exit code; never throws. */
export async function runCli(argv: readonly string[], io: CommandIo): Promise<ExitCode> {
  const [name, ...rest] = argv;
  try {
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      if (name === 'help' && rest[0] !== undefined) return runCli([rest[0], '--help'], io);
      line(name === undefined ? io.err : io.out, overview());
      return name === undefined ? ExitCode.Usage : ExitCode.Ok;
    }
    if (name === '--version' || name === '-v') {
      line(io.out, '0.1.0');
      return ExitCode.Ok;
    }
    const command = COMMANDS.find((c) => c.name === name);
    if (command === undefined) throw new UsageError(`unknown command "${name}" (commands: ${COMMANDS.map((c) => c.name).join(', ')})`);
    await command.run(rest, io);
    return ExitCode.Ok;
  } catch (error) {
    line(io.err, errorLine(error));
    return exitCodeOf(error);
  }
}
