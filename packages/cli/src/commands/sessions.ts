/** `agdx sessions list | show ID`: the session lifecycle as a table and a timeline. */

import { AgdxClient, type StreamLayout } from '@agdx/agents';
import { sessions, type SessionInfo, type SessionStatus } from '@agdx/sessions';
import { ConversationId } from '@agdx/wire';
import { flag, intOption, parseCommandArgs, stringOption } from '../args.js';
import { openLog } from '../connect.js';
import { checkLayoutOnLog } from '../layout-check.js';
import { LAYOUT_OPTION_SPECS, layoutOptionsHelp, layoutFromArgs } from '../layout-args.js';
import { UsageError } from '../errors.js';
import { line, type CommandIo } from '../io.js';
import { formatPosition } from '../position.js';
import { printable } from '../printable.js';
import { microsToIso, renderTable } from '../table.js';
import type { Command } from './command.js';
import { DEFAULT_IGGY_URL } from './tail.js';

const STATUSES: readonly SessionStatus[] = ['submitted', 'active', 'paused', 'completed', 'failed', 'canceled', 'unrecognized'];

const HELP = `Usage: agdx sessions list [options]
       agdx sessions show ID [options]

Reads the session lifecycle folded from agent.sessions (plus agent.control and agent.heartbeats)
of a stream on an Iggy server (or agdx dev).

  list        one row per session, newest first: id, status, label, agent, events, model and
              tool calls, start, end. Conversations a bridge (A2A, MCP) opened without
              starting a session are bridge calls, not sessions: counted below the table,
              listed with --all (status "bridge call")
  show ID     one session: its summary, then its timeline. ID is the 26-character Crockford
              conversation id, or the name given to sessions(laser).create(name)

Options:
  --iggy URL          the server (default ${DEFAULT_IGGY_URL})
  --stream NAME       the stream (default agdx-demo)
  --status STATUS     list: only this status (${STATUSES.join(', ')})
  --agent NAME        list: only sessions of this agent
  --all               list: also the bridge calls
  --limit N           list: at most N sessions; show: at most N events (default 100)
  --json              machine output (one JSON document)
${layoutOptionsHelp(22)}
  -h, --help          this help

A log written with a topic or a partition per agent holds a session's model and tool calls where
the layout put them: give the writers' layout, or those calls are not found (and a read that can
tell the log was written with another layout fails with kind layout-mismatch).

Exit codes: 0 ok, 1 the read failed or the session does not exist, 2 a usage error.`;

function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v instanceof ConversationId ? v.toString() : v), 2);
}

/** Reads a session id: Crockford text, or a name derived the way sessions(laser).create(name) does. */
export function sessionIdFrom(text: string): ConversationId {
  return ConversationId.tryParse(text.toUpperCase()) ?? ConversationId.derive(text);
}

/** The most sessions `list` reads before it sets bridge calls apart and pages. */
const MAX_LISTED = 100_000;

/** A conversation a bridge opened and nobody began as a session. */
function isBridgeCall(info: SessionInfo): boolean {
  return info.implicit && info.bridge !== undefined;
}

function statusLabel(info: SessionInfo): string {
  if (isBridgeCall(info)) return `bridge call (${info.bridge})`;
  return info.status + (info.idle ? ' (idle)' : '');
}

/**
 * The rows `sessions list` prints: sessions (bridge calls only with `all`), filtered by status.
 * A bridge call has no status of its own to filter on, so `--status` leaves it out.
 */
export function selectListed(items: readonly SessionInfo[], options: { readonly all: boolean; readonly status: SessionStatus | undefined }): { shown: SessionInfo[]; bridgeCalls: number } {
  const bridgeCalls = items.filter(isBridgeCall).length;
  const shown = items.filter((s) => (isBridgeCall(s) ? options.all && options.status === undefined : options.status === undefined || s.status === options.status));
  return { shown, bridgeCalls };
}

function summaryRows(info: SessionInfo): [string, string][] {
  return [
    ['id', info.id.toString()],
    ['status', isBridgeCall(info) ? `${statusLabel(info)}: no session start record` : `${info.status}${info.implicit ? ' (implicit: no start record)' : ''}${info.idle ? ', idle' : ''}${info.overBudget ? ', over budget' : ''}`],
    ['label', info.label ?? '-'],
    ['agent', info.agent ?? '-'],
    ['parent', info.parent?.toString() ?? '-'],
    ['root', info.root?.toString() ?? '-'],
    ['started', microsToIso(info.startedAt)],
    ['ended', `${microsToIso(info.endedAt)}${info.endReason !== undefined ? ` (${info.endReason})` : ''}`],
    ['events', `${info.events} (model calls ${info.modelCalls}, tool calls ${info.toolCalls}, errors ${info.errors})`],
    ['bridge', info.bridge ?? '-'],
    ['tokens', `in ${info.tokensIn}, out ${info.tokensOut}`],
  ];
}

async function withClient<T>(iggy: string, stream: string, layout: StreamLayout, io: CommandIo, body: (client: AgdxClient) => Promise<T>): Promise<T> {
  const log = await openLog(iggy, io.signal);
  // The session reads ask the client's layout where each conversation's records are.
  const client = AgdxClient.from(log.transport, { stream, layout });
  try {
    await checkLayoutOnLog(client, stream, io.signal);
    return await body(client);
  } finally {
    await client.close();
    await log.close();
  }
}

/** `agdx sessions`. */
export const sessionsCommand: Command = {
  name: 'sessions',
  summary: 'list sessions as a table, or show one session as a timeline',
  help: HELP,
  async run(argv, io) {
    const args = parseCommandArgs(
      argv,
      { iggy: { type: 'string' }, stream: { type: 'string' }, status: { type: 'string' }, agent: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' }, all: { type: 'boolean' }, ...LAYOUT_OPTION_SPECS },
      true,
    );
    if (flag(args, 'help')) return line(io.out, HELP);
    const [verb, id, ...extra] = args.positionals;
    const iggy = stringOption(args, 'iggy') ?? DEFAULT_IGGY_URL;
    const stream = stringOption(args, 'stream') ?? 'agdx-demo';
    const limit = intOption(args, 'limit', 100, 1, 100_000);
    const json = flag(args, 'json');
    const layout = layoutFromArgs(args);
    if (verb === 'list') {
      if (id !== undefined) throw new UsageError(`sessions list takes no argument, got "${id}"`);
      const status = stringOption(args, 'status');
      if (status !== undefined && !STATUSES.includes(status as SessionStatus)) throw new UsageError(`--status must be one of ${STATUSES.join(', ')}, got "${status}"`);
      const all = flag(args, 'all');
      // Every matching conversation is read, so the bridge calls can be set apart before paging.
      const read = await withClient(iggy, stream, layout, io, (client) => sessions(client).list({ agent: stringOption(args, 'agent'), limit: MAX_LISTED }, io.signal));
      const { shown, bridgeCalls } = selectListed(read.items, { all, status: status as SessionStatus | undefined });
      const items = shown.slice(0, limit);
      if (json) return line(io.out, toJson({ items, total: shown.length, bridgeCalls }));
      const rows = items.map((s) => [
        s.id.toString(),
        statusLabel(s),
        s.label ?? '-',
        s.agent ?? '-',
        String(s.events),
        `${s.modelCalls}/${s.toolCalls}`,
        microsToIso(s.startedAt ?? s.firstEventAt),
        microsToIso(s.endedAt),
      ]);
      line(io.out, renderTable(['ID', 'STATUS', 'LABEL', 'AGENT', 'EVENTS', 'MODEL/TOOL', 'STARTED', 'ENDED'], rows));
      const hidden = all || bridgeCalls === 0 ? '' : ` (${bridgeCalls} bridge call(s) not shown; --all lists them)`;
      line(io.out, `${items.length} of ${shown.length} ${all ? 'session(s) and bridge call(s)' : 'session(s)'} on stream ${stream}${hidden}`);
      return;
    }
    if (verb === 'show') {
      if (id === undefined) throw new UsageError('sessions show needs a session ID');
      if (extra.length > 0) throw new UsageError(`sessions show takes one ID, got ${args.positionals.length - 1}`);
      const session = sessionIdFrom(id);
      const { info, events } = await withClient(iggy, stream, layout, io, async (client) => ({
        info: await sessions(client).get(session, io.signal),
        events: await sessions(client).events(session, { limit, signal: io.signal }),
      }));
      if (info === undefined) throw Object.assign(new Error(`no session ${session.toString()} on stream ${stream}`), { kind: 'not-found' });
      if (json) return line(io.out, toJson({ session: info, events: events.items }));
      for (const [label, value] of summaryRows(info)) line(io.out, `${label.padEnd(8)} ${printable(value)}`);
      line(io.out);
      line(io.out, 'timeline');
      const rows = events.items.map((e) => [microsToIso(e.brokerTs), e.display, e.agent ?? '-', formatPosition(e.at), `${e.summary}${e.afterEnd ? ' (after end)' : ''}`]);
      line(io.out, renderTable(['TIME', 'EVENT', 'AGENT', 'POSITION', 'SUMMARY'], rows));
      return;
    }
    throw new UsageError(verb === undefined ? 'sessions needs list or show ID' : `unknown sessions verb "${verb}" (list, show ID)`);
  },
};
