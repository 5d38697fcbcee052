import { describe, expect, test } from 'vitest';
import {
  BlobNotFoundError,
  checkIn,
  decodeBodyRef,
  encodeBodyRef,
  InMemoryBlobStore,
  IntegrityError,
  resolveBody,
  validateBodyRef,
  type BlobStore,
  type BodyRef,
} from '@agdx/wire';
import { errorOf, errorOfAsync, fixtureBytes, fromHex, oracle, toHex } from './extras-support/fixtures.js';

const data = oracle('claim_check');

function bodyRefFrom(json: any): BodyRef {
  const ref: BodyRef = { reference: json.reference, sizeBytes: BigInt(json.size_bytes), sha256: fromHex(json.sha256_hex) };
  return json.encryption === undefined ? ref : { ...ref, encryption: json.encryption };
}

function bodyRefToJson(ref: BodyRef): any {
  const out: any = { reference: ref.reference, size_bytes: ref.sizeBytes.toString(), sha256_hex: toHex(ref.sha256) };
  if (ref.encryption !== undefined) out.encryption = ref.encryption;
  return out;
}

/** A store that hands back exactly what the case says (reference on put, bytes on get). */
function scriptedStore(reference: string | undefined, returns: Uint8Array | undefined): BlobStore & { puts: Uint8Array[] } {
  const puts: Uint8Array[] = [];
  return {
    puts,
    put(bytes) {
      puts.push(bytes);
      return Promise.resolve(reference ?? 'unused');
    },
    get() {
      return Promise.resolve(returns);
    },
  };
}

describe('claim check: check_in', () => {
  test.each(data.sections.check_in as any[])('$id', async (c) => {
    const payload = fromHex(c.payload_hex);
    const store = scriptedStore(c.stored?.reference, payload);
    const result = await checkIn(store, c.threshold_bytes, payload);
    expect(toHex(result.payload)).toBe(c.result_payload_hex);
    expect(result.stored).toBe(c.stored !== null && c.stored !== undefined);
    expect(result.contentType).toBe(c.content_type === 'ref' ? 8 : undefined);
    if (result.stored) {
      expect(store.puts.map(toHex)).toEqual([c.stored.bytes_hex]);
      expect(bodyRefToJson(result.bodyRef!)).toEqual(c.body_ref);
      expect(toHex(await resolveBody(store, result.payload))).toBe(c.resolved_hex ?? c.payload_hex);
    }
  });
});

describe('claim check: resolve_body', () => {
  // The reference store held one blob per reference; the ok cases say which bytes those are.
  const blobs = new Map<string, Uint8Array>();
  for (const c of data.sections.resolve_body as any[]) {
    if (c.ok) blobs.set(decodeBodyRef(fromHex(c.payload_hex)).reference, fromHex(c.resolved_hex));
  }
  test.each(data.sections.resolve_body as any[])('$id $name', async (c) => {
    let returns: Uint8Array | undefined;
    if (c.store_returns_hex !== null && c.store_returns_hex !== undefined) returns = fromHex(c.store_returns_hex);
    else {
      const reference = errorOf(() => decodeBodyRef(fromHex(c.payload_hex))) ? undefined : decodeBodyRef(fromHex(c.payload_hex)).reference;
      returns = reference === undefined ? undefined : blobs.get(reference);
    }
    const store = scriptedStore(undefined, returns);
    if (c.ok) {
      expect(toHex(await resolveBody(store, fromHex(c.payload_hex)))).toBe(c.resolved_hex);
      return;
    }
    const err = await errorOfAsync(() => resolveBody(store, fromHex(c.payload_hex)));
    expect(err?.class).toBe(c.error.class);
    expect(err?.message).toBe(c.error.message);
    if (c.error.surface !== undefined) expect(err?.context).toMatchObject({ surface: c.error.surface, operation: c.error.operation });
  });

  test('a missing blob is a typed not-found error', async () => {
    const store = new InMemoryBlobStore();
    const ref = encodeBodyRef({ reference: 'mem://blobs/404', sizeBytes: 1n, sha256: new Uint8Array(32) });
    const err = await resolveBody(store, ref).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BlobNotFoundError);
    expect((err as BlobNotFoundError).kind).toBe('not-found');
  });

  test('in-memory store round trip, and tampering is an IntegrityError', async () => {
    const store = new InMemoryBlobStore();
    const payload = new TextEncoder().encode('x'.repeat(100));
    const checked = await checkIn(store, 10, payload);
    expect(checked.stored).toBe(true);
    expect(await resolveBody(store, checked.payload)).toEqual(payload);
    const tampered = encodeBodyRef({ ...checked.bodyRef!, sha256: new Uint8Array(32) });
    await expect(resolveBody(store, tampered)).rejects.toBeInstanceOf(IntegrityError);
  });
});

describe('claim check: body_refs', () => {
  test.each(data.sections.body_refs as any[])('$id', (c) => {
    const ref = bodyRefFrom(c.body_ref);
    expect(toHex(encodeBodyRef(ref))).toBe(c.cbor_hex);
    const decoded = decodeBodyRef(fromHex(c.cbor_hex));
    expect(bodyRefToJson(decoded)).toEqual(c.body_ref);
    const err = errorOf(() => validateBodyRef(decoded));
    if (c.validate === 'ok') expect(err).toBeUndefined();
    else {
      expect(err?.class).toBe(c.validate.class);
      expect(err?.message).toBe(c.validate.message);
      expect(err?.context).toEqual(c.validate.context);
    }
  });

  test('upstream agent_body_ref.bin decodes and re-encodes byte-identically', () => {
    const bytes = fixtureBytes('upstream/agent_body_ref.bin');
    const ref = decodeBodyRef(bytes);
    expect(ref.reference).toBe('s3://transcripts/conv-2/msg-9');
    validateBodyRef(ref);
    expect(toHex(encodeBodyRef(ref))).toBe(toHex(bytes));
  });
});
