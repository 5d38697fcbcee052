/** `agdx demo` runs to the end on the embedded log and its transcript tells every step. */
import { DEMO_STEPS } from '@agdx/cli';
import { describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runAgdx } from './support.js';

const CROCKFORD_ID = /\b[0-9A-HJKMNP-TV-Z]{26}\b/;

describe('agdx demo', () => {
  it('runs every step in order and exits 0', async () => {
    const result = await runAgdx(['demo'], 60_000);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const out = result.stdout;
    let last = -1;
    DEMO_STEPS.forEach((title, index) => {
      const heading = `${String(index + 1).padStart(2)}. ${title}`;
      const at = out.indexOf(heading);
      expect(at, `missing step "${heading}"`).toBeGreaterThan(last);
      last = at;
    });
    expect(out).toMatch(CROCKFORD_ID);
    expect(out).toContain('5DD4NKQAN5D8VA7ZZRG8ZSN1R1'); // ConversationId.derive("incident-42")
    expect(out).toMatch(/reasoning\s+Incident 42 mentions/);
    expect(out).toMatch(/decision\s+approved \(by approver\)/);
    expect(out).toMatch(/state now\s+\{"incident":42,"status":"summarized","approvedBy":"approver"\}/);
    expect(out).toMatch(/dead letter\s+DecodeFailed/);
    expect(out).toMatch(/state\s+TASK_STATE_COMPLETED/);
    expect(out).toMatch(/isError\s+false/);
    expect(out).toMatch(/REASONING_MESSAGE_START.*TOOL_CALL_START.*TOOL_CALL_RESULT.*STATE_DELTA.*TEXT_MESSAGE_START/);
    expect(out).toContain('Session timeline — status completed');
    expect(out).toMatch(/turns\s+6: instruction, tool.call, tool.result, human.input ×2, model.response/);
    expect(out).toMatch(/demo finished in \d+ ms/);
  }, 70_000);
});

describe('agdx demo --mock-model', () => {
  it('runs the worker as a model call made with the AI SDK mock model and recorded on the log', async () => {
    const result = await runAgdx(['demo', '--mock-model'], 60_000);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const out = result.stdout;
    let last = -1;
    DEMO_STEPS.forEach((title, index) => {
      const at = out.indexOf(`${String(index + 1).padStart(2)}. ${title}`);
      expect(at, `missing step "${title}"`).toBeGreaterThan(last);
      last = at;
    });
    expect(out).toMatch(/call id\s+call-search/);
    expect(out).toMatch(/decision\s+approved \(by approver\)/);
    // 455 input tokens at 0.15 and 73 output tokens at 0.60 per million: 68.25 + 43.8 → 112 micro-units.
    expect(out).toMatch(/model\s+mock-incident-model, 3 steps, 455 in \/ 73 out tokens, cost 112 micro-units/);
    expect(out).toMatch(/text\s+Incident 42 is a login bug/);
    expect(out).toMatch(/REASONING_MESSAGE_START.*TOOL_CALL_START.*TOOL_CALL_RESULT.*STATE_DELTA.*TEXT_MESSAGE_START/);
    expect(out).toMatch(/model\.response\s+worker\s+response chat from worker/);
  }, 70_000);
});

describe('agdx demo --serve', () => {
  it('keeps the bridges and the AG-UI page up until SIGINT, then exits 0', async () => {
    const { spawn } = await import('node:child_process');
    const { BIN, NODE_SOURCE_ARGS, REPO_ROOT } = await import('./support.js');
    const child = spawn(process.execPath, [...NODE_SOURCE_ARGS, BIN, 'demo', '--serve'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const page = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URLs within 60 s: ${out}`)), 60_000);
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        const match = out.match(/AG-UI live page\s+(http:\/\/127\.0\.0\.1:\d+)\/\?threadId=(\w+)/);
        if (match !== null && out.includes('MCP ')) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
    });
    try {
      expect(out).toMatch(/Worker through the A2A bridge — SendMessage then GetTask, over loopback HTTP/);
      const card = (await (await fetch(`${page}/a2a/.well-known/agent-card.json`)).json()) as { name: string; supportedInterfaces: { url: string }[] };
      expect(card.name).toBe('a2a-gateway');
      expect(card.supportedInterfaces[0]?.url).toBe(`${page}/a2a/`);
      const html = await (await fetch(`${page}/`)).text();
      expect(html).toContain('AG-UI live conversation');
      const tools = (await (
        await fetch(`${page}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) })
      ).json()) as { result: { tools: { name: string }[] } };
      expect(tools.result.tools.map((t) => t.name)).toEqual(['ask']);
    } finally {
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    }
  }, 80_000);
});

describe('agdx demo --otel', () => {
  it('prints the conversation as one trace across planner, worker and approver', async () => {
    const result = await runAgdx(['demo', '--otel'], 60_000);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const out = result.stdout;
    const tree = out.slice(out.indexOf('OpenTelemetry trace of the conversation'));
    // One block holds the whole exchange: each handle sits under the send that wrote its record.
    const block = tree.split('\ntrace ').find((b) => b.includes('invoke_agent planner')) ?? '';
    expect(block).toMatch(/process agent\.sessions {2}\[consumer agent=planner/);
    expect(block).toMatch(/invoke_agent worker[\s\S]*process agent\.sessions {2}\[consumer agent=worker/);
    expect(block).toMatch(/human_input approver[\s\S]*process agent\.human_input {2}\[consumer agent=approver/);
    expect(block).toMatch(/chat {2}\[producer agent=worker finish=stop tokens=\d+\/\d+ chunks=\d+/);
    expect(block).toMatch(/execute_tool search_incidents/);
    // The worker's session turns (tool call, tool result, answer) are written inside its handler.
    expect(block).toMatch(/process agent\.sessions {2}\[consumer agent=worker[\s\S]*session append {2}\[internal/);
  }, 70_000);
});

describe('agdx demo --otel --otlp URL', () => {
  it('exports the spans with OTLP/HTTP to the URL', async () => {
    const posts: Array<{ path: string; type: string; bytes: number }> = [];
    const collector = createServer((request, response) => {
      let bytes = 0;
      request.on('data', (chunk: Buffer) => (bytes += chunk.length));
      request.on('end', () => {
        posts.push({ path: request.url ?? '', type: String(request.headers['content-type']), bytes });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    try {
      const port = (collector.address() as AddressInfo).port;
      const result = await runAgdx(['demo', '--otel', '--otlp', `http://127.0.0.1:${port}/v1/traces`], 60_000);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(posts.length).toBeGreaterThan(0);
      expect(posts[0]).toMatchObject({ path: '/v1/traces', type: 'application/json' });
      expect(posts.reduce((n, p) => n + p.bytes, 0)).toBeGreaterThan(1000);
    } finally {
      await new Promise((resolve) => collector.close(resolve));
    }
  }, 70_000);

  it('refuses --otlp without --otel, and a URL that is not http(s)', async () => {
    expect((await runAgdx(['demo', '--otlp', 'http://127.0.0.1:1/v1/traces'], 30_000)).code).toBe(2);
    expect((await runAgdx(['demo', '--otel', '--otlp', 'file:///etc/passwd'], 30_000)).code).toBe(2);
  }, 70_000);
});
