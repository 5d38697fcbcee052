/**
 * A demo body's bytes as text, as sent: a leading U+FEFF is kept (TextDecoder's default drops
 * it). One decoder for the demo's agents, worker and run, not one per body.
 */
const bodyDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** Decodes a body's bytes as text (see the module note). */
export function decode(bytes: Uint8Array): string {
  return bodyDecoder.decode(bytes);
}
