/** Test helpers: hex vectors as written in the research sheet (spaces ignored, `[zeros:N]` expands). */

export function hex(text: string): Uint8Array {
  const expanded = text.replace(/\[zeros:(\d+)\]/g, (_, n: string) => '00'.repeat(Number(n))).replace(/\s+/g, '');
  if (expanded.length % 2 !== 0 || /[^0-9a-f]/i.test(expanded)) throw new Error(`bad hex: ${text}`);
  const out = new Uint8Array(expanded.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(expanded.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
export const text = (b: Uint8Array): string => new TextDecoder().decode(b);

/** The shared conformance fixtures, read in place (never copied into the repository). */
export const FIXTURES: URL = new URL('../../../../shared/fixtures/', import.meta.url);
