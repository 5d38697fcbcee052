const encoder = new TextEncoder();

/**
 * `text` as UTF-8 pieces of at most `maxBytes` each, cut only between code points, so every piece
 * decodes on its own (AG-UI and other readers decode each chunk as a text delta).
 */
export function utf8Pieces(text: string, maxBytes: number): Uint8Array[] {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return bytes.length === 0 ? [] : [bytes];
  const pieces: Uint8Array[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = Math.min(start + maxBytes, bytes.length);
    // Step back over continuation bytes (10xxxxxx) so the cut lands on a code point start.
    while (end < bytes.length && end > start && (bytes[end]! & 0xc0) === 0x80) end -= 1;
    pieces.push(bytes.subarray(start, end));
    start = end;
  }
  return pieces;
}
