// The signing input of an envelope, built in one buffer this module reuses instead of two fresh
// arrays per signature (the unsigned encoding, then the concatenation). Safe because every
// consumer reads it before the next signature starts: WebCrypto copies its data argument when it
// is called (WebCrypto spec: "get a copy of the bytes held by the data parameter"), and the noble
// back end is synchronous. A caller that defers the read must copy the view first.
import { AgdxError } from '@agdx/wire';
import type { AgentEnvelope, SignatureContext } from '@agdx/wire';
import { encodeUnsignedInto } from './envelope-port.js';
import { sharedContextBytes } from './signature-context.js';
import { DOMAIN_BYTES } from './signing-input.js';

/** Room kept between calls; a buffer that grew past this for one large envelope is dropped after use. */
const KEPT_BYTES = 64 * 1024;
/** Growth steps before the encoder's own error is passed on: each at least doubles the room. */
const MAX_GROWTH = 24;

/** Size of the buffer kept between calls to start with. */
const SMALL_BYTES = 4 * 1024;

function freshBuffer(size: number): Uint8Array {
  const out = new Uint8Array(size);
  out.set(DOMAIN_BYTES, 0);
  return out;
}

let buffer = freshBuffer(SMALL_BYTES);

function needsMoreRoom(error: unknown): number | undefined {
  if (!AgdxError.is(error, 'invalid')) return undefined;
  const context = error.context as { field?: unknown; atLeast?: unknown } | undefined;
  return context?.field === 'target' && typeof context.atLeast === 'number' ? context.atLeast : undefined;
}

/**
 * `agdx.signature.v1` ‖ CBOR(context) when given ‖ the canonical unsigned envelope, as a view
 * into the shared buffer: valid until the next call, so read (or copy) it at once.
 * @throws InvalidError for a context or envelope field outside its wire range (as {@link signingInput}).
 */
export function envelopePreimage(envelope: AgentEnvelope, context: SignatureContext | undefined): Uint8Array {
  // The context encoding is at most a few dozen bytes, far below the smallest buffer.
  const ctx = context === undefined ? undefined : sharedContextBytes(context);
  const head = DOMAIN_BYTES.length + (ctx === undefined ? 0 : ctx.length);
  for (let attempt = 0; ; attempt++) {
    const out = buffer;
    if (ctx !== undefined) out.set(ctx, DOMAIN_BYTES.length);
    try {
      const n = encodeUnsignedInto(envelope, out, head);
      // A buffer grown for one large envelope is handed out and not kept.
      if (out.length > KEPT_BYTES) buffer = freshBuffer(SMALL_BYTES);
      return out.subarray(0, head + n);
    } catch (error) {
      const atLeast = needsMoreRoom(error);
      if (atLeast === undefined || attempt >= MAX_GROWTH) throw error;
      buffer = freshBuffer(Math.max(2 * out.length, 2 * (head + atLeast)));
    }
  }
}
