/**
 * The client's payload storage: every envelope it publishes is encoded into a view of a shared
 * slab (a small ArrayBuffer per record costs far more than a view), and, since no slab is ever
 * handed out twice, the payload can go to the transport as immutable.
 */
import { ByteSlab } from '@agdx/transport';

const slab = new ByteSlab(16 * 1024, 1024);

/** A zero-filled Uint8Array of `size` bytes that nothing else will ever write to. */
export function payloadBytes(size: number): Uint8Array {
  return slab.take(size);
}

/** Encoder options that place the output in a slab (for payloads handed to a transport as immutable). */
export const POOLED: { readonly allocate: (byteLength: number) => Uint8Array } = Object.freeze({ allocate: payloadBytes });
