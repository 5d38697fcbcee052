// Which decode failures the codec marks as a forbidden value (`context.validation`) and which as
// malformed bytes, following Iggy 0.8's `WireError::Validation` versus its other decode errors
// (core/binary_protocol/src/primitives/identifier.rs `WireName::decode` and
// `WireIdentifier::decode`, primitives/partitioning.rs `WirePartitioning::decode`). A server
// answers the first with 4 under classic and the second with 3.
import { describe, expect, it } from 'vitest';
import { IggyCodecError, decodeCreateStreamRequest, decodeStreamTarget, decodeSendMessagesRequest } from '@agdx/iggy-protocol';

function failure(run: () => unknown): IggyCodecError {
  try {
    run();
  } catch (e) {
    if (e instanceof IggyCodecError) return e;
    throw e;
  }
  throw new Error('decoded without an error');
}

const marked = (run: () => unknown): unknown => failure(run).context?.['validation'];

describe('decode failures: forbidden values versus malformed bytes', () => {
  it('identifiers: a numeric length other than 4 and an empty string are forbidden values', () => {
    expect(marked(() => decodeStreamTarget(Uint8Array.of(1, 3, 1, 0, 0)))).toBe(true);
    expect(marked(() => decodeStreamTarget(Uint8Array.of(2, 0)))).toBe(true);
  });

  it('identifiers: a value cut short or an unknown kind are malformed bytes, even with a bad length', () => {
    expect(marked(() => decodeStreamTarget(Uint8Array.of(1, 4, 1)))).toBeUndefined();
    // Length 3 but only one byte: the value is read before the kind is judged, as Iggy reads it.
    expect(marked(() => decodeStreamTarget(Uint8Array.of(1, 3, 1)))).toBeUndefined();
    expect(marked(() => decodeStreamTarget(Uint8Array.of(7, 1, 65)))).toBeUndefined();
  });

  it('names: an empty name is a forbidden value; a name cut short is not', () => {
    expect(marked(() => decodeCreateStreamRequest(Uint8Array.of(0), 'classic'))).toBe(true);
    expect(marked(() => decodeCreateStreamRequest(Uint8Array.of(5, 97), 'classic'))).toBeUndefined();
  });

  it('partitioning: a length that does not fit the kind is a forbidden value; an unknown kind is not', () => {
    // [metadata_length u32][stream][topic][partitioning]…: the partitioning fails before the length is compared.
    const stream = [1, 4, 1, 0, 0, 0];
    const send = (partitioning: number[]) => decodeSendMessagesRequest(Uint8Array.of(64, 0, 0, 0, ...stream, ...stream, ...partitioning), 'classic');
    expect(marked(() => send([1, 4]))).toBe(true);
    expect(marked(() => send([2, 2, 0, 0]))).toBe(true);
    expect(marked(() => send([3, 0]))).toBe(true);
    expect(marked(() => send([9, 0]))).toBeUndefined();
  });
});
