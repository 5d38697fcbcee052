/**
 * XXH32 seed 0 vectors of Apache Iggy (V6 in spec/iggy-protocol.md: the Java SDK's XxHash32Test),
 * shared by the tests of @agdx/transport and @agdx/iggy-protocol, which each implement the hash
 * on their own (neither may depend on the other; DESIGN.md section 3).
 */
export const IGGY_XXH32_VECTORS: ReadonlyArray<readonly [string | Uint8Array, number]> = [
  ['', 0x02cc5d05],
  ['a', 0x550d7456],
  ['abc', 0x32d153ff],
  ['message digest', 0x7c948494],
  ['abcdefghijklmnopqrstuvwxyz', 0x63a14d5f],
  ['user-123', 0x0cc9ec8c],
  ['order-key', 0x43a01006],
  [Uint8Array.from({ length: 256 }, (_, i) => i), 0x59441253],
  ['Nobody inspects the spammish repetition', 0xe2293b2f],
];
