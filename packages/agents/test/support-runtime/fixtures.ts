import { readFileSync } from 'node:fs';

/** The shared fixtures folder, read in place. */
export const SHARED_FIXTURES: URL = new URL('../../../../../shared/fixtures/', import.meta.url);

/** Parses a JSON fixture relative to the shared fixtures folder. */
export function readFixture<T>(path: string): T {
  return JSON.parse(readFileSync(new URL(path, SHARED_FIXTURES), 'utf8')) as T;
}
