// readEnvelopeRecord reads the agdx.av version and the agdx.ct code straight from their bytes.
// Header values arrive as views at any offset (a decoded header block is one shared copy), so
// the bytes are read through the view, every u32 bit counts, and anything else is the one
// typed error it always was.
import { AgentEnvelope, AgentId, CodecError, ConversationId, HeaderName, readEnvelopeRecord, RecordId } from '@agdx/wire';
import type { HeaderValue, RecordHeaders } from '@agdx/wire';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const payload = AgentEnvelope.event(RecordId.fromBigInt(1n), ConversationId.fromBigInt(2n), AgentId.new('a'), new Uint8Array([1])).encode().slice();

/** `bytes` as a view at `at` of a larger buffer whose other bytes are all `fill`. */
function viewAt(bytes: Uint8Array, at: number, fill: number): Uint8Array {
  const whole = new Uint8Array(at + bytes.length + 7).fill(fill);
  whole.set(bytes, at);
  return whole.subarray(at, at + bytes.length);
}

function read(headers: RecordHeaders): { kind: string; contentType: number | undefined } | { error: string; cause: string } {
  try {
    const r = readEnvelopeRecord(headers, payload);
    return { kind: r.kind, contentType: r.contentType };
  } catch (error) {
    expect(error).toBeInstanceOf(CodecError);
    const cause = (error as { cause?: unknown }).cause;
    expect(cause).toBeInstanceOf(CodecError);
    return { error: (error as Error).message, cause: (cause as Error).message };
  }
}

describe('envelope record version and content-type codes', () => {
  it('accepts version 1 only, whatever the four bytes and wherever they sit, and reads the content-type byte through its view', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.constantFrom([1, 0, 0, 0], [1, 0, 0, 0x80], [0, 0, 0, 0], [0xff, 0xff, 0xff, 0xff], [0, 1, 0, 0], [1, 0, 0, 1]), fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 })),
        fc.option(fc.integer({ min: 0, max: 255 }), { nil: undefined }),
        fc.nat({ max: 13 }),
        fc.integer({ min: 0, max: 255 }),
        fc.boolean(),
        (av, ct, at, fill, pooled) => {
          const place = (bytes: readonly number[]): Uint8Array => (pooled ? Buffer.concat([Buffer.alloc(at, fill), Buffer.from(bytes)]).subarray(at) : viewAt(Uint8Array.from(bytes), at, fill));
          const headers = new Map<string, HeaderValue>([[HeaderName.Version, { kind: 'uint32', value: place(av) }]]);
          if (ct !== undefined) headers.set(HeaderName.ContentType, { kind: 'uint8', value: place([ct]) });
          const version = new DataView(Uint8Array.from(av).buffer).getUint32(0, true);
          const got = read(headers);
          if (version === 1) expect(got).toEqual({ kind: 'envelope', contentType: ct });
          else expect(got).toEqual({ error: 'failed to decode agent message', cause: 'unsupported agent envelope version' });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses a version or content type of another kind, width or type with the typed error', () => {
    const one = Uint8Array.of(1, 0, 0, 0);
    const versions: unknown[] = [
      { kind: 'uint16', value: Uint8Array.of(1, 0) }, { kind: 'uint32', value: Uint8Array.of(1, 0, 0) }, { kind: 'uint32', value: Uint8Array.of(1, 0, 0, 0, 0) },
      { kind: 'int32', value: one }, { kind: 'uint32', value: [1, 0, 0, 0] }, { kind: 'uint32', value: new Uint16Array([1, 0]) }, { kind: 'uint32', value: null },
    ];
    for (const v of versions) expect(read(new Map([[HeaderName.Version, v as never]]))).toEqual({ error: 'failed to decode agent message', cause: 'unsupported agent envelope version' });
    const contentTypes: unknown[] = [{ kind: 'uint16', value: Uint8Array.of(1, 0) }, { kind: 'uint8', value: Uint8Array.of(1, 0) }, { kind: 'int8', value: Uint8Array.of(1) }, { kind: 'uint8', value: [1] }];
    for (const c of contentTypes) {
      const got = read(new Map<string, never>([[HeaderName.Version, { kind: 'uint32', value: one } as never], [HeaderName.ContentType, c as never]]));
      expect(got).toHaveProperty('error', 'failed to decode agent message');
    }
  });
});
