import type { LogRecord } from '@agdx/transport';

/** True when `bytes` is a view into a larger buffer, which keeping it would keep whole. */
function isView(bytes: Uint8Array): boolean {
  return bytes.byteLength !== bytes.buffer.byteLength;
}

/**
 * The record with bytes of its own, or the record itself when it already has them. A network
 * transport answers a read with records that are views into one reply buffer (up to 1,000 records
 * of every conversation on the partition), so a turn that kept those views would keep the whole
 * reply alive for as long as it is held, in a context window or in the caller's hands.
 */
export function ownedRecord(record: LogRecord): LogRecord {
  let headers = record.headers;
  for (const [name, header] of record.headers) {
    if (!isView(header.value)) continue;
    if (headers === record.headers) headers = new Map(record.headers);
    (headers as Map<string, typeof header>).set(name, { kind: header.kind, value: header.value.slice() });
  }
  const payload = isView(record.payload) ? record.payload.slice() : record.payload;
  if (payload === record.payload && headers === record.headers) return record;
  return { partition: record.partition, offset: record.offset, timestampMicros: record.timestampMicros, headers, payload };
}
