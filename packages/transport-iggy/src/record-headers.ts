/**
 * Reading user headers back. Iggy servers store header bytes without checking them, so a record
 * written by another client may carry headers outside the typed model (non-string keys, unknown
 * kinds, wrong widths, or no valid TLV at all). Such headers are skipped rather than failing the
 * read: the record and its payload are still delivered, and a partition never gets stuck behind
 * one record nobody can read.
 */

import { checkHeaderValue } from '@agdx/transport';
import type { HeaderValue, RecordHeaders } from '@agdx/transport';
import { decodeUserHeaderEntries, decodeUserHeaders, headerKindFromCode } from '@agdx/iggy-protocol';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function lenient(block: Uint8Array): Map<string, HeaderValue> {
  const out = new Map<string, HeaderValue>();
  let entries;
  try {
    entries = decodeUserHeaderEntries(block);
  } catch {
    return out;
  }
  for (const entry of entries) {
    const kind = headerKindFromCode(entry.valueKind);
    if (entry.keyKind !== 2 || kind === undefined) continue;
    try {
      const key = strictUtf8.decode(entry.key);
      if (out.has(key)) continue;
      out.set(key, checkHeaderValue({ kind, value: entry.value.slice() }));
    } catch {
      // Not representable in the typed model: skipped.
    }
  }
  return out;
}

/** The typed headers of a stored record's header block (empty block → empty map). */
export function headersOf(block: Uint8Array): RecordHeaders {
  if (block.length === 0) return new Map();
  try {
    return decodeUserHeaders(block);
  } catch {
    return lenient(block);
  }
}
