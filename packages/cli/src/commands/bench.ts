/** `agdx bench`: runs bench/*.bench.ts with a progress indicator, tabulates and charts the results. */

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ratioChartSvg } from '../bench/bench-chart.js';
import { figuresOf, formatNumber, ratiosOf } from '../bench/bench-report.js';
import { flag, intOption, parseCommandArgs, stringOption } from '../args.js';
import { UsageError } from '../errors.js';
import { line, type CommandIo } from '../io.js';
import { renderTable } from '../table.js';
import type { Command } from './command.js';

const HELP = `Usage: agdx bench [name...] [options]

Runs the benchmarks of bench/*.bench.ts (those whose file name contains one of the names, or all),
each in its own process (node --expose-gc --import tsx --conditions=@agdx/source), with a progress
indicator. Prints a table of our figures beside their baselines and the ratios, and writes
bench/results/<name>.json, bench/results/summary.json and bench/results/ratios.svg.
A default run takes several minutes (about 30 s per benchmark).

Options:
  --dir DIR        the folder holding *.bench.ts (default: ./bench, else the repository's)
  --out DIR        where results go (default: <dir>/results)
  --timeout S      stop a benchmark after S seconds (default 300)
  --list           list the benchmarks and exit
  --report         do not run: rebuild the tables, summary.json and ratios.svg from the JSON
                   files already in the results folder
  --json           print the summary as JSON instead of tables
  -h, --help       this help

Exit codes: 0 every benchmark ran, 1 one failed (the others still run), 2 a usage error.`;

function benchDir(option: string | undefined): string {
  if (option !== undefined) return resolve(option);
  const local = resolve('bench');
  if (existsSync(local)) return local;
  return fileURLToPath(new URL('../../../../bench/', import.meta.url));
}

/** One finished benchmark. */
interface BenchRun {
  readonly name: string;
  readonly seconds: number;
  readonly result?: unknown;
  readonly error?: string;
}

function runOne(file: string, timeoutMs: number, signal: AbortSignal, onTick: () => void): Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', '--conditions=@agdx/source', file], { cwd: dirname(dirname(file)), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const tick = setInterval(onTick, 500);
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const abort = (): void => {
      child.kill('SIGTERM');
    };
    signal.addEventListener('abort', abort, { once: true });
    child.once('error', reject);
    child.once('close', (code) => {
      clearInterval(tick);
      clearTimeout(timer);
      signal.removeEventListener('abort', abort);
      resolveRun({ code, stdout, stderr, timedOut });
    });
  });
}

/** The last JSON object a bench printed (some print a progress line first). */
function parseResult(stdout: string): unknown {
  const text = stdout.trim();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    const lines = text.split('\n');
    for (let start = lines.length - 1; start >= 0; start--) {
      if (!lines[start]!.startsWith('{')) continue;
      try {
        return JSON.parse(lines.slice(start).join('\n')) as unknown;
      } catch {
        // keep looking for the start of the final object
      }
    }
    throw new Error('the output was not one JSON object');
  }
}

function progress(io: CommandIo, index: number, total: number, name: string, started: number): void {
  const seconds = Math.round((performance.now() - started) / 1000);
  if (!io.isTty) return;
  const width = 24;
  const filled = Math.round((index / total) * width);
  io.err.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${index}/${total} ${name} ${seconds}s   `);
}

/** A saved result for `--report`: a missing or unreadable file is that benchmark's failure, not the report's. */
function savedRun(name: string, saved: string): BenchRun {
  if (!existsSync(saved)) return { name, seconds: 0, error: `no saved result at ${saved}` };
  try {
    return { name, seconds: 0, result: JSON.parse(readFileSync(saved, 'utf8')) as unknown };
  } catch (error) {
    return { name, seconds: 0, error: `saved result at ${saved} is not readable JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** `agdx bench`. */
export const benchCommand: Command = {
  name: 'bench',
  summary: 'run the benchmarks, print ours beside the baselines, write JSON and an SVG chart',
  help: HELP,
  async run(argv, io) {
    const args = parseCommandArgs(argv, { dir: { type: 'string' }, out: { type: 'string' }, timeout: { type: 'string' }, list: { type: 'boolean' }, report: { type: 'boolean' }, json: { type: 'boolean' } }, true);
    if (flag(args, 'help')) return line(io.out, HELP);
    const dir = benchDir(stringOption(args, 'dir'));
    if (!existsSync(dir)) throw new UsageError(`no benchmark folder at ${dir}`);
    const out = resolve(stringOption(args, 'out') ?? join(dir, 'results'));
    const timeoutMs = intOption(args, 'timeout', 300, 1, 3600) * 1000;
    const files = readdirSync(dir)
      .filter((file) => file.endsWith('.bench.ts'))
      .filter((file) => args.positionals.length === 0 || args.positionals.some((wanted) => file.includes(wanted)))
      .sort();
    if (files.length === 0) throw new UsageError(`no benchmark in ${dir} matches ${args.positionals.join(', ')}`);
    if (flag(args, 'list')) {
      for (const file of files) line(io.out, basename(file, '.bench.ts'));
      return;
    }
    // A report over a folder with no saved result of any selected benchmark would write an empty
    // summary and chart over whatever was there: that is a mistaken folder, so nothing is written.
    if (flag(args, 'report') && !files.some((file) => existsSync(join(out, `${basename(file, '.bench.ts')}.json`)))) {
      throw new UsageError(`no saved benchmark result in ${out}: run agdx bench first, or point --out at the folder it wrote`);
    }
    mkdirSync(out, { recursive: true });
    const runs: BenchRun[] = [];
    for (const [index, file] of files.entries()) {
      if (io.signal.aborted) break;
      if (flag(args, 'report')) {
        const name = basename(file, '.bench.ts');
        const saved = join(out, `${name}.json`);
        runs.push(savedRun(name, saved));
        continue;
      }
      const name = basename(file, '.bench.ts');
      const started = performance.now();
      if (!io.isTty) line(io.err, `bench ${index + 1}/${files.length} ${name} ...`);
      progress(io, index, files.length, name, started);
      const run = await runOne(join(dir, file), timeoutMs, io.signal, () => progress(io, index, files.length, name, started));
      const seconds = Math.round((performance.now() - started) / 100) / 10;
      if (run.code !== 0) {
        runs.push({ name, seconds, error: run.timedOut ? `timed out after ${timeoutMs / 1000} s` : `exit ${String(run.code)}: ${run.stderr.trim().split('\n').slice(-1)[0] ?? ''}` });
        continue;
      }
      try {
        const result = parseResult(run.stdout);
        writeFileSync(join(out, `${name}.json`), `${JSON.stringify(result, null, 2)}\n`);
        runs.push({ name, seconds, result });
      } catch (error) {
        runs.push({ name, seconds, error: error instanceof Error ? error.message : String(error) });
      }
    }
    if (io.isTty) io.err.write(`\r${' '.repeat(80)}\r`);

    const machine = { node: process.version, platform: `${process.platform}-${process.arch}`, cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), loadAverage: loadavg().map((l) => Number(l.toFixed(2))) };
    const date = new Date().toISOString();
    const ratios = runs.flatMap((run) => (run.result === undefined ? [] : ratiosOf(run.name, run.result)));
    const figures = runs.flatMap((run) => (run.result === undefined ? [] : figuresOf(run.name, run.result)));
    const summary = { date, machine, runs: runs.map((run) => ({ name: run.name, seconds: run.seconds, error: run.error })), ratios, figures, results: Object.fromEntries(runs.map((run) => [run.name, run.result ?? { error: run.error }])) };
    writeFileSync(join(out, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
    writeFileSync(join(out, 'ratios.svg'), ratioChartSvg(ratios, `AGDX benchmarks, ${date.slice(0, 10)}, Node ${machine.node}, ${machine.cpus} × ${machine.cpuModel}`));

    if (flag(args, 'json')) line(io.out, JSON.stringify(summary, null, 2));
    else {
      line(io.out, `machine: ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, ${machine.platform}, Node ${machine.node}, load ${machine.loadAverage.join(' ')}`);
      line(io.out);
      line(io.out, renderTable(['BENCH', 'SIDE', 'FIGURE', 'VALUE'], figures.map((f) => [f.bench, f.side, f.metric, formatNumber(f.value)])));
      line(io.out);
      line(io.out, renderTable(['BENCH', 'RATIO', 'VALUE'], ratios.map((r) => [r.bench, r.metric, formatNumber(r.ratio)])));
      line(io.out);
      line(io.out, renderTable(['BENCH', 'SECONDS', 'OUTCOME'], runs.map((run) => [run.name, String(run.seconds), run.error ?? 'ok'])));
      line(io.out, `results in ${out} (summary.json, ratios.svg, one JSON per benchmark)`);
    }
    const failed = runs.filter((run) => run.error !== undefined);
    // Its own kind: a failed benchmark is a finding, not a bug of agdx (`internal`).
    if (failed.length > 0) throw Object.assign(new Error(`${failed.length} benchmark(s) failed: ${failed.map((run) => run.name).join(', ')}`), { kind: 'bench-failed' });
  },
};
