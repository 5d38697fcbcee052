/**
 * Room for small record payloads, carved from shared slabs. Creating an ArrayBuffer costs an
 * order of magnitude more than a view into one, and a token stream creates one payload per
 * token. A slab is never written twice: when it is full a new one is started, so a carved payload
 * can be handed to a transport as immutable. A kept payload keeps its slab alive, which bounds
 * the waste to one slab per retained payload and, for a log's consecutive records, far less.
 */

const SLAB_BYTES = 16 * 1024;
/** Payloads above this size get their own buffer. */
const CARVE_LIMIT = 1024;

let slab = new Uint8Array(SLAB_BYTES);
let used = 0;

/** A zero-filled Uint8Array of `size` bytes that nothing else will ever write to. */
export function payloadBytes(size: number): Uint8Array {
  if (size > CARVE_LIMIT) return new Uint8Array(size);
  // A detached slab (a transport transferred a payload's buffer despite the contract) is dropped.
  if (used + size > SLAB_BYTES || slab.byteLength === 0) {
    slab = new Uint8Array(SLAB_BYTES);
    used = 0;
  }
  const start = used;
  used += size;
  return slab.subarray(start, used);
}

/** Encoder options that place the output in a slab (for payloads handed to a transport as immutable). */
export const POOLED: { readonly allocate: (byteLength: number) => Uint8Array } = Object.freeze({ allocate: payloadBytes });
