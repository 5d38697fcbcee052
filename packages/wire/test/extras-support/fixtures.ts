import { readFileSync } from 'node:fs';

/** Root of the shared conformance fixtures, read in place. */
export const FIXTURES: URL = new URL('../../../../../shared/fixtures/', import.meta.url);

/** Parses a JSON fixture file relative to the fixtures root. */
export function fixtureJson<T = any>(path: string): T {
  return JSON.parse(readFileSync(new URL(path, FIXTURES), 'utf8')) as T;
}

/** Reads a binary fixture as a plain Uint8Array (never a Buffer: cbor2 would encode it as a map). */
export function fixtureBytes(path: string): Uint8Array {
  const buf = readFileSync(new URL(path, FIXTURES));
  return new Uint8Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
}

/** Lowercase hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

/** Bytes of a hex string. */
export function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Asserts the oracle file comes from the reference it claims, then returns it. */
export function oracle<T = any>(family: string): T {
  const data = fixtureJson<any>(`oracle/${family}.json`);
  if (data.reference?.package !== '@laserdata/laser-sdk' || data.reference?.version !== '0.1.1') {
    throw new Error(`unexpected reference in oracle/${family}.json`);
  }
  return data as T;
}

/** Loads the divergence expectations (case id → what we do and why). */
export function divergences(): Record<string, string> {
  return JSON.parse(readFileSync(new URL('../expectations/extras-divergences.json', import.meta.url), 'utf8')) as Record<string, string>;
}

/** Error summary used to compare with oracle `{class, message}`. */
export function errorOf(fn: () => unknown): { class: string; message: string; kind?: string; context?: unknown } | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    const e = error as { name: string; message: string; kind?: string; context?: unknown };
    return { class: e.name, message: e.message, kind: e.kind, context: e.context };
  }
}

/** Async variant of {@link errorOf}. */
export async function errorOfAsync(fn: () => Promise<unknown>): Promise<{ class: string; message: string; kind?: string; context?: unknown } | undefined> {
  try {
    await fn();
    return undefined;
  } catch (error) {
    const e = error as { name: string; message: string; kind?: string; context?: unknown };
    return { class: e.name, message: e.message, kind: e.kind, context: e.context };
  }
}
