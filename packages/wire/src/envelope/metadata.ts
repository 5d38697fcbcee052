/**
 * One metadata value. A CBOR integer is always a `bigint` and a CBOR float is always a `number`, so
 * `2.0` stays a float and `2n` stays an integer across a round trip. Lists nest; maps and byte
 * strings are not metadata values.
 */
export type MetadataValue = string | bigint | number | boolean | null | readonly MetadataValue[];

/** AGDX-native scalar extension context. Insertion order is wire order and is preserved. */
export type Metadata = ReadonlyMap<string, MetadataValue>;
