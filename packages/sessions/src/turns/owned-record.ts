import type { LogRecord } from '@agdx/transport';

/** True when `bytes` is a view into a larger buffer, which keeping it would keep whole. */
function isView(bytes: Uint8Array): boolean {
  return bytes.byteLength !== bytes.buffer.byteLength;
}

/**
 * The records with bytes of their own, unless the buffers they are views into hold little else.
 * A network transport answers a read with records that are views into one reply buffer (up to
 * 1,000 records of every conversation on the partition), so a turn that kept those views would
 * keep the whole reply alive for as long as it is held, in a context window or in the caller's
 * hands. When the buffers behind `records` are more than twice their bytes (plus 1 KiB), every
 * payload and header value that is a view is copied into one new buffer shared by these records
 * only: one allocation per read batch rather than per record. Otherwise the records are returned
 * as they are, holding at most about twice their own bytes, and a batch that is mostly this
 * conversation's records (a long session replayed) is not copied at all.
 */
export function ownedRecords(records: readonly LogRecord[]): readonly LogRecord[] {
  let own = 0;
  let copied = 0;
  const buffers = new Set<ArrayBufferLike>();
  const note = (bytes: Uint8Array): void => {
    own += bytes.length;
    if (!isView(bytes)) return;
    copied += bytes.length;
    buffers.add(bytes.buffer);
  };
  for (const record of records) {
    note(record.payload);
    for (const header of record.headers.values()) note(header.value);
  }
  let held = 0;
  for (const buffer of buffers) held += buffer.byteLength;
  if (copied === 0 || held <= 2 * own + 1024) return records;
  const arena = new Uint8Array(copied);
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
