/** `--layout` and its declarations: the stream layout the reading commands ask where records live. */

import { checkStreamLayout, SHARED_LAYOUT, type StreamLayout } from '@agdx/agents';
import { AgdxError } from '@agdx/wire';
import { listOption, stringOption, type OptionSpecs, type ParsedArgs } from './args.js';
import { UsageError } from './errors.js';

/** The layout kinds `--layout` accepts: the `kind` names of the agents package's `StreamLayout`. */
export const LAYOUT_KINDS: readonly StreamLayout['kind'][] = ['shared', 'perAgentTopic', 'perAgentPartition', 'singlePartition'];

/** The parseArgs specs of the layout options, for a command to spread into its own. */
export const LAYOUT_OPTION_SPECS: OptionSpecs = {
  layout: { type: 'string' },
  'agent-topic': { type: 'string', multiple: true },
  'agent-partition': { type: 'string', multiple: true },
};

/**
 * The help lines of the layout options, with descriptions starting at `column` (the command's
 * other options' column; a longer option name gets its description on the next line).
 */
export function layoutOptionsHelp(column: number): string {
  const rows: [string, string[]][] = [
    ['--layout KIND', [`the stream layout the log was written with (default shared):`, LAYOUT_KINDS.join(', ')]],
    ['--agent-topic AGENT=TOPIC', ['perAgentTopic: a declared agent and its topic; repeatable']],
    ['--agent-partition AGENT=N', ['perAgentPartition: a declared agent and its partition; repeatable']],
  ];
  const pad = ' '.repeat(column);
  return rows
    .map(([name, lines]) => {
      const head = `  ${name}`;
      const first = head.length + 2 <= column ? `${head.padEnd(column)}${lines[0]}` : `${head}\n${pad}${lines[0]}`;
      return [first, ...lines.slice(1).map((l) => pad + l)].join('\n');
    })
    .join('\n');
}

/** Splits `AGENT=VALUE` declarations, refusing a repeated agent or a missing side. */
function declarations(args: ParsedArgs, option: string): [string, string][] {
  const seen = new Set<string>();
  return listOption(args, option).map((text) => {
    const at = text.indexOf('=');
    const agent = at < 0 ? '' : text.slice(0, at);
    const value = at < 0 ? '' : text.slice(at + 1);
    if (agent === '' || value === '') throw new UsageError(`--${option} must be AGENT=VALUE, got "${text}"`);
    if (seen.has(agent)) throw new UsageError(`--${option} declares agent "${agent}" twice`);
    seen.add(agent);
    return [agent, value];
  });
}

/**
 * The layout the command line names, checked the way a client checks it. A declaration the kind
 * does not use is a usage error rather than ignored: it means the reader misremembers the layout.
 * @throws UsageError for an unknown kind, a malformed or stray declaration, or a layout the agents
 *   package refuses.
 */
export function layoutFromArgs(args: ParsedArgs): StreamLayout {
  const kind = stringOption(args, 'layout') ?? 'shared';
  if (!LAYOUT_KINDS.includes(kind as StreamLayout['kind'])) throw new UsageError(`--layout must be one of ${LAYOUT_KINDS.join(', ')}, got "${kind}"`);
  const topics = declarations(args, 'agent-topic');
  const partitions = declarations(args, 'agent-partition');
  if (topics.length > 0 && kind !== 'perAgentTopic') throw new UsageError('--agent-topic needs --layout perAgentTopic');
  if (partitions.length > 0 && kind !== 'perAgentPartition') throw new UsageError('--agent-partition needs --layout perAgentPartition');
  let layout: StreamLayout;
  switch (kind) {
    case 'perAgentTopic':
      if (topics.length === 0) throw new UsageError('--layout perAgentTopic needs at least one --agent-topic AGENT=TOPIC');
      layout = { kind, topics: new Map(topics) };
      break;
    case 'perAgentPartition':
      if (partitions.length === 0) throw new UsageError('--layout perAgentPartition needs at least one --agent-partition AGENT=N');
      layout = {
        kind,
        partitions: new Map(
          partitions.map(([agent, n]) => {
            if (!/^\d{1,9}$/.test(n)) throw new UsageError(`--agent-partition for "${agent}" must be a whole number, got "${n}"`);
            return [agent, Number(n)];
          }),
        ),
      };
      break;
    case 'singlePartition':
      layout = { kind };
      break;
    default:
      layout = SHARED_LAYOUT;
  }
  try {
    return checkStreamLayout(layout);
  } catch (error) {
    if (AgdxError.is(error)) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}
