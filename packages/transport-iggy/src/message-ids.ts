/**
 * Message ids for classic batches: a classic server mints ids for id 0, slowly, one message at a
 * time, so the client sends its own. Random bytes are drawn 16 KiB at a time, because the
 * platform call, not the bits, dominates the cost. (VSR ids are minted by the @agdx/iggy-protocol
 * encoder, straight into each frame.)
 */

const POOL_IDS = 1024;
const pool = new Uint8Array(POOL_IDS * 16);
const view = new DataView(pool.buffer);
let next = POOL_IDS;

/** A random non-zero u128. */
export function nextMessageId(): bigint {
  if (next === POOL_IDS) {
    globalThis.crypto.getRandomValues(pool);
    next = 0;
  }
  const at = next++ * 16;
  const id = (view.getBigUint64(at + 8, true) << 64n) | view.getBigUint64(at, true);
  return id === 0n ? 1n : id;
}
