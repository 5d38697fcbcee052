/**
 * Detecting the protocol generation from the first bytes a client sends, so one listening port
 * can serve both. A classic request starts with `[length u32 ≥ 4][known command code u32]`; a
 * VSR request starts with a zero checksum (the SDKs never stamp it) and has command byte 5 at
 * offset 60 and a size of at least 256 at offset 48.
 */

import { isKnownCommandCode } from '../commands/command-codes.js';
import { VSR_HEADER_SIZE, VsrCommand } from './vsr-header.js';

/** The outcome of {@link detectProtocolGeneration}. */
export type ProtocolDetection = 'vsr' | 'classic' | 'need-more' | 'unknown';

/**
 * Classifies the first bytes of a connection. Returns `need-more` until it can decide (at most
 * 64 bytes are ever needed), `unknown` when the bytes fit neither generation.
 */
export function detectProtocolGeneration(first: Uint8Array): ProtocolDetection {
  if (first.length < 8) {
    // Eight zero bytes can only open a VSR header; anything else needs the code word too.
    return 'need-more';
  }
  const view = new DataView(first.buffer, first.byteOffset, first.byteLength);
  const word0 = view.getUint32(0, true);
  const word1 = view.getUint32(4, true);
  if (word0 >= 4 && isKnownCommandCode(word1)) return 'classic';
  if (first.length < 64) return 'need-more';
  const size = view.getUint32(48, true);
  if (first[60] === VsrCommand.Request && size >= VSR_HEADER_SIZE) return 'vsr';
  return 'unknown';
}
