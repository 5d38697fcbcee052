/**
 * The README's five-minute tour, run as a newcomer runs it: every `$` command of the tour's
 * console blocks as a child process (the dev server and the tail stay up while the demo runs),
 * each output checked against the lines the README prints under the command. The commands come
 * from the README itself, so the README cannot change without this test seeing it.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { BOOTSTRAP_TOPICS, ON_FIRST_USE_TOPICS } from '@agdx/agents';
import { IggyTransport } from '@agdx/transport-iggy';
import { REPO_ROOT } from './support.js';
import { firstMissing, readTour, type TourStep } from './tour-readme.js';

/** The address the README uses; the test writes the dev server's real one in its place. */
const README_ADDRESS = '127.0.0.1:8090';
const START_MS = 45_000;
const RUN_MS = 90_000;
const STOP_MS = 5_000;

type Child = ChildProcessByStdio<null, Readable, Readable>;

/** A child process whose output is collected as it comes. */
interface Running {
  readonly child: Child;
  stdout: string;
  stderr: string;
  readonly exited: Promise<number | null>;
}

const running: Running[] = [];

/** `pnpm <script> ...` as the root package.json defines the script; `node` as this Node. */
function argvOf(command: string): string[] {
  const scripts = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  let words = command.split(/\s+/);
  if (words[0] === 'pnpm' && words[1] !== undefined && scripts[words[1]] !== undefined) words = [...(scripts[words[1]] as string).split(/\s+/), ...words.slice(2)];
  if (words[0] !== 'node') throw new Error(`the tour test runs pnpm scripts and node only, not "${command}"`);
  return [process.execPath, ...words.slice(1)];
}

function start(argv: readonly string[]): Running {
  const child = spawn(argv[0] as string, argv.slice(1), { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const run: Running = { child, stdout: '', stderr: '', exited: new Promise((resolve) => child.once('close', (code) => resolve(code))) };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (run.stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (run.stderr += chunk));
  running.push(run);
  return run;
}

/** Polls until `probe` holds, at most `timeoutMs`. */
async function until(what: string, probe: () => boolean, timeoutMs: number, run?: Running): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${run !== undefined ? `\n--- stdout\n${run.stdout.slice(-3000)}\n--- stderr\n${run.stderr.slice(-3000)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Runs to the end, killed after `timeoutMs`. */
async function complete(argv: readonly string[], timeoutMs: number): Promise<Running & { code: number | null }> {
  const run = start(argv);
  const timer = setTimeout(() => run.child.kill('SIGKILL'), timeoutMs);
  const code = await run.exited;
  clearTimeout(timer);
  return Object.assign(run, { code });
}

/** Ctrl-C, then a kill if the child has not gone within STOP_MS. */
async function stop(run: Running): Promise<void> {
  if (run.child.exitCode !== null || run.child.signalCode !== null) return;
  run.child.kill('SIGINT');
  const timer = setTimeout(() => run.child.kill('SIGKILL'), STOP_MS);
  await run.exited;
  clearTimeout(timer);
}

afterAll(async () => {
  await Promise.all(running.map(stop));
});

function expectPrinted(step: TourStep, output: string, address: string): void {
  const expected = step.expected.map((text) => text.replaceAll(README_ADDRESS, address));
  const missing = firstMissing(output, expected);
  expect(missing, `"${step.command}" did not print this README line (in order):\n${missing}\n--- its output\n${output.slice(0, 6000)}`).toBeUndefined();
}

/**
 * As {@link expectPrinted}, with the README's order kept within each topic only: `tail` follows
 * every topic on its own, so records of different topics interleave as they happen to arrive.
 */
function expectPrintedPerTopic(step: TourStep, output: string, address: string): void {
  const byTopic = new Map<string, string[]>();
  for (const text of step.expected) {
    const topic = /(\S+?)\[\d+\]@/.exec(text)?.[1] ?? '';
    byTopic.set(topic, [...(byTopic.get(topic) ?? []), text]);
  }
  for (const expected of byTopic.values()) expectPrinted({ ...step, expected }, output, address);
}

/** Every record position of the stream, as `topic[partition]@offset`. */
async function positionsOf(url: string, stream: string): Promise<string[]> {
  const transport = await IggyTransport.connect(url);
  try {
    const positions: string[] = [];
    for (const topic of [...BOOTSTRAP_TOPICS, ...ON_FIRST_USE_TOPICS]) {
      const description = await transport.describeTopic({ stream, topic }).catch((error: unknown) => {
        if ((error as { kind?: unknown }).kind === 'not-found') return undefined;
        throw error;
      });
      for (const partition of description?.partitions ?? []) for (let offset = 0n; offset < partition.nextOffset; offset++) positions.push(`${topic}[${partition.partition}]@${offset}`);
    }
    return positions.sort();
  } finally {
    await transport.close();
  }
}

const tour = readTour(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'));

/** The one tour command that matches; the README must keep each of them. */
function stepOf(pattern: RegExp): TourStep {
  const matching = tour.filter((step) => pattern.test(step.command));
  expect(matching.map((s) => s.command), `the README tour must have exactly one command matching ${pattern}`).toHaveLength(1);
  return matching[0] as TourStep;
}

describe("the README's five-minute tour", () => {
  it('names the steps this test runs, and nothing it does not run', () => {
    const runs = [/^pnpm agdx dev$/, /^pnpm agdx tail /, /^pnpm agdx demo /, /^pnpm agdx sessions list /, /^pnpm agdx sessions show /, /^node .*examples\/\S+\.ts$/];
    for (const step of tour) expect(runs.some((p) => p.test(step.command)), `a tour command this test does not run: ${step.command}`).toBe(true);
    for (const pattern of runs) stepOf(pattern);
    for (const step of tour) expect(step.expected.length, `the README shows no output for "${step.command}"`).toBeGreaterThan(0);
  });

  it('matches README lines in order, with … for any text and any spacing, and reports the first one missing', () => {
    const output = '  5DD4  completed   incident 42\nevents   21 (model calls 1, tool calls 1)\n';
    expect(firstMissing(output, ['5DD4 completed incident 42', 'events 21 (model calls 1, …)'])).toBeUndefined();
    expect(firstMissing(output, ['events 21 (model calls 2, …)'])).toBe('events 21 (model calls 2, …)');
    expect(firstMissing(output, ['events …', '5DD4 …'])).toBe('5DD4 …');
    expect(firstMissing(output, ['completed'])).toBe('completed');
    expect(readTour('## A five-minute tour\n\n   ```console\n   $ pnpm agdx dev\n   listening\n   …\n   ```\n\n## Next\n```console\n$ not read\n```\n')).toEqual([
      { command: 'pnpm agdx dev', expected: ['listening'] },
    ]);
  });

  it(
    'runs as written: dev server, tail, demo over Iggy, sessions list and show, a seed example',
    async () => {
      const dev = stepOf(/^pnpm agdx dev$/);
      const tail = stepOf(/^pnpm agdx tail /);
      const demo = stepOf(/^pnpm agdx demo /);
      const list = stepOf(/^pnpm agdx sessions list /);
      const show = stepOf(/^pnpm agdx sessions show /);
      const example = stepOf(/^node .*examples\//);

      // Port 0 instead of 8090: CI machines run several servers at once.
      const server = start([...argvOf(dev.command), '--port', '0']);
      await until('the dev server to listen', () => /iggy:\/\/\S+/.test(server.stdout), START_MS, server);
      const url = (server.stdout.match(/iggy:\/\/\S+/) as RegExpMatchArray)[0];
      const address = new URL(url.replace(/^iggy:/, 'http:')).host;
      expectPrinted(dev, server.stdout, address);
      const withServer = (command: string): string[] => {
        const argv = argvOf(command.replaceAll(README_ADDRESS, address));
        return argv.includes('--iggy') ? argv : [...argv, '--iggy', url];
      };

      const follower = start(withServer(tail.command));
      await until('the tail to start following', () => follower.stderr.includes('following'), START_MS, follower);
      const demoRun = await complete(withServer(demo.command), RUN_MS);
      expect(demoRun.code, demoRun.stderr).toBe(0);
      expectPrinted(demo, demoRun.stdout, address);

      // Every record the demo wrote reaches the tail, each once (the README: "every record").
      const stream = demo.command.match(/--stream (\S+)/)?.[1] ?? 'agdx-demo';
      const written = await positionsOf(url, stream);
      expect(written.length).toBeGreaterThan(30);
      const printed = (): string[] => [...follower.stdout.matchAll(/^\S+Z (\S+\[\d+\]@\d+) /gm)].map((m) => m[1] as string);
      await until(`the tail to print all ${written.length} records`, () => printed().length >= written.length, 30_000, follower);
      await stop(follower);
      expect(printed().sort()).toEqual(written);
      expectPrintedPerTopic(tail, follower.stdout, address);

      const [listRun, showRun, exampleRun] = await Promise.all([complete(withServer(list.command), RUN_MS), complete(withServer(show.command), RUN_MS), complete(argvOf(example.command), RUN_MS)]);
      for (const run of [listRun, showRun, exampleRun]) expect(run.code, run.stderr).toBe(0);
      expectPrinted(list, listRun.stdout, address);
      expectPrinted(show, showRun.stdout, address);
      expectPrinted(example, exampleRun.stdout, address);
    },
    240_000,
  );
});
