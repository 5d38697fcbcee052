import { readFileSync, readdirSync } from 'node:fs';

/** Root of the shared conformance fixtures, read in place (never copied into the repo). */
export const FIXTURES_ROOT: URL = new URL('../../../../../shared/fixtures/', import.meta.url);

/** Parsed JSON of an oracle family file (`oracle/<name>.json`). */
export function loadOracle<T = any>(name: string): T {
  return JSON.parse(readFileSync(new URL(`oracle/${name}.json`, FIXTURES_ROOT), 'utf8')) as T;
}

/** Bytes of an upstream fixture (`upstream/<file>`). */
export function loadUpstream(file: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(`upstream/${file}`, FIXTURES_ROOT)));
}

/** File names under `upstream/`. */
export function listUpstream(): string[] {
  return readdirSync(new URL('upstream/', FIXTURES_ROOT)).sort();
}

/** Lowercase hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

/** Bytes of a hex string. */
export function fromHex(hex: string): Uint8Array {
  if (hex.length % 2 !== 0) throw new Error(`odd hex length: ${hex}`);
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** The backticked field a message names first (`` `channel` is invalid `` → `channel`), if any. */
export function backtickedField(message: string): string | undefined {
  const m = /`([^`]*)`/.exec(message);
  return m?.[1];
}

/** The field an expected oracle error names: its context field, else the first backticked name. */
export function expectedField(error: { message: string; context?: { field?: string }; operation?: string }): string | undefined {
  if (error.context?.field !== undefined) return error.context.field;
  return backtickedField(error.message);
}

/** Our own language-neutral vectors at the repo root (`fixtures/wire/<name>.json`). */
export const WIRE_VECTORS_ROOT: URL = new URL('../../../../fixtures/wire/', import.meta.url);

/** Parsed JSON of one of our vector files. */
export function loadWireVectors<T = any>(name: string): T {
  return JSON.parse(readFileSync(new URL(`${name}.json`, WIRE_VECTORS_ROOT), 'utf8')) as T;
}
