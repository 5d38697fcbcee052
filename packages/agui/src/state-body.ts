/**
 * Reads the body of a state record. Sessions write CBOR `StateSnapshot`/`StateDelta` capsules
 * (seed 000); the 0.1.1 reference wrote plain JSON. Both are read so older logs still render.
 */

import {
  decodeStateDelta,
  decodeStateSnapshot,
  MAX_STATE_DEPTH,
  MAX_STATE_JSON_BYTES,
  nestsDeeperThan,
  parseJsonPatch,
  type JsonPatchOperation,
  type JsonValue,
  type StateDelta,
  type StateSnapshot,
} from '@agdx/wire';

/** A state record body as read: the revision-guarded capsule, or a legacy JSON body. */
export type StateBody =
  | { readonly form: 'snapshot'; readonly snapshot: StateSnapshot }
  | { readonly form: 'delta'; readonly delta: StateDelta }
  | { readonly form: 'legacy-snapshot'; readonly document: JsonValue }
  | { readonly form: 'legacy-delta'; readonly patch: readonly JsonPatchOperation[] };

// The default decoder drops one leading byte order mark, which JSON lets a parser ignore, so a
// legacy body written with one still renders; marks inside its strings are kept.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function parseJson(bytes: Uint8Array): { ok: true; value: JsonValue } | { ok: false } {
  // JSON.parse has no limits of its own: a legacy body over the seeds' 8 MiB state cap is unreadable.
  if (bytes.length > MAX_STATE_JSON_BYTES) return { ok: false };
  let value: JsonValue;
  try {
    value = JSON.parse(strictUtf8.decode(bytes)) as JsonValue;
  } catch {
    return { ok: false };
  }
  // Nor a depth limit: a document nested deeper than the capsules may nest is unreadable too, since
  // folding it, and serializing its event with JSON.stringify, would overflow the stack.
  return nestsDeeperThan(value, MAX_STATE_DEPTH) ? { ok: false } : { ok: true, value };
}

/** The snapshot body, or undefined when it is neither a capsule nor JSON (such records render nothing). */
export function readSnapshotBody(body: Uint8Array): StateBody | undefined {
  try {
    return { form: 'snapshot', snapshot: decodeStateSnapshot(body) };
  } catch {
    // not a capsule: fall through to the legacy JSON body
  }
  const parsed = parseJson(body);
  if (!parsed.ok) return undefined;
  return { form: 'legacy-snapshot', document: parsed.value };
}

/** The delta body, or undefined when it is neither a capsule nor a JSON Patch array. */
export function readDeltaBody(body: Uint8Array): StateBody | undefined {
  try {
    return { form: 'delta', delta: decodeStateDelta(body) };
  } catch {
    // not a capsule: fall through to the legacy JSON body
  }
  const parsed = parseJson(body);
  if (!parsed.ok) return undefined;
  try {
    return { form: 'legacy-delta', patch: parseJsonPatch(parsed.value) };
  } catch {
    return undefined;
  }
}

