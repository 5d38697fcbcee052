/** Reads the shared conformance fixtures in place (never copied into the repo). */
import { readFileSync } from 'node:fs';

const BASE = new URL('../../../../../shared/fixtures/', import.meta.url);

/** Parses one fixture file, e.g. `oracle/publisher.json`. */
export function loadFixture<T = unknown>(relative: string): T {
  return JSON.parse(readFileSync(new URL(relative, BASE), 'utf8')) as T;
}

/** Hex → bytes. */
export function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Bytes → lowercase hex. */
export function toHex(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

/** The case name without its trailing `/<n>` repetition index. */
export function scenarioOf(name: string): string {
  return name.replace(/\/\d+$/, '');
}
