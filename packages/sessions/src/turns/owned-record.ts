import type { LogRecord } from '@agdx/transport';

/** True when `bytes` is a view into a larger buffer, which keeping it would keep whole. */
function isView(bytes: Uint8Array): boolean {
  return bytes.byteLength !== bytes.buffer.byteLength;
}

/**
 * The records with bytes of their own: their payloads and header values that are views into a
 * larger buffer are copied into one new buffer shared by these records only. A network transport
 * answers a read with records that are views into one reply buffer (up to 1,000 records of every
 * conversation on the partition), so a turn that kept those views would keep the whole reply
 * alive for as long as it is held, in a context window or in the caller's hands. One buffer per
 * read rather than per record keeps the copy to a single allocation.
 */
export function ownedRecords(records: readonly LogRecord[]): readonly LogRecord[] {
  let size = 0;
  for (const record of records) {
    if (isView(record.payload)) size += record.payload.length;
    for (const header of record.headers.values()) if (isView(header.value)) size += header.value.length;
  }
  if (size === 0) return records;
  const arena = new Uint8Array(size);
  let at = 0;
  const copy = (bytes: Uint8Array): Uint8Array => {
    if (!isView(bytes)) return bytes;
    arena.set(bytes, at);
    // a view built directly costs about half of `subarray`, which looks up a species constructor
    const view = new Uint8Array(arena.buffer, at, bytes.length);
    at += bytes.length;
    return view;
  };
  return records.map((record) => {
    let headers = record.headers;
    for (const [name, header] of record.headers) {
      if (!isView(header.value)) continue;
      if (headers === record.headers) headers = new Map(record.headers);
      (headers as Map<string, typeof header>).set(name, { kind: header.kind, value: copy(header.value) });
    }
    return { partition: record.partition, offset: record.offset, timestampMicros: record.timestampMicros, headers, payload: copy(record.payload) };
  });
}
