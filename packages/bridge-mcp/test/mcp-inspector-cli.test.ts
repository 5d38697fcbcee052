import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentMessageBody, AgentTopic } from '@agdx/agents';
import { createMcpHttpHandler, McpBridge } from '@agdx/bridge-mcp';
import { decode, memoryClient, STREAM, text, worker } from '@agdx/bridge-testing';
import type { MemoryLog } from '@agdx/transport';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve } from './support/serve.js';

// The MCP Inspector is a root devDependency; its launcher's `--cli` mode is what a user runs as
// `npx @modelcontextprotocol/inspector --cli <url> --method …`.
const INSPECTOR_DIR = new URL('../../../node_modules/@modelcontextprotocol/inspector/', import.meta.url);
const INSPECTOR_BIN = new URL(
  (JSON.parse(readFileSync(new URL('package.json', INSPECTOR_DIR), 'utf8')) as { bin: Record<string, string> }).bin['mcp-inspector'] ?? '',
  INSPECTOR_DIR,
).pathname;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const cleanups: (() => Promise<void> | void)[] = [];
let url = '';
let log: MemoryLog;
// The Inspector keeps a catalog and storage under HOME; a scratch HOME keeps the user's untouched.
const home = mkdtempSync(join(tmpdir(), 'agdx-inspector-'));

/** Runs the Inspector CLI against the bridge; a generous bound, the machine may be loaded. */
function inspect(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [INSPECTOR_BIN, '--cli', url, '--transport', 'http', ...args],
      { env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, 'mcp.json'), NO_COLOR: '1' }, timeout: 90_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

function json(run: Run): Record<string, unknown> {
  expect(run.stdout.trim().length, `no output; stderr: ${run.stderr}`).toBeGreaterThan(0);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

async function toolCallsOnLog(): Promise<bigint> {
  const topic = await log.describeTopic({ stream: STREAM, topic: AgentTopic.ToolCalls });
  return topic.partitions.reduce((sum, p) => sum + p.nextOffset, 0n);
}

beforeAll(async () => {
  const client = await memoryClient();
  log = client.log;
  const agent = await worker(client.laser, AgentTopic.ToolCalls, AgentTopic.ToolResults, async (message, ctx) => {
    const call = JSON.parse(decode(agentMessageBody(message))) as { arguments?: Record<string, unknown> };
    return ctx.respond(text.encode(`echo: ${JSON.stringify(call.arguments ?? {})}`));
  });
  cleanups.push(() => agent.shutdown());
  const bridge = new McpBridge(client.laser, 'mcp-gateway', AgentTopic.ToolCalls, AgentTopic.ToolResults, 'ops-tools')
    .withTool('ask', 'ask the assistant', { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] })
    .withResource('mem://notes/1', 'note one', 'text/plain', 'hello')
    .withPrompt({ name: 'summarize', description: 'Summarize text', arguments: [{ name: 'text', required: true }] }, [['user', 'Summarize: {text}']]);
  const server = await serve(createMcpHttpHandler(bridge));
  cleanups.push(() => server.close());
  url = `${server.url}/mcp`;
});

afterAll(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
  rmSync(home, { recursive: true, force: true });
});

describe('the MCP Inspector CLI over Streamable HTTP', () => {
  it('lists tools, resources, resource templates and prompts, calls a tool and gets a prompt with its arguments', { timeout: 240_000 }, async () => {
    // Independent processes: started together so a loaded machine waits for them once.
    const [tools, call, resources, templates, prompt] = await Promise.all([
      inspect('--method', 'tools/list'),
      inspect('--method', 'tools/call', '--tool-name', 'ask', '--tool-arg', 'question=status?'),
      inspect('--method', 'resources/list'),
      inspect('--method', 'resources/templates/list'),
      inspect('--method', 'prompts/get', '--prompt-name', 'summarize', '--prompt-args', 'text=the outage'),
    ]);

    expect(tools.code, tools.stderr).toBe(0);
    expect(json(tools)).toEqual({
      tools: [{ name: 'ask', description: 'ask the assistant', inputSchema: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] } }],
    });

    expect(call.code, call.stderr).toBe(0);
    expect(json(call)).toMatchObject({ content: [{ type: 'text', text: 'echo: {"question":"status?"}' }] });
    expect(json(call)['isError']).toBeFalsy();

    expect(resources.code, resources.stderr).toBe(0);
    expect(json(resources)).toEqual({ resources: [{ uri: 'mem://notes/1', name: 'note one', mimeType: 'text/plain' }] });

    // The Inspector exits 1 when a server does not know this method; it must answer it.
    expect(templates.code, templates.stderr).toBe(0);
    expect(json(templates)).toEqual({ resourceTemplates: [] });

    expect(prompt.code, prompt.stderr).toBe(0);
    expect(json(prompt)).toMatchObject({ messages: [{ role: 'user', content: { type: 'text', text: 'Summarize: the outage' } }] });
  });

  it('refuses a tool argument the input schema rejects (exit 1, the fixed public message) without publishing a call', { timeout: 120_000 }, async () => {
    const before = await toolCallsOnLog();
    // The Inspector turns `question=42` into the number 42; the schema asks for a string.
    const refused = await inspect('--method', 'tools/call', '--tool-name', 'ask', '--tool-arg', 'question=42');
    expect(refused.code).not.toBe(0);
    // The Inspector prints only the JSON-RPC message (the seed's fixed public text), not `data`.
    expect(JSON.parse(refused.stderr)).toEqual({ error: { code: 'error', message: 'invalid request' } });
    expect(await toolCallsOnLog()).toBe(before);
  });
});
