/** `agdx demo`: the end-to-end run, on the embedded log or an Iggy server. */

import { flag, intOption, parseCommandArgs, stringOption } from '../args.js';
import { runDemo } from '../demo/run-demo.js';
import { UsageError } from '../errors.js';
import { line } from '../io.js';
import type { Command } from './command.js';

const HELP = `Usage: agdx demo [--iggy URL] [--stream NAME] [--serve [--port N]] [--mock-model] [--otel [--otlp URL]]

Runs the whole system once and prints a numbered transcript: a planner, a worker and an approver
agent; a session with turns; streamed reasoning and chat; a tool call; a human approval; a state
change; a dead-lettered poison record; the same worker through the A2A and MCP bridges; the
conversation as AG-UI events; the session timeline.

Options:
  --iggy URL      run on an Apache Iggy server (or agdx dev), e.g. iggy://iggy:iggy@127.0.0.1:8090
                  (default: the embedded in-memory log, nothing to install)
  --stream NAME   the stream to use (default agdx-demo; on Iggy a fresh agdx-demo-<suffix>)
  --serve         afterwards keep the A2A and MCP bridges and the AG-UI live page up on
                  127.0.0.1 and print their URLs until Ctrl-C (the bridge steps then go over HTTP)
  --port N        the --serve port (default: an ephemeral port)
  --mock-model    the worker writes its summary with a model call made with the AI SDK (its
                  mock language model, scripted: no network, no key), recorded by @agdx/ai-sdk:
                  reasoning, tool calls and the answer stream as chunks, with usage and cost
  --otel          instrument the demo with @agdx/otel (in-memory SDK exporter) and print the
                  conversation's trace as a tree: one trace across planner, worker and approver
  --otlp URL      with --otel, also export the spans with OTLP/HTTP to URL
                  (e.g. http://127.0.0.1:4318/v1/traces for a local collector or Jaeger)
  -h, --help      this help

Exit codes: 0 the demo ran to the end, 1 a step failed, 2 a usage error.`;

/** `agdx demo`. */
export const demoCommand: Command = {
  name: 'demo',
  summary: 'run planner, worker and approver agents end to end and print a transcript',
  help: HELP,
  async run(argv, io) {
    const args = parseCommandArgs(argv, { iggy: { type: 'string' }, stream: { type: 'string' }, serve: { type: 'boolean' }, port: { type: 'string' }, 'mock-model': { type: 'boolean' }, otel: { type: 'boolean' }, otlp: { type: 'string' } }, false);
    if (flag(args, 'help')) return line(io.out, HELP);
    await runDemo({ iggy: stringOption(args, 'iggy'), stream: stringOption(args, 'stream'), serve: flag(args, 'serve'), port: intOption(args, 'port', 0, 0, 65_535), mockModel: flag(args, 'mock-model'), otel: flag(args, 'otel'), otlpUrl: otlpUrlOf(args) }, io);
  },
};

function otlpUrlOf(args: Parameters<typeof stringOption>[0]): string | undefined {
  const url = stringOption(args, 'otlp');
  if (url === undefined) return undefined;
  if (!flag(args, 'otel')) throw new UsageError('--otlp needs --otel');
  if (!/^https?:\/\/\S+$/.test(url)) throw new UsageError(`--otlp must be an http(s) URL, got ${url}`);
  return url;
}
