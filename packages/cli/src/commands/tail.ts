/** `agdx tail [topic...]`: follows topics and prints each record decoded. */

import { setMaxListeners } from 'node:events';
import { BOOTSTRAP_TOPICS, checkLayoutDeclaration, layoutTopics, ON_FIRST_USE_TOPICS, type StreamLayout } from '@agdx/agents';
import { follow, type LogTransport, type TopicDescription } from '@agdx/transport';
import { AgentKind, isAgentKind } from '@agdx/wire';
import { flag, intOption, listOption, parseCommandArgs, stringOption } from '../args.js';
import { openLog } from '../connect.js';
import { decodeRecord, formatRecord, type DecodedRecord } from '../decode-record.js';
import { UsageError } from '../errors.js';
import { line, type CommandIo } from '../io.js';
import { LAYOUT_OPTION_SPECS, layoutOptionsHelp, layoutFromArgs } from '../layout-args.js';
import { formatPosition } from '../position.js';
import { printable } from '../printable.js';
import { parseTailFrom, tailStartOffset, type TailFrom } from '../tail-start.js';
import type { Command } from './command.js';

// What --kind may name: the envelope kinds, and the two the tail gives records without an envelope.
const TAIL_KINDS = [...Object.values(AgentKind), 'plain', 'undecodable'].join(', ');

/** The default server of commands that talk to Iggy: `agdx dev`'s default address. */
export const DEFAULT_IGGY_URL = 'iggy://iggy:iggy@127.0.0.1:8090';

const HELP = `Usage: agdx tail [topic...] [options]

Follows topics of a stream on an Iggy server (or agdx dev) and prints each record decoded: its
kind, ids in Crockford form, headers, and the body as text or JSON where the content type allows.
Without topics it follows every agent topic of the stream, and the per-agent topics --layout
declares; it fails with kind layout-mismatch when the stream declares another layout (on
agdx.layout, written by bootstrap). Every record appended after the tail
starts is printed: a topic (or the stream) that does not exist yet is read from its first record
when it appears.

Options:
  --iggy URL              the server (default ${DEFAULT_IGGY_URL})
  --stream NAME           the stream (default agdx-demo)
  --from WHERE            beginning (every retained record), end (only records appended after
                          the tail starts; the default) or an ISO 8601 time such as
                          2026-12-01T23:29:00Z (records stamped at or after it)
  --conversation ID       only records of this conversation (Crockford id)
  --agent NAME            only records from or to this agent
  --kind KIND             only this kind (command, response, event, status, error, chunk, plain, undecodable); repeatable
  --operation OP          only this operation; repeatable
  --headers               also print every Iggy header
  --json                  one JSON object per line (machine output)
  --limit N               stop after N records (default: run until Ctrl-C)
${layoutOptionsHelp(26)}
  -h, --help              this help

A record that cannot be decoded is shown with kind undecodable and reported on stderr with its
position (topic[partition]@offset); the tail goes on. Bodies over 1 MiB are summarised.

Exit codes: 0 stopped (Ctrl-C or --limit reached), 1 the server failed, 2 a usage error.`;

/** What to print. */
interface TailFilter {
  readonly conversation: string | undefined;
  readonly agent: string | undefined;
  readonly kinds: readonly string[];
  readonly operations: readonly string[];
}

function matches(record: DecodedRecord, filter: TailFilter): boolean {
  if (filter.kinds.length > 0 && !filter.kinds.includes(record.kind)) return false;
  if (filter.operations.length > 0 && !filter.operations.includes(record.fields['operation'] ?? '')) return false;
  if (filter.conversation !== undefined) {
    const conversation = record.fields['conversation'] ?? record.headers['gen_ai.conversation.id'];
    if (conversation !== filter.conversation) return false;
  }
  if (filter.agent !== undefined) {
    const agents = [record.fields['source'], record.fields['target'], record.fields['agent'], record.headers['gen_ai.agent.id'], record.headers['agdx.to']];
    if (!agents.includes(filter.agent)) return false;
  }
  return true;
}

/** A topic as the tail first found it, and whether it had to wait for the topic to appear. */
interface FoundTopic {
  readonly description: TopicDescription;
  readonly appearedLater: boolean;
}

async function describeWhenPresent(transport: LogTransport, stream: string, topic: string, signal: AbortSignal): Promise<FoundTopic | undefined> {
  // Bounded by the signal: a topic that never appears is waited for until Ctrl-C or --limit.
  for (let attempt = 0; ; attempt++) {
    try {
      return { description: await transport.describeTopic({ stream, topic }, { signal }), appearedLater: attempt > 0 };
    } catch (error) {
      if (signal.aborted) return undefined;
      if ((error as { kind?: unknown }).kind !== 'not-found') throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
    if (signal.aborted) return undefined;
  }
}

/** `agdx tail`. */
export const tailCommand: Command = {
  name: 'tail',
  summary: 'follow topics and print each record decoded (filters, --json)',
  help: HELP,
  async run(argv, io) {
    const args = parseCommandArgs(
      argv,
      {
        iggy: { type: 'string' },
        stream: { type: 'string' },
        from: { type: 'string' },
        conversation: { type: 'string' },
        agent: { type: 'string' },
        kind: { type: 'string', multiple: true },
        operation: { type: 'string', multiple: true },
        headers: { type: 'boolean' },
        json: { type: 'boolean' },
        limit: { type: 'string' },
        ...LAYOUT_OPTION_SPECS,
      },
      true,
    );
    if (flag(args, 'help')) return line(io.out, HELP);
    const from = parseTailFrom(stringOption(args, 'from') ?? 'end');
    const conversation = stringOption(args, 'conversation')?.toUpperCase();
    if (conversation !== undefined && !/^[0-9A-HJKMNP-TV-Z]{26}$/.test(conversation)) throw new UsageError(`--conversation must be a 26-character Crockford id, got "${conversation}"`);
    const kinds = listOption(args, 'kind');
    // A misspelt kind would match nothing and leave the tail printing nothing until Ctrl-C.
    for (const kind of kinds) if (!isAgentKind(kind) && kind !== 'plain' && kind !== 'undecodable') throw new UsageError(`--kind must be one of ${TAIL_KINDS}, got "${kind}"`);
    const filter: TailFilter = { conversation, agent: stringOption(args, 'agent'), kinds, operations: listOption(args, 'operation') };
    const limit = intOption(args, 'limit', 0, 1, Number.MAX_SAFE_INTEGER);
    const layout = layoutFromArgs(args);
    await tail(
      {
        iggy: stringOption(args, 'iggy') ?? DEFAULT_IGGY_URL,
        stream: stringOption(args, 'stream') ?? 'agdx-demo',
        topics: args.positionals.length > 0 ? args.positionals : defaultTailTopics(layout),
        // only a tail that lets the layout pick its topics can miss records by a wrong layout
        layout: args.positionals.length > 0 ? undefined : layout,
        from,
        filter,
        json: flag(args, 'json'),
        headers: flag(args, 'headers'),
        limit: limit === 0 ? undefined : limit,
      },
      io,
    );
  },
};

/**
 * What a tail without topics follows: every agent topic, plus the topics `layout` moves agent
 * work to (a topic per agent). Partitions need nothing: a tail follows every partition of a topic.
 */
export function defaultTailTopics(layout: StreamLayout): string[] {
  const base = [...BOOTSTRAP_TOPICS, ...ON_FIRST_USE_TOPICS];
  return [...new Set(base.flatMap((topic) => layoutTopics(layout, topic)))];
}

/** One stderr line per unreadable record, with its position; the tail goes on. */
function reportUndecodable(io: CommandIo, stream: string, record: DecodedRecord): void {
  line(io.err, `agdx tail: skipped an unreadable record at ${formatPosition(record)} on stream ${stream}: ${printable(record.error ?? 'undecodable')}`);
}

interface TailOptions {
  readonly iggy: string;
  readonly stream: string;
  readonly topics: readonly string[];
  /** The layout to hold against the stream's declaration, when it chose the topics. */
  readonly layout: StreamLayout | undefined;
  readonly from: TailFrom;
  readonly filter: TailFilter;
  readonly json: boolean;
  readonly headers: boolean;
  readonly limit: number | undefined;
}

async function tail(options: TailOptions, io: CommandIo): Promise<void> {
  const log = await openLog(options.iggy, io.signal);
  if (options.layout !== undefined) {
    try {
      await checkLayoutDeclaration(log.transport, options.stream, options.layout, { signal: io.signal });
    } catch (error) {
      await log.close();
      throw error;
    }
  }
  const stop = new AbortController();
  // One follower per partition of every topic listens to the same signal.
  setMaxListeners(0, stop.signal);
  const onAbort = (): void => stop.abort();
  io.signal.addEventListener('abort', onAbort, { once: true });
  let printed = 0;
  const emit = (record: DecodedRecord): void => {
    if (stop.signal.aborted) return;
    // Reported whatever the filters say: a record nobody can read is news on its own.
    if (record.kind === 'undecodable') reportUndecodable(io, options.stream, record);
    if (!matches(record, options.filter)) return;
    printed += 1;
    line(io.out, options.json ? JSON.stringify(record) : `${formatRecord(record, options.headers)}\n`);
    if (options.limit !== undefined && printed >= options.limit) stop.abort();
  };
  const from = options.from;
  const followPartition = async (topic: string, partition: number, nextOffset: bigint, appearedLater: boolean): Promise<void> => {
    const offset = await tailStartOffset(log.transport, { stream: options.stream, topic, partition, nextOffset, appearedLater }, from, stop.signal);
    for await (const record of follow(log.transport, { stream: options.stream, topic, partition, offset, signal: stop.signal, waitMs: 1_000 })) {
      // Broker time only grows within a partition, but a partition read before the first record
      // of a future --from time may still hold older records.
      if (from.kind === 'time' && record.timestampMicros < from.micros) continue;
      emit(decodeRecord(topic, record));
      if (stop.signal.aborted) return;
    }
  };
  const followTopic = async (topic: string): Promise<void> => {
    const found = await describeWhenPresent(log.transport, options.stream, topic, stop.signal);
    if (found === undefined) return;
    await Promise.all(found.description.partitions.map((p) => followPartition(topic, p.partition, p.nextOffset, found.appearedLater)));
  };
  if (!options.json) line(io.err, `agdx tail: following ${options.topics.join(', ')} on stream ${options.stream} (${log.description}); Ctrl-C to stop`);
  try {
    await Promise.all(
      options.topics.map((topic) =>
        followTopic(topic).catch((error: unknown) => {
          if (stop.signal.aborted) return;
          stop.abort();
          throw error;
        }),
      ),
    );
  } finally {
    io.signal.removeEventListener('abort', onAbort);
    await log.close();
  }
}
