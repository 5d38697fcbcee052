/**
 * Detecting the protocol generation from the first bytes a client sends, so one listening port
 * can serve both. A classic request starts with `[length u32 ≥ 4][command code u32]`; a VSR
 * request starts with a zero checksum (the SDKs never stamp it) and has command byte 5 at
 * offset 60 and a size of at least 256 at offset 48.
 */

import { isKnownCommandCode } from '../commands/command-codes.js';
import { CLASSIC_DEFAULT_MAX_FRAME_SIZE } from './classic-frame.js';
import { VSR_HEADER_SIZE, VsrCommand } from './vsr-header.js';

/** The outcome of {@link detectProtocolGeneration}. */
export type ProtocolDetection = 'vsr' | 'classic' | 'need-more' | 'unknown';

/**
 * Classifies the first bytes of a connection. Returns `need-more` until it can decide (at most
 * 64 bytes are ever needed), `unknown` when the bytes fit neither generation. A classic frame
 * with an unknown command code is still classic (the server answers it with status 3), and is
 * recognised as soon as it is complete, so a short one cannot leave the server waiting.
 */
export function detectProtocolGeneration(first: Uint8Array): ProtocolDetection {
  if (first.length < 8) return 'need-more';
  const view = new DataView(first.buffer, first.byteOffset, first.byteLength);
  const length = view.getUint32(0, true);
  const plausibleClassic = length >= 4 && length + 4 <= CLASSIC_DEFAULT_MAX_FRAME_SIZE;
  const knownCode = isKnownCommandCode(view.getUint32(4, true));
  if (plausibleClassic && knownCode) return 'classic';
  // `[length 1..3][known code]`: a classic request with an impossible length, which Iggy answers
  // with status 3. A VSR header never starts that way (its checksum is zero).
  if (length >= 1 && length < 4 && knownCode) return 'classic';
  // A complete frame shorter than a VSR header can only be classic.
  if (plausibleClassic && length + 4 < VSR_HEADER_SIZE && length + 4 <= first.length) return 'classic';
  if (first.length < 64) return 'need-more';
  if (first[60] === VsrCommand.Request && view.getUint32(48, true) >= VSR_HEADER_SIZE) return 'vsr';
  return plausibleClassic ? 'classic' : 'unknown';
}
