/**
 * `agdx tail` shows records another process writes over the dev server: `agdx dev` on an
 * ephemeral port, `agdx demo --iggy` as the writer, `agdx tail --json` as the reader.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';

type DevProcess = ChildProcessByStdio<null, Readable, Readable>;
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgdxClient } from '@agdx/agents';
import { sessions } from '@agdx/sessions';
import { IggyTransport } from '@agdx/transport-iggy';
import { BIN, NODE_SOURCE_ARGS, REPO_ROOT, runAgdx } from './support.js';

let dev: DevProcess | undefined;
let url = '';

function waitForLine(child: DevProcess, pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms: ${buffer}`)), timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      const match = buffer.match(pattern);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match);
      }
    });
  });
}

beforeAll(async () => {
  dev = spawn(process.execPath, [...NODE_SOURCE_ARGS, BIN, 'dev', '--port', '0'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  url = (await waitForLine(dev, /iggy:\/\/\S+/, 30_000))[0];
}, 40_000);

afterAll(async () => {
  if (dev === undefined || dev.exitCode !== null) return;
  const exited = new Promise((resolve) => dev!.once('exit', resolve));
  dev.kill('SIGINT');
  await exited;
});

interface TailLine {
  readonly topic: string;
  readonly kind: string;
  readonly offset: string;
  readonly fields: Record<string, string>;
  readonly headers: Record<string, string>;
  readonly body: unknown;
}

describe('agdx tail over the dev server', () => {
  it('follows records another process writes, decoded, as JSON lines', async () => {
    const stream = 'tail-follow';
    // The reader starts first: the stream does not exist yet, so it waits for it and follows.
    const reader = runAgdx(['tail', '--iggy', url, '--stream', stream, '--from', 'beginning', '--json', '--limit', '2', '--operation', 'session', 'agent.sessions'], 60_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const writer = await runAgdx(['demo', '--iggy', url, '--stream', stream], 60_000);
    expect(writer.code, writer.stderr).toBe(0);
    const result = await reader;
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n').map((text) => JSON.parse(text) as TailLine);
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line.topic).toBe('agent.sessions');
      expect(line.kind).toBe('status');
      expect(line.headers['agdx.av']).toBe('1');
    }
    const [start] = lines;
    expect(start!.fields['conversation']).toBe('5DD4NKQAN5D8VA7ZZRG8ZSN1R1');
    expect(start!.fields['record']).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(start!.fields['task_state']).toBe('Working');
    expect(start!.body).toMatchObject({ label: 'incident 42', agent: 'planner' });
    expect(lines[1]!.fields['task_state']).toBe('Completed');
    expect(lines[1]!.fields['last']).toBe('true');
  }, 90_000);

  it('filters by kind, agent and conversation, and shows the undecodable poison record', async () => {
    const stream = 'tail-filter';
    const writer = await runAgdx(['demo', '--iggy', url, '--stream', stream], 60_000);
    expect(writer.code, writer.stderr).toBe(0);
    const poison = await runAgdx(['tail', '--iggy', url, '--stream', stream, '--from', 'beginning', '--json', '--limit', '1', '--kind', 'undecodable'], 30_000);
    expect(poison.code, poison.stderr).toBe(0);
    const [record] = poison.stdout.trim().split('\n').map((text) => JSON.parse(text) as TailLine & { error?: string });
    expect(record!.kind).toBe('undecodable');
    expect(record!.error).toContain('decode');
    // Reported once on stderr with its position; the tail went on to its limit.
    const reports = poison.stderr.split('\n').filter((l) => l.includes('skipped an unreadable record'));
    expect(reports).toEqual([expect.stringContaining(`skipped an unreadable record at ${record!.topic}[${(record as TailLine & { partition: number }).partition}]@${record!.offset} on stream ${stream}: `)]);
    const byAgent = await runAgdx(
      ['tail', '--iggy', url, '--stream', stream, '--from', 'beginning', '--json', '--limit', '2', '--agent', 'approver', '--conversation', '5dd4nkqan5d8va7zzrg8zsn1r1', 'agent.human_input'],
      30_000,
    );
    expect(byAgent.code, byAgent.stderr).toBe(0);
    const rows = byAgent.stdout.trim().split('\n').map((text) => JSON.parse(text) as TailLine);
    expect(rows.map((r) => r.kind)).toEqual(['command', 'response']);
    expect(rows[0]!.body).toBe('publish the incident 42 summary to #incidents?');
    expect(rows[1]!.body).toBe('approved');
  }, 90_000);

  it('prints sessions as a table and a timeline over the same server', async () => {
    const stream = 'tail-filter';
    const list = await runAgdx(['sessions', 'list', '--iggy', url, '--stream', stream], 30_000);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/5DD4NKQAN5D8VA7ZZRG8ZSN1R1\s+completed\s+incident 42\s+planner/);
    // The demo's A2A and MCP calls are bridge calls: counted, not listed as sessions.
    expect(list.stdout).not.toContain('bridge call (');
    expect(list.stdout).toContain('1 of 1 session(s) on stream tail-filter (2 bridge call(s) not shown; --all lists them)');
    const all = await runAgdx(['sessions', 'list', '--all', '--iggy', url, '--stream', stream], 30_000);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toMatch(/bridge call \(a2a-gateway\)/);
    expect(all.stdout).toMatch(/bridge call \(mcp-gateway\)/);
    expect(all.stdout).toContain('3 of 3 session(s) and bridge call(s) on stream tail-filter');
    const bridged = all.stdout.match(/^(\S{26})\s+bridge call \(a2a-gateway\)/m)?.[1];
    const call = await runAgdx(['sessions', 'show', bridged ?? 'missing', '--iggy', url, '--stream', stream], 30_000);
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toContain('status   bridge call (a2a-gateway): no session start record');
    expect(call.stdout).toContain('bridge   a2a-gateway');
    const show = await runAgdx(['sessions', 'show', 'incident-42', '--iggy', url, '--stream', stream], 30_000);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain('status   completed');
    expect(show.stdout).toContain('(model calls 1, tool calls 1, errors 0)');
    expect(show.stdout).toMatch(/session\.started\s+planner/);
    expect(show.stdout).toMatch(/session\.completed\s+planner/);
  }, 60_000);
});

describe('agdx tail start positions', () => {
  const payload = (text: string): { payload: Uint8Array } => ({ payload: new TextEncoder().encode(text) });

  function startTail(args: readonly string[]): DevProcess {
    return spawn(process.execPath, [...NODE_SOURCE_ARGS, BIN, 'tail', '--iggy', url, ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  }

  /** `[position, body]` of each record in the human output. */
  function printed(stdout: string): [string, string][] {
    return [...stdout.matchAll(/^\S+Z (\S+) plain\n(?:  (?!body).*\n)*  body +(.*)$/gm)].map((m) => [m[1] as string, m[2] as string]);
  }

  function collect(child: DevProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    return new Promise((resolve) =>
      child.once('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      }),
    );
  }

  it('reads a topic that appears after it started from its first record', async () => {
    const stream = 'tail-late-topic';
    const child = startTail(['--stream', stream, '--limit', '4', 'agent.audit']);
    const done = collect(child);
    // The tail has started (its human output announces it on stderr) and looks for the topic
    // before it exists.
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the tail never started')), 45_000);
      child.stderr.on('data', (chunk: string) => {
        if (chunk.includes('following')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    await new Promise((resolve) => setTimeout(resolve, 600));
    const writer = await IggyTransport.connect(url);
    try {
      await writer.ensureStream(stream);
      await writer.ensureTopic({ stream, topic: 'agent.audit' }, { partitions: 1 });
      // Created and written at once: a tail that started at the topic's next offset on first
      // sight would miss these.
      await writer.append({ stream, topic: 'agent.audit', routing: { partition: 0 }, records: [payload('one'), payload('two'), payload('three')] });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await writer.append({ stream, topic: 'agent.audit', routing: { partition: 0 }, records: [payload('four')] });
    } finally {
      await writer.close();
    }
    const result = await done;
    expect(result.code, result.stderr).toBe(0);
    expect(printed(result.stdout)).toEqual([
      ['agent.audit[0]@0', 'one'],
      ['agent.audit[0]@1', 'two'],
      ['agent.audit[0]@2', 'three'],
      ['agent.audit[0]@3', 'four'],
    ]);
  }, 90_000);

  it('prints text from hostile records with its control characters escaped, in tail and sessions', async () => {
    const stream = 'tail-hostile-text';
    const hostile = 'ok\u001b]52;c;cHduZWQ=\u0007\nagent.audit[0]@9 forged\u009b2J\u202eevil';
    const escaped = 'ok\\x1b]52;c;cHduZWQ=\\x07\\nagent.audit[0]@9 forged\\x9b2J\\u{202e}evil';
    const writer = await IggyTransport.connect(url);
    try {
      await writer.ensureStream(stream);
      await writer.ensureTopic({ stream, topic: 'agent.audit' }, { partitions: 1 });
      await writer.append({ stream, topic: 'agent.audit', routing: { partition: 0 }, records: [payload(hostile)] });
      const client = AgdxClient.from(writer, { stream });
      await client.bootstrap(1);
      // Labels are refused with control characters on write; a bidirectional override is not one.
      await sessions(client).create('hostile').lifecycle.begin({ agent: 'planner', label: 'ok\u202eevil' });
    } finally {
      await writer.close();
    }
    const tail = await runAgdx(['tail', '--iggy', url, '--stream', stream, '--from', 'beginning', '--limit', '1', 'agent.audit'], 30_000);
    expect(tail.code, tail.stderr).toBe(0);
    expect(tail.stdout).toContain(`body             ${escaped}`);
    const list = await runAgdx(['sessions', 'list', '--iggy', url, '--stream', stream], 30_000);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain('ok\\u{202e}evil');
    const show = await runAgdx(['sessions', 'show', 'hostile', '--iggy', url, '--stream', stream], 30_000);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain('label    ok\\u{202e}evil');
    for (const output of [tail.stdout, list.stdout, show.stdout]) {
      expect(output).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
      expect(output).not.toMatch(/^agent\.audit\[0\]@9/m);
    }
  }, 90_000);

  it('--from <time> starts at the first record stamped at or after it', async () => {
    const stream = 'tail-from-time';
    const writer = await IggyTransport.connect(url);
    let from = '';
    try {
      await writer.ensureStream(stream);
      await writer.ensureTopic({ stream, topic: 'agent.audit' }, { partitions: 1 });
      await writer.append({ stream, topic: 'agent.audit', routing: { partition: 0 }, records: [payload('before-1'), payload('before-2')] });
      // Far apart on the broker clock, so a millisecond lies between the two batches' stamps.
      await new Promise((resolve) => setTimeout(resolve, 50));
      await writer.append({ stream, topic: 'agent.audit', routing: { partition: 0 }, records: [payload('after-1'), payload('after-2')] });
      // --from is held against the broker's stamps, so the time is taken from them, not from this
      // process's clock: the dev server's clock (the wall clock at its start, moved on by the
      // monotonic clock) falls behind when the wall clock is stepped forward, and a "now" past
      // the later batch left the tail waiting for records that never came, until it was killed.
      const [, before2, after1] = await writer.read({ stream, topic: 'agent.audit', partition: 0, offset: 0n, maxCount: 4 });
      // The millisecond after-1 was stamped in: at or before after-1, after before-2.
      const fromMillis = after1!.timestampMicros / 1000n;
      expect(fromMillis * 1000n).toBeGreaterThan(before2!.timestampMicros);
      from = new Date(Number(fromMillis)).toISOString();
    } finally {
      await writer.close();
    }
    const result = await collect(startTail(['--stream', stream, '--from', from, '--limit', '2', 'agent.audit']));
    expect(result.code, result.stderr).toBe(0);
    expect(printed(result.stdout)).toEqual([
      ['agent.audit[0]@2', 'after-1'],
      ['agent.audit[0]@3', 'after-2'],
    ]);
  }, 90_000);
});
