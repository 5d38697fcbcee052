import { MemoryLog, type LogRecord, type LogTransport, type ReadRequest } from '@agdx/transport';

/**
 * A MemoryLog whose reads answer the way a network transport does: every record of one read is
 * a view into one buffer (the poll reply), payloads and header values alike.
 */
export function replyBufferLog(log: MemoryLog = new MemoryLog()): LogTransport {
  return new Proxy(log, {
    get(target, prop) {
      if (prop === 'read') {
        return async (request: ReadRequest) => inOneBuffer(await target.read(request));
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as LogTransport;
}

function inOneBuffer(records: readonly LogRecord[]): LogRecord[] {
  let size = 0;
  for (const r of records) {
    size += r.payload.length;
    for (const h of r.headers.values()) size += h.value.length;
  }
  const reply = new Uint8Array(size);
  let at = 0;
  const place = (bytes: Uint8Array): Uint8Array => {
    reply.set(bytes, at);
    at += bytes.length;
    return reply.subarray(at - bytes.length, at);
  };
  return records.map((r) => ({
    ...r,
    headers: new Map([...r.headers].map(([name, h]) => [name, { kind: h.kind, value: place(h.value) }])),
    payload: place(r.payload),
  }));
}

/** The bytes a set of turns keeps reachable: every distinct buffer behind their payloads, header values and envelope bodies. */
export function retainedBytes(messages: Iterable<{ readonly payload: Uint8Array; readonly headers: ReadonlyMap<string, { readonly value: Uint8Array }>; readonly envelope?: { readonly body: Uint8Array } | undefined }>): number {
  const buffers = new Set<ArrayBufferLike>();
  for (const m of messages) {
    buffers.add(m.payload.buffer);
    for (const h of m.headers.values()) buffers.add(h.value.buffer);
    if (m.envelope !== undefined) buffers.add(m.envelope.body.buffer);
  }
  let total = 0;
  for (const b of buffers) total += b.byteLength;
  return total;
}
