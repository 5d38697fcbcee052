/** Writes a long run's figures as JSON under packages/reliability/results/. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

const folder = new URL('../../results/', import.meta.url);

/** The machine a figure was measured on. */
export function environment(): Record<string, unknown> {
  return { node: process.version, platform: `${process.platform}-${process.arch}`, cpus: cpus().length, loadAverage: loadavg().map((l) => Math.round(l * 10) / 10), date: new Date().toISOString() };
}

/** Writes `results/<name>.json` and prints where. */
export function writeResult(name: string, figures: unknown): string {
  mkdirSync(folder, { recursive: true });
  const file = new URL(`${name}.json`, folder);
  writeFileSync(file, `${JSON.stringify({ name, environment: environment(), figures }, null, 2)}\n`);
  process.stdout.write(`wrote ${file.pathname}\n`);
  return file.pathname;
}

/** A numeric command-line option `--name=value`, or the fallback. */
export function numberArg(name: string, fallback: number): number {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
  const value = hit === undefined ? fallback : Number(hit.slice(name.length + 3));
  if (!Number.isFinite(value)) throw new Error(`--${name} must be a number`);
  return value;
}
