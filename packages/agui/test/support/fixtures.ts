import { readFileSync } from 'node:fs';

/** The shared fixtures folder, read in place. */
export const FIXTURES: URL = new URL('../../../../../shared/fixtures/', import.meta.url);

/** Parses one fixture file under the shared fixtures folder. */
export function loadFixture<T>(relative: string): T {
  return JSON.parse(readFileSync(new URL(relative, FIXTURES), 'utf8')) as T;
}

/** Hex to bytes. */
export function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}
