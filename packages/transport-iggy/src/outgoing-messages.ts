/**
 * Records of an append into the messages the Iggy encoder writes. This runs once per record on
 * the send path, so it allocates only where it must: a bare VSR record (payload, no headers)
 * goes to the encoder as it is, and a sealed header map is encoded to its wire block once and
 * the block reused by every later record that carries the same map.
 */

import { encodeUserHeaders } from '@agdx/iggy-protocol';
import type { OutgoingMessage } from '@agdx/iggy-protocol';
import { copyRecordHeaders, InvalidArgumentError, isSealedHeaders } from '@agdx/transport';
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
 * Checks the records of one append and turns them into encoder messages. `newId` mints each
 * message's id (classic, whose servers mint ids slowly); without it the VSR encoder mints them
 * while writing the frames. When every record is bare (see above) the records array itself is
 * returned: the VSR send encodes it before `append` first waits, and the coalescer copies the
 * array of an append it has to queue. Header maps that are not sealed are validated and encoded
 * here, so a caller changing one after `append` returned changes nothing that is sent.
 * @throws InvalidArgumentError for a record, payload or header the transport refuses.
 */
export function toOutgoingMessages(records: readonly AppendRecord[], newId: (() => bigint) | undefined): readonly OutgoingMessage[] {
  const n = records.length;
  // Built only from the first record that cannot go as it is.
  let messages: OutgoingMessage[] | undefined;
  for (let i = 0; i < n; i++) {
    const record = records[i] as AppendRecord;
    if (typeof record !== 'object' || record === null) throw new InvalidArgumentError('each record must be an object');
    const payload = checkPayload(record.payload);
    const id = newId === undefined ? undefined : newId();
    if (id === undefined && bare(record)) {
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
    messages[i] = rawHeaders === undefined ? { id, payload } : { id, payload, rawHeaders };
  }
  return messages ?? records;
}
