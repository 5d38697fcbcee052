/** Protocol version packing and the ClientVersionInfo prefix of a VSR Register body. */

import { IggyInvalidError } from '../errors.js';
import type { ByteReader } from '../internal/byte-reader.js';
import type { ByteWriter } from '../internal/byte-writer.js';
import { checkU32, wireNameBytes } from '../internal/checks.js';

/** Packs `major<<20 | minor<<10 | patch`, 10 bits each. */
export function packProtocolVersion(major: number, minor: number, patch: number): number {
  for (const [v, f] of [[major, 'major'], [minor, 'minor'], [patch, 'patch']] as const) {
    if (!Number.isInteger(v) || v < 0 || v > 1023) throw new IggyInvalidError(`${f} must be 0..1023`, { context: { field: f } });
  }
  return ((major << 20) | (minor << 10) | patch) >>> 0;
}

/** Unpacks a protocol version into its parts. */
export function unpackProtocolVersion(packed: number): { readonly major: number; readonly minor: number; readonly patch: number } {
  return { major: (packed >>> 20) & 0x3ff, minor: (packed >>> 10) & 0x3ff, patch: packed & 0x3ff };
}

/** Binary protocol 0.11.0 = 11264 (0x2C00), what server 0.9.0-edge.5 speaks. */
export const IGGY_PROTOCOL_VERSION: number = packProtocolVersion(0, 11, 0);

/**
 * True when a server at `serverVersion` accepts a client at `clientVersion`: the client is at
 * least the server's version with patch zeroed, and its major.minor is at most the server's.
 */
export function isProtocolVersionAccepted(clientVersion: number, serverVersion: number): boolean {
  const min = serverVersion & ~0x3ff;
  return clientVersion >= min && (clientVersion & ~0x3ff) <= min;
}

/** The `[protocol_version u32][sdk_name WireName][sdk_version WireName]` prefix. */
export interface ClientVersionInfo {
  /** The packed protocol version (see {@link packProtocolVersion}). */
  readonly protocolVersion: number;
  /** The SDK's name, 1..255 bytes. */
  readonly sdkName: string;
  /** The SDK's version, 1..255 bytes. */
  readonly sdkVersion: string;
}

/** Writes a ClientVersionInfo. */
export function writeClientVersionInfo(w: ByteWriter, v: ClientVersionInfo): void {
  w.u32(checkU32(v.protocolVersion, 'protocolVersion'));
  const name = wireNameBytes(v.sdkName, 'sdkName');
  const version = wireNameBytes(v.sdkVersion, 'sdkVersion');
  w.u8(name.length).bytes(name).u8(version.length).bytes(version);
}

/** Reads a ClientVersionInfo. */
export function readClientVersionInfo(r: ByteReader): ClientVersionInfo {
  return { protocolVersion: r.u32('protocolVersion'), sdkName: r.wireName('sdkName'), sdkVersion: r.wireName('sdkVersion') };
}
