/**
 * Sealed header maps: validated, deep-copied header blocks that refuse changes, so a transport
 * can store or reuse one without copying it again. A writer that appends the same block many
 * times (every record of a chunk stream, every message of one agent in one session) seals it
 * once instead of paying for a validated copy on every append.
 */

import { InvalidArgumentError } from './errors.js';
import { copyRecordHeaders, type HeaderValue, type RecordHeaders } from './headers.js';

// Membership is what makes a map sealed: a subclass or a look-alike built elsewhere is not.
const sealedMaps = new WeakSet<object>();

function refuse(): never {
  throw new InvalidArgumentError('sealed headers cannot be changed; build a new map and seal it');
}

/** A Map whose entries were fixed when it was sealed; every mutator throws InvalidArgumentError. */
class SealedHeaderMap extends Map<string, HeaderValue> {
  constructor(source: RecordHeaders) {
    super();
    for (const [key, header] of source) Map.prototype.set.call(this, key, Object.freeze({ kind: header.kind, value: header.value }));
  }

  override set(): this {
    return refuse();
  }

  override delete(): boolean {
    return refuse();
  }

  override clear(): void {
    refuse();
  }
}

/**
 * Validates `headers` like an append would and returns a sealed deep copy (a sealed map is
 * returned as it is). Appending a sealed map skips the per-append copy: its entries cannot change
 * and its value bytes belong to the seal, so they are shared with stored records, which readers
 * already treat as read-only.
 * @throws InvalidArgumentError when a key or value breaks Iggy's header rules.
 */
export function sealHeaders(headers: RecordHeaders): RecordHeaders {
  if (isSealedHeaders(headers)) return headers;
  const sealed = new SealedHeaderMap(copyRecordHeaders(headers));
  sealedMaps.add(sealed);
  return sealed;
}

/** True when `headers` came from {@link sealHeaders} (of this copy of the package). */
export function isSealedHeaders(headers: unknown): headers is RecordHeaders {
  return typeof headers === 'object' && headers !== null && sealedMaps.has(headers);
}

/** The stored form of a record without headers: one sealed empty map shared by all of them. */
export const EMPTY_HEADERS: RecordHeaders = sealHeaders(new Map());
