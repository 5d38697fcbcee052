import { adoptIdBytes, fnv1a64, MachineId } from './machine-id.js';

/** A 128-bit id computed from content (graph node and edge ids). Not collision resistant. */
export class ContentId extends MachineId {
  declare private readonly contentIdBrand: void;
}

/**
 * `content_id(segments)`: FNV-1a 64 salted `0x4d` (high half) and `0xc7` (low half) over the
 * concatenated segments.
 */
export function contentId(segments: readonly Uint8Array[]): ContentId {
  const out = new Uint8Array(16);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, fnv1a64([0x4d], ...segments));
  view.setBigUint64(8, fnv1a64([0xc7], ...segments));
  return adoptIdBytes(ContentId, out);
}
