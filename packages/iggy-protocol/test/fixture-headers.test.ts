// Conformance: the Iggy headers the published 0.1.1 reference writes (oracle fixtures) go through
// this package's TLV codec and value builders unchanged. Driven by the data; nothing hard-coded.
// Reference quirk not copied (fixtures README, `quirk:target_or_source_over_header_value_max`):
// 0.1.1 writes header values over Iggy's 255-byte cap; this encoder refuses them.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HEADER_KIND_CODES, IggyInvalidError, decodeUserHeaderEntries, decodeUserHeaders, encodeUserHeaders, headerValue } from '@agdx/iggy-protocol';
import type { HeaderKind, HeaderValue } from '@agdx/iggy-protocol';
import { FIXTURES, hex, toHex } from './helpers.js';

interface FixtureHeader {
  readonly name: string;
  readonly kind: string;
  readonly iggy_kind?: string;
  readonly bytes_hex?: string;
  readonly value_hex_le?: string;
  readonly value?: number | string;
}

function load(file: string): { cases: { id: string; headers?: FixtureHeader[]; input?: { headers?: FixtureHeader[] } }[] } {
  return JSON.parse(readFileSync(new URL(`oracle/${file}`, FIXTURES), 'utf8'));
}

function isHeaderKind(kind: string): kind is HeaderKind {
  return Object.hasOwn(HEADER_KIND_CODES, kind);
}

/** The typed value the fixture states, built with this package's builders. */
function built(kind: HeaderKind, h: FixtureHeader): HeaderValue | undefined {
  const v = h.value;
  if (v === undefined) return undefined;
  switch (kind) {
    case 'uint8':
    case 'uint16':
    case 'uint32':
      return headerValue[kind](Number(v));
    case 'uint64':
    case 'uint128':
      return headerValue[kind](BigInt(v));
    case 'string':
      return headerValue.string(String(v));
    default:
      throw new Error(`fixture value of kind ${kind} is not handled by this test`);
  }
}

function bytesOf(kind: HeaderKind, h: FixtureHeader): Uint8Array {
  if (h.bytes_hex !== undefined) return hex(h.bytes_hex);
  if (h.value_hex_le !== undefined) return hex(h.value_hex_le);
  const b = built(kind, h);
  if (b === undefined) throw new Error(`header ${h.name} has no value`);
  return b.value;
}

const sources: [string, (c: ReturnType<typeof load>['cases'][number]) => FixtureHeader[] | undefined, (h: FixtureHeader) => string][] = [
  ['envelopes.json', (c) => c.headers, (h) => h.iggy_kind ?? h.kind],
  ['receive.json', (c) => c.input?.headers, (h) => h.kind],
];

describe.each(sources)('oracle %s headers', (file, pick, kindOf) => {
  const cases = load(file).cases.filter((c) => (pick(c)?.length ?? 0) > 0);

  it('has header cases', () => {
    expect(cases.length).toBeGreaterThan(0);
  });

  it('every header set round-trips through the TLV codec, values as the reference wrote them', () => {
    let checked = 0;
    let overCap = 0;
    for (const c of cases) {
      const map = new Map<string, HeaderValue>();
      for (const h of pick(c) ?? []) {
        const kind = kindOf(h);
        if (!isHeaderKind(kind)) throw new Error(`${c.id}: unknown Iggy header kind ${kind}`);
        const value = bytesOf(kind, h);
        const fromBuilder = built(kind, h);
        // The builders agree with the reference's bytes wherever the fixture states both.
        if (fromBuilder !== undefined && (h.bytes_hex !== undefined || h.value_hex_le !== undefined)) expect(toHex(fromBuilder.value), `${c.id} ${h.name}`).toBe(toHex(value));
        map.set(h.name, { kind, value });
      }
      if ([...map.values()].some((v) => v.value.length > 255)) {
        expect(() => encodeUserHeaders(map), c.id).toThrow(IggyInvalidError);
        overCap++;
      } else {
        const block = encodeUserHeaders(map);
        expect(decodeUserHeaders(block), c.id).toEqual(map);
        const entries = decodeUserHeaderEntries(block);
        expect(entries.map((e) => e.valueKind), c.id).toEqual([...map.values()].map((v) => HEADER_KIND_CODES[v.kind]));
        checked++;
      }
    }
    expect(checked + overCap).toBe(cases.length);
    expect(checked).toBeGreaterThan(0);
  });
});
