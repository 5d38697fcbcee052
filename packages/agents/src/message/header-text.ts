/**
 * A header value's bytes as text, exactly as written: a leading U+FEFF is kept (`agdx.to =
 * \ufeffme` addresses another agent than `me`; TextDecoder's default would drop the mark), and
 * invalid bytes become U+FFFD, so a malformed id simply matches nothing. One decoder for every
 * record (not streamed, so it may be shared).
 */
const headerTextDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** Decodes a header value's bytes as text (see the module note). */
export function headerText(bytes: Uint8Array): string {
  return headerTextDecoder.decode(bytes);
}
