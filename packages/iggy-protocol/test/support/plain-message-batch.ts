/**
 * The plain VSR batch writer, kept as the reference the optimised encoder is held to: measure
 * every message into arrays, write frames into a zeroed buffer, hash each frame and then the
 * batch from a freshly assembled input. Test-only; never used on the send path.
 */
import { encodeUserHeaders, xxh3_64 } from '@agdx/iggy-protocol';
import type { OutgoingMessage } from '@agdx/iggy-protocol';

const U64 = 0xffff_ffff_ffff_ffffn;

/** The batch bytes the plain writer produces; ids come from `newId` when a message has none. */
export function plainMessageBatch(messages: readonly OutgoingMessage[], newId: () => bigint, now: () => bigint): Uint8Array {
  const n = messages.length;
  const blocks = messages.map((m) => m.rawHeaders ?? (m.headers === undefined || m.headers.size === 0 ? new Uint8Array(0) : encodeUserHeaders(m.headers)));
  let clock: bigint | undefined;
  const origins = messages.map((m) => m.originTimestamp ?? (clock ??= now()));
  const origin = origins.reduce((a, b) => (b < a ? b : a), U64);
  const size = 256 + messages.reduce((s, m, i) => s + 48 + m.payload.length + (blocks[i] as Uint8Array).length, 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setBigUint64(24, origin, true);
  view.setBigUint64(32, BigInt(size), true);
  view.setUint32(48, n, true);
  const sums: Uint8Array[] = [];
  let at = 256;
  messages.forEach((m, i) => {
    const block = blocks[i] as Uint8Array;
    let id = m.id ?? 0n;
    if (id === 0n) id = newId();
    view.setBigUint64(at + 8, id & U64, true);
    view.setBigUint64(at + 16, id >> 64n, true);
    view.setUint32(at + 24, i, true);
    view.setUint32(at + 28, Number((origins[i] as bigint) - origin), true);
    view.setUint32(at + 32, block.length, true);
    view.setUint32(at + 36, m.payload.length, true);
    out.set(m.payload, at + 48);
    out.set(block, at + 48 + m.payload.length);
    const end = at + 48 + m.payload.length + block.length;
    view.setBigUint64(at, xxh3_64(out.subarray(at + 8, end)), true);
    sums.push(out.slice(at, at + 8));
    at = end;
  });
  const input = new Uint8Array(44 + n * 8);
  input.set(out.subarray(0, 40), 0);
  input.set(out.subarray(48, 52), 40);
  sums.forEach((s, i) => input.set(s, 44 + i * 8));
  view.setBigUint64(40, xxh3_64(input), true);
  return out;
}
