/** The input limits one capsule decoder applies while decoding (never after). */
export interface CapsuleLimits {
  /** Largest accepted input, in bytes. */
  readonly maxBytes: number;
  /** Most CBOR data items (a map entry counts as two). */
  readonly maxItems: number;
}

const MIB = 1024 * 1024;

/** The capsules that have their own caps in {@link CAPSULE_LIMITS}. */
export type CapsuleKind =
  | 'errorBody'
  | 'deadLetter'
  | 'agentCard'
  | 'agentPresence'
  | 'foldSnapshot'
  | 'sessionHeartbeat'
  | 'hello'
  | 'sessionParking'
  | 'bodyRef'
  | 'stateDelta'
  | 'stateSnapshot';

/**
 * Items a state document or patch may hold. The seeds cap the compact JSON at 8 MiB, which would
 * allow about four million one-byte items; this cap keeps a full decode, the JSON conversion and
 * the size check of the largest accepted record within 50 ms on a busy two-core machine.
 */
export const MAX_STATE_CBOR_ITEMS = 65_536;

/**
 * Per-capsule caps, checked by the strict reader as lengths and counts are read. Each item cap is
 * the schema's own bound with room for unknown keys from newer writers; where the seeds state a
 * cap (heartbeat sessions, card capabilities, state size) it is the source.
 */
export const CAPSULE_LIMITS: Readonly<Record<CapsuleKind, CapsuleLimits>> = Object.freeze({
  /** AgentErrorBody: code, message, retryable and a metadata-like `detail` map (about 4,000 entries at most). */
  errorBody: { maxBytes: 1 * MIB, maxItems: 8_192 },
  /** Dead letter: five fields; `payload` is the original record verbatim (up to the default byte cap). */
  deadLetter: { maxBytes: 16 * MIB, maxItems: 256 },
  /** AgentCard: at most 64 capabilities of about 30 items each. */
  agentCard: { maxBytes: 1 * MIB, maxItems: 4_096 },
  /** AgentPresence: three fields. */
  agentPresence: { maxBytes: 64 * 1024, maxItems: 256 },
  /** FoldSnapshot: one `as_of` entry per partition (Iggy allows 1,000 per topic) and opaque state bytes. */
  foldSnapshot: { maxBytes: 16 * MIB, maxItems: 8_192 },
  /** SessionHeartbeat: at most 2,048 sessions (seed 000); larger sets are split across records. */
  sessionHeartbeat: { maxBytes: 1 * MIB, maxItems: 2_048 + 256 },
  /** HelloReply / BackendAnnounce: versions, backends and topology. */
  hello: { maxBytes: 1 * MIB, maxItems: 4_096 },
  /** SessionParking: a source reference, a role and a position. */
  sessionParking: { maxBytes: 64 * 1024, maxItems: 256 },
  /** BodyRef: reference (≤ 1,024 bytes), size, digest, encryption. */
  bodyRef: { maxBytes: 64 * 1024, maxItems: 256 },
  /** StateDelta: at most 256 operations; 8 MiB of JSON (seed 000), which CBOR floats can triple. */
  stateDelta: { maxBytes: 16 * MIB, maxItems: MAX_STATE_CBOR_ITEMS },
  /** StateSnapshot: one document; 8 MiB of JSON (seed 000), which CBOR floats can triple. */
  stateSnapshot: { maxBytes: 16 * MIB, maxItems: MAX_STATE_CBOR_ITEMS },
} satisfies Record<CapsuleKind, CapsuleLimits>);
