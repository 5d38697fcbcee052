/**
 * DescribeOptions (13, VSR only): the catalog of option keys a server accepts in the options
 * blocks of one resource scope. Request `[scope u8]` (1 topic, 2 stream, 3 user); reply
 * `[count u32]` then per option `[key WireName][kind u8][default_len u32][default]`
 * `[description_len u32][utf8]`, the default encoded as a value of that header kind.
 */

import { ByteReader } from '../internal/byte-reader.js';
import { ByteWriter, encodeUtf8 } from '../internal/byte-writer.js';
import { checkU8, wireNameBytes } from '../internal/checks.js';

/** The resource scopes DescribeOptions knows. */
export const OptionsScope = {
  Topic: 1,
  Stream: 2,
  User: 3,
} as const;

/** A scope value of {@link OptionsScope}. */
export type OptionsScope = (typeof OptionsScope)[keyof typeof OptionsScope];

/** One option of the catalog. */
export interface OptionDescriptor {
  /** The option key. */
  readonly key: string;
  /** The header kind code of its value (for example 11 = uint64, 3 = bool, 2 = string). */
  readonly kindCode: number;
  /** The default, as the little-endian bytes of that kind. */
  readonly defaultValue: Uint8Array;
  /** Human-readable description. */
  readonly description: string;
}

/** Encodes DescribeOptions' request. */
export function encodeDescribeOptionsRequest(scope: OptionsScope): Uint8Array {
  return new ByteWriter(1).u8(checkU8(scope, 'scope')).finish().slice();
}

/** Decodes DescribeOptions' request (server side); a scope outside 1..3 is a codec error. */
export function decodeDescribeOptionsRequest(payload: Uint8Array): { readonly scope: OptionsScope } {
  const r = new ByteReader(payload, 'DescribeOptions');
  const scope = r.u8('scope');
  if (scope < OptionsScope.Topic || scope > OptionsScope.User) throw r.fail(`unknown options scope ${scope}`, 'scope');
  r.end();
  return { scope: scope as OptionsScope };
}

/** Encodes the DescribeOptions reply (server side). */
export function encodeOptionDescriptors(entries: readonly OptionDescriptor[]): Uint8Array {
  const w = new ByteWriter(64 * entries.length + 4);
  w.u32(entries.length);
  for (const e of entries) {
    const key = wireNameBytes(e.key, 'key');
    const description = encodeUtf8(e.description);
    w.u8(key.length).bytes(key).u8(checkU8(e.kindCode, 'kindCode'));
    w.u32(e.defaultValue.length).bytes(e.defaultValue).u32(description.length).bytes(description);
  }
  return w.finish().slice();
}

/** The smallest encoded descriptor: a 1-byte key, kind, two empty lengths. */
const MIN_DESCRIPTOR_BYTES = 2 + 1 + 4 + 4;

/** Decodes the DescribeOptions reply. The count is checked against the bytes present first. */
export function decodeOptionDescriptors(payload: Uint8Array): OptionDescriptor[] {
  const r = new ByteReader(payload, 'DescribeOptions reply');
  const count = r.u32('count');
  r.need(count * MIN_DESCRIPTOR_BYTES, 'options');
  const out: OptionDescriptor[] = [];
  for (let i = 0; i < count; i++) {
    const key = r.wireName('key');
    const kindCode = r.u8('kind');
    const defaultValue = r.bytesView(r.u32('default length'), 'default').slice();
    const description = r.longString('description');
    out.push({ key, kindCode, defaultValue, description });
  }
  r.end();
  return out;
}
