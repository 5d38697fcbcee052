/**
 * The client's payload storage for what it lays out itself (the chunk encoder's spliced chunks):
 * views of a shared slab (a small ArrayBuffer per record costs far more than a view), and, since
 * no slab is ever handed out twice, the payload can go to the transport as immutable. Whole
 * envelopes need none of it: wire's `encodeEnvelope` writes them straight into its own output
 * slab, whose views are never handed out twice either.
 */
import { ByteSlab } from '@agdx/transport';

const slab = new ByteSlab(16 * 1024, 1024);

/** A zero-filled Uint8Array of `size` bytes that nothing else will ever write to. */
export function payloadBytes(size: number): Uint8Array {
  return slab.take(size);
}
