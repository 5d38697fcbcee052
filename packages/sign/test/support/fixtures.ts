// The one place that knows where the shared fixtures live (read in place, never copied).
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';

const BASE = new URL('../../../../../shared/fixtures/', import.meta.url);

/** Parsed JSON of an oracle file, with its reference pinned. */
export function oracle<T = Record<string, unknown>>(name: string): T & { sections: Record<string, unknown[]>; split: string } {
  const data = JSON.parse(readFileSync(new URL(`oracle/${name}`, BASE), 'utf8')) as {
    reference: { package: string; version: string };
  };
  expect(data.reference.package).toBe('@laserdata/laser-sdk');
  expect(data.reference.version).toBe('0.1.1');
  return data as never;
}

/** Raw bytes of an upstream fixture. */
export function upstream(name: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(`upstream/${name}`, BASE)));
}

/** Hex → bytes (test-side; the fixtures are trusted). */
export function hex(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'hex'));
}

/** Bytes → lowercase hex. */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

/** The back ends every behaviour is checked against. */
export const BACKENDS = ['noble', 'webcrypto', 'node-crypto'] as const;

/** An oracle error expectation. */
export interface OracleError {
  readonly class: string;
  readonly kind?: string;
  readonly message: string;
  readonly surface?: string;
  readonly operation?: string;
}

/** Asserts that `error` matches an oracle error: class name, kind and exact message. */
export function expectOracleError(error: unknown, expected: OracleError): void {
  expect(error).toBeInstanceOf(Error);
  const e = error as Error & { kind?: string; context?: Record<string, unknown> };
  expect(e.name).toBe(expected.class);
  if (expected.kind !== undefined) expect(e.kind).toBe(expected.kind);
  expect(e.message).toBe(expected.message);
  if (expected.surface !== undefined) expect(e.context?.['surface']).toBe(expected.surface);
  if (expected.operation !== undefined) expect(e.context?.['operation']).toBe(expected.operation);
}

/** Runs `fn` and returns what it threw (failing the test when it did not throw). */
export async function thrown(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  expect.fail('expected an error');
}

/** Registry entry as the signing oracle writes it. */
export interface OracleRecord {
  readonly principal: string;
  readonly verifying_key_hex: string;
  readonly kind: 'agent' | 'operator';
  readonly valid_from_micros: string;
  readonly valid_to_micros?: string;
  readonly revoked: boolean;
}
