/**
 * The plain classic SendMessages body writer, kept as the reference the optimised classic encoder
 * is held to: routing, then one 16-byte index entry per message, then each message with its
 * 64-byte header written field by field (bigint stores) into a zeroed buffer. Test-only; never
 * used on the send path. Routing: stream and topic by name, an explicit partition.
 */
import { encodeUserHeaders } from '@agdx/iggy-protocol';
import type { OutgoingMessage } from '@agdx/iggy-protocol';

const U64 = 0xffff_ffff_ffff_ffffn;

/** The body bytes; a message without an id (or with 0) sends 0, as the default `classicIds: 'server'`. */
export function plainClassicBody(stream: string, topic: string, partitionId: number, messages: readonly OutgoingMessage[], now: () => bigint): Uint8Array {
  const names = [new TextEncoder().encode(stream), new TextEncoder().encode(topic)];
  const routing = 4 + names.reduce((s, b) => s + 2 + b.length, 0) + 6 + 4;
  const blocks = messages.map((m) => m.rawHeaders ?? (m.headers === undefined || m.headers.size === 0 ? new Uint8Array(0) : encodeUserHeaders(m.headers)));
  let clock: bigint | undefined;
  const origins = messages.map((m) => m.originTimestamp ?? (clock ??= now()));
  const n = messages.length;
  const size = routing + n * 16 + messages.reduce((s, m, i) => s + 64 + m.payload.length + (blocks[i] as Uint8Array).length, 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  let pos = 4;
  for (const b of names) {
    out[pos] = 2;
    out[pos + 1] = b.length;
    out.set(b, pos + 2);
    pos += 2 + b.length;
  }
  out[pos] = 2;
  out[pos + 1] = 4;
  view.setUint32(pos + 2, partitionId, true);
  pos += 6;
  view.setUint32(pos, n, true);
  view.setUint32(0, pos, true);
  const dataStart = routing + n * 16;
  let at = dataStart;
  messages.forEach((m, i) => {
    const block = blocks[i] as Uint8Array;
    const id = m.id ?? 0n;
    view.setBigUint64(at + 8, id & U64, true);
    view.setBigUint64(at + 16, id >> 64n, true);
    view.setBigUint64(at + 40, origins[i] as bigint, true);
    view.setUint32(at + 48, block.length, true);
    view.setUint32(at + 52, m.payload.length, true);
    out.set(m.payload, at + 64);
    out.set(block, at + 64 + m.payload.length);
    at += 64 + m.payload.length + block.length;
    view.setUint32(routing + i * 16 + 4, at - dataStart, true);
  });
  return out;
}
