/**
 * Options blocks (VSR 0.11): the user-header TLV with string keys, no duplicates, at most 1024
 * entries and 100 000 bytes. Streams, topics and users carry settings this way.
 */

import { IggyCodecError, IggyInvalidError } from '../errors.js';
import type { HeaderValue } from './user-headers.js';
import { decodeUserHeaders, encodeUserHeaders } from './user-headers.js';

/** An options block: option key → typed value, in wire order. */
export type OptionsBlock = ReadonlyMap<string, HeaderValue>;

/** The most entries an options block may hold. */
export const MAX_OPTIONS_ENTRIES = 1024;

/** Encodes an options block (empty map → no bytes). */
export function encodeOptions(options: OptionsBlock): Uint8Array {
  if (options.size > MAX_OPTIONS_ENTRIES) throw new IggyInvalidError(`options block has ${options.size} entries, above ${MAX_OPTIONS_ENTRIES}`, { context: { field: 'options' } });
  return encodeUserHeaders(options);
}

/** Decodes an options block, enforcing string keys, known kinds, unique keys and the entry cap. */
export function decodeOptions(block: Uint8Array): Map<string, HeaderValue> {
  const map = decodeUserHeaders(block);
  if (map.size > MAX_OPTIONS_ENTRIES) throw new IggyCodecError(`options block has ${map.size} entries, above ${MAX_OPTIONS_ENTRIES}`, { context: { entries: map.size } });
  return map;
}
