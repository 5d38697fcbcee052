/**
 * Records of an append into the messages the Iggy encoder writes. This runs once per record on
 * the send path, so it allocates only where it must: a bare VSR record (payload, no headers)
 * goes to the encoder as it is, and a sealed header map is encoded to its wire block once and
 * the block reused by every later record that carries the same map.
 */

import { encodeUserHeaders } from '@agdx/iggy-protocol';
import type { OutgoingMessage } from '@agdx/iggy-protocol';
import { batchRecordBytes, checkBatchBytes, copyRecordHeaders, InvalidArgumentError, isSealedHeaders, TransportError } from '@agdx/transport';
import type { AppendRecord, RecordHeaders } from '@agdx/transport';
import { toTransportError } from './error-mapping.js';
import { checkPayload } from './validation.js';

/**
 * Wire blocks of sealed header maps. A sealed map cannot change, so its block stays right for as
 * long as the map lives; the weak keys let both go together.
 */
const sealedBlocks = new WeakMap<RecordHeaders, Uint8Array>();

function encodeBlock(headers: RecordHeaders): Uint8Array {
  try {
    return encodeUserHeaders(headers);
  } catch (error) {
    throw toTransportError(error);
  }
}

/** The wire block of a non-empty sealed map, encoded on first use. */
function sealedBlock(headers: RecordHeaders): Uint8Array {
  let block = sealedBlocks.get(headers);
  if (block === undefined) sealedBlocks.set(headers, (block = encodeBlock(headers)));
  return block;
}

/**
 * True when the encoder would read nothing from `record` but its payload. The encoder also reads
 * `id`, `rawHeaders` and `originTimestamp`, which an `AppendRecord` does not have but a plain
 * JavaScript object passed in its place might; such a record is copied, so they are ignored.
 * Headers must be absent or an empty sealed map.
 */
function bare(record: AppendRecord): boolean {
  const m = record as OutgoingMessage;
  const headers = record.headers;
  // An empty sealed map (a record read back carries one) cannot gain entries later.
  if (headers !== undefined && (headers.size !== 0 || !isSealedHeaders(headers))) return false;
  return m.id === undefined && m.rawHeaders === undefined && m.originTimestamp === undefined;
}

/**
 * Checks the records of one append and turns them into encoder messages. Ids are minted by the
 * encoder while it writes the frames (VSR always; classic with `classicIds: 'random'`). When
 * every record is bare (see above) the records array itself is returned: a send encodes it before
 * `append` first waits, and an append that has to wait first takes {@link ownCopy}. Header maps
 * that are not sealed are validated and encoded here, so a caller changing one after `append`
 * returned changes nothing that is sent.
 * @throws InvalidArgumentError for a record, payload or header the transport refuses.
 */
export function toOutgoingMessages(records: readonly AppendRecord[]): readonly OutgoingMessage[] {
  try {
    return checkedMessages(records);
  } catch (error) {
    // A getter or a header map that throws is a bad argument, typed as MemoryLog types it.
    if (TransportError.is(error)) throw error;
    throw new InvalidArgumentError('a record could not be read', { cause: error });
  }
}

function checkedMessages(records: readonly AppendRecord[]): readonly OutgoingMessage[] {
  const n = records.length;
  // Built only from the first record that cannot go as it is.
  let messages: OutgoingMessage[] | undefined;
  // Measured as MemoryLog measures it, so both refuse the same batches (see MAX_BATCH_BYTES).
  let batchBytes = 0;
  for (let i = 0; i < n; i++) {
    const record = records[i] as AppendRecord;
    if (typeof record !== 'object' || record === null) throw new InvalidArgumentError('each record must be an object');
    const payload = checkPayload(record.payload);
    if (bare(record)) {
      batchBytes += batchRecordBytes(payload.length, 0);
      checkBatchBytes(batchBytes, i);
      if (messages !== undefined) messages[i] = record;
      continue;
    }
    messages ??= records.slice(0, i);
    const headers = record.headers;
    let rawHeaders: Uint8Array | undefined;
    if (headers !== undefined) {
      if (isSealedHeaders(headers)) {
        if (headers.size > 0) rawHeaders = sealedBlock(headers);
      } else {
        const copy = copyRecordHeaders(headers);
        if (copy.size > 0) rawHeaders = encodeBlock(copy);
      }
    }
    batchBytes += batchRecordBytes(payload.length, rawHeaders === undefined ? 0 : rawHeaders.length);
    checkBatchBytes(batchBytes, i);
    messages[i] = rawHeaders === undefined ? { payload } : { payload, rawHeaders };
  }
  return messages ?? records;
}

/**
 * An append's own copy of its messages, for one that waits before it is encoded (queued behind
 * another to the same target, or a classic append reading the partition count first). The array
 * and the message objects may be the caller's records, which the caller may change meanwhile;
 * the messages made here carry only `payload` and `rawHeaders`, which is what is copied.
 */
export function ownCopy(messages: readonly OutgoingMessage[]): OutgoingMessage[] {
  const copy = new Array<OutgoingMessage>(messages.length);
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as OutgoingMessage;
    copy[i] = m.rawHeaders === undefined ? { payload: m.payload } : { payload: m.payload, rawHeaders: m.rawHeaders };
  }
  return copy;
}
