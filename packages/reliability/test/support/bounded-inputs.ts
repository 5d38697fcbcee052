/**
 * Worst-case hostile records for the bounded decoders of @agdx/wire (issue 19, item 1): inputs
 * that cost unbounded work before the decoders checked counts and caps while reading (a 16 MiB
 * array of zeros, maps with 200,000 keys, deep nesting, huge declared lengths, a metadata map with a
 * million entries), plus the largest records each decoder still accepts. Every decoder must refuse
 * the hostile ones with a typed error and take bounded time and memory on all of them.
 */
import {
  AgentEnvelope,
  AgentId,
  CAPSULE_LIMITS,
  ConversationId,
  CorrelationId,
  decodeAgentCard,
  decodeAgentDeadLetter,
  decodeAgentErrorBody,
  decodeAgentPresence,
  decodeBackendAnnounce,
  decodeBodyRef,
  decodeEnvelope,
  decodeFoldSnapshot,
  decodeSessionEnd,
  decodeSessionHeartbeat,
  decodeSessionParking,
  decodeSessionPauseRequest,
  decodeSessionStart,
  decodeSessionTransition,
  decodeStateDelta,
  decodeStateSnapshot,
  decodeStrictCbor,
  encodeEnvelope,
  encodeSessionHeartbeat,
  encodeStateSnapshot,
  MAX_HEARTBEAT_SESSIONS,
  MAX_STATE_CBOR_ITEMS,
  MintUlid,
  RecordId,
  type JsonValue,
} from '@agdx/wire';

/** One decoder of a hostile record. */
export interface BoundedDecoder {
  readonly name: string;
  readonly decode: (bytes: Uint8Array) => unknown;
}

/** One crafted input and whether a decoder may accept it. */
export interface BoundedInput {
  readonly name: string;
  readonly bytes: Uint8Array;
}

/** Every decoder of untrusted record bytes in @agdx/wire. */
export const boundedDecoders: readonly BoundedDecoder[] = [
  { name: 'decodeEnvelope', decode: decodeEnvelope },
  { name: 'decodeStrictCbor', decode: (b) => decodeStrictCbor(b) },
  { name: 'decodeAgentErrorBody', decode: decodeAgentErrorBody },
  { name: 'decodeAgentDeadLetter', decode: decodeAgentDeadLetter },
  { name: 'decodeAgentCard', decode: decodeAgentCard },
  { name: 'decodeAgentPresence', decode: decodeAgentPresence },
  { name: 'decodeFoldSnapshot', decode: decodeFoldSnapshot },
  { name: 'decodeSessionHeartbeat', decode: decodeSessionHeartbeat },
  { name: 'decodeBackendAnnounce', decode: decodeBackendAnnounce },
  { name: 'decodeSessionParking', decode: decodeSessionParking },
  { name: 'decodeSessionPauseRequest', decode: decodeSessionPauseRequest },
  { name: 'decodeBodyRef', decode: decodeBodyRef },
  { name: 'decodeStateDelta', decode: decodeStateDelta },
  { name: 'decodeStateSnapshot', decode: decodeStateSnapshot },
  { name: 'decodeSessionStart', decode: decodeSessionStart },
  { name: 'decodeSessionTransition', decode: decodeSessionTransition },
  { name: 'decodeSessionEnd', decode: decodeSessionEnd },
];

const MIB = 1024 * 1024;

/** A CBOR head of `major` with argument `n` in shortest form. */
function head(major: number, n: number): number[] {
  const m = major << 5;
  if (n < 24) return [m | n];
  if (n < 0x100) return [m | 24, n];
  if (n < 0x10000) return [m | 25, n >> 8, n & 0xff];
  return [m | 26, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
}

function concat(parts: readonly (Uint8Array | readonly number[])[]): Uint8Array {
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const enc = new TextEncoder();

function text(s: string): Uint8Array {
  const bytes = enc.encode(s);
  return concat([head(3, bytes.length), bytes]);
}

/** A map of `n` distinct text keys (`k0`, `k1`, …), each with the value 0. */
function wideMap(n: number): Uint8Array {
  const parts: (Uint8Array | number[])[] = [head(5, n)];
  for (let i = 0; i < n; i++) parts.push(text(`k${i}`), [0]);
  return concat(parts);
}

/** `{ key: value }` with one text key. */
function oneKeyMap(key: string, value: Uint8Array): Uint8Array {
  return concat([head(5, 1), text(key), value]);
}

/** An array of `n` zeros: one byte per item, the cheapest input per declared item. */
function zeros(n: number): Uint8Array {
  const h = head(4, n);
  const out = new Uint8Array(h.length + n);
  out.set(h);
  return out;
}

/** `depth` nested one-item arrays around a zero. */
function deep(depth: number): Uint8Array {
  const out = new Uint8Array(depth + 1).fill(0x81);
  out[depth] = 0;
  return out;
}

/** A valid command envelope with `metadata` replaced by the raw CBOR `metadata`. */
function envelopeWithMetadata(metadata: Uint8Array): Uint8Array {
  const base = encodeEnvelope(
    AgentEnvelope.command(MintUlid.mint(RecordId), ConversationId.derive('bounded'), AgentId.new('attacker'), MintUlid.mint(CorrelationId), new Uint8Array(0)).withOperation('op'),
  );
  // The map head of a small envelope is one byte (0xa0 + n): add one entry, `metadata`, at the end.
  const count = (base[0] as number) & 0x1f;
  return concat([head(5, count + 1), base.subarray(1), text('metadata'), metadata]);
}

/**
 * Inputs every decoder must refuse with a typed error. Sizes stay within the 16 MiB input cap so
 * the refusal comes from the counts and caps, not from the length check at the door.
 */
export function hostileInputs(): BoundedInput[] {
  const arrayOfZeros = zeros(16 * MIB - 8);
  return [
    { name: '16 MiB array of zeros', bytes: arrayOfZeros },
    { name: 'map with 200,000 keys', bytes: wideMap(200_000) },
    { name: 'document map with 200,000 keys', bytes: oneKeyMap('document', wideMap(200_000)) },
    { name: 'nesting 100,000 deep', bytes: deep(100_000) },
    { name: 'array declaring 2^32 - 1 items', bytes: new Uint8Array([0x9a, 0xff, 0xff, 0xff, 0xff, 0]) },
    { name: 'byte string declaring 2^64 - 1 bytes', bytes: new Uint8Array([0x5b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]) },
    { name: 'map declaring 2^32 - 1 entries', bytes: new Uint8Array([0xba, 0xff, 0xff, 0xff, 0xff, 0x60, 0]) },
    { name: 'envelope metadata with 1,000,000 entries', bytes: envelopeWithMetadata(wideMap(1_000_000)) },
    { name: 'envelope metadata value listing 1,000,000 zeros', bytes: envelopeWithMetadata(oneKeyMap('v', zeros(1_000_000))) },
    { name: 'envelope with 1,000,000 unknown keys', bytes: concat([head(5, 1_000_001), text('kind'), text('event'), wideMap(1_000_000).subarray(5)]) },
    { name: 'pause request JSON of 16 MiB', bytes: enc.encode(`{"participants":[${'"a",'.repeat(4 * MIB - 8)}"a"]}`) },
  ];
}

/** The largest records some decoder accepts: they must decode within the same bounds. */
export function largestAccepted(): { readonly decoder: BoundedDecoder; readonly input: BoundedInput }[] {
  const byName = (name: string): BoundedDecoder => boundedDecoders.find((d) => d.name === name) as BoundedDecoder;
  // A snapshot whose document fills the item cap with one-byte zeros, the densest accepted shape.
  const items = MAX_STATE_CBOR_ITEMS - 16;
  const document: Record<string, JsonValue> = { zeros: new Array<JsonValue>(items).fill(0) };
  const sessions = Array.from({ length: MAX_HEARTBEAT_SESSIONS }, (_, i) => ConversationId.derive(`s${i}`));
  return [
    { decoder: byName('decodeStateSnapshot'), input: { name: `state snapshot of ${items} zeros`, bytes: encodeStateSnapshot({ baseRevision: 1n, document }) } },
    { decoder: byName('decodeSessionHeartbeat'), input: { name: `heartbeat of ${MAX_HEARTBEAT_SESSIONS} sessions`, bytes: encodeSessionHeartbeat({ process: 'p', stream: 's', sessions }) } },
    { decoder: byName('decodeStrictCbor'), input: { name: 'generic map of 32,767 keys (default item cap)', bytes: wideMap(32_767) } },
    { decoder: byName('decodeAgentErrorBody'), input: { name: 'error body with a 4,000-entry detail', bytes: concat([head(5, 2), text('code'), [6], text('detail'), wideMap(CAPSULE_LIMITS.errorBody.maxItems / 2 - 8)]) } },
  ];
}
