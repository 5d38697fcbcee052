/**
 * The AGDX wire contract, runtime-free: identifiers, the AgentEnvelope model and its CBOR codec,
 * validation, header blocks, dictionaries, capsules, chunk reassembly and claim-check.
 * @module
 */

export { AgdxError, CodecError, IntegrityError, InvalidError, UnsupportedError } from './errors.js';
export type { AgdxErrorOptions, ErrorKind } from './errors.js';

// --- identifiers, envelope model, codec, validation, dictionaries, usage (wire-core) ---
export { decodeCrockford, encodeCrockford } from './ids/crockford.js';
export { ChannelId, ConversationId, CorrelationId, MachineId, RecordId } from './ids/machine-id.js';
export type { MachineIdClass } from './ids/machine-id.js';
export { MintUlid } from './ids/mint-ulid.js';
export { systemUlidSource, UlidGenerator, ulidBytes } from './ids/ulid.js';
export type { UlidSource } from './ids/ulid.js';
export { AgentId, MAX_AGENT_ID_BYTES, MAX_SDK_AGENT_ID_BYTES } from './ids/agent-id.js';
export { IdempotencyKey, MAX_IDEMPOTENCY_KEY_BYTES } from './ids/idempotency-key.js';
export { LogPosition } from './ids/log-position.js';
export { MessageId } from './ids/message-id.js';
export { ContentId, contentId } from './ids/content-id.js';
export { utf8Length } from './ids/utf8.js';
export { AgentKind, isAgentKind } from './dictionaries/agent-kind.js';
export { isTerminalTaskState, TaskState, taskStateDisplay, taskStateName } from './dictionaries/task-state.js';
export type { TaskStateName } from './dictionaries/task-state.js';
export { AgentErrorCode, DeadLetterReason, Health, SignatureScheme } from './dictionaries/codes.js';
export { ContentType, contentTypeFromCode, contentTypeName } from './dictionaries/content-type.js';
export type { ContentTypeName } from './dictionaries/content-type.js';
export type { Metadata, MetadataValue } from './envelope/metadata.js';
export type { Signature, SignatureContext } from './envelope/signature.js';
export type { TokenUsage } from './usage/token-usage.js';
export { costToMicros } from './usage/cost.js';
export { AgentEnvelope } from './envelope/agent-envelope.js';
export type { EnvelopeFields } from './envelope/agent-envelope.js';
export {
  CHUNK_PURPOSES,
  ED25519_KEY_ID_BYTES,
  ED25519_SIGNATURE_BYTES,
  MAX_AGENT_STRING_BYTES,
  STATUS_OPERATIONS,
  validateEnvelope,
} from './envelope/validate.js';
export {
  MAX_METADATA_ENTRIES,
  MAX_METADATA_KEY_BYTES,
  MAX_METADATA_TOTAL_BYTES,
  MAX_METADATA_VALUE_BYTES,
  metadataValueSize,
} from './envelope/metadata-caps.js';
export {
  decodeSessionEnd,
  decodeSessionStart,
  decodeSessionTransition,
  encodeSessionEnd,
  encodeSessionStart,
  encodeSessionTransition,
  MAX_SESSION_LABEL_BYTES,
  MAX_SESSION_NAMESPACE_BYTES,
  MAX_SESSION_TAG_BYTES,
  MAX_SESSION_TAGS,
  validateSessionStart,
} from './envelope/session-bodies.js';
export type {
  SessionBudget,
  SessionEnd,
  SessionEndError,
  SessionSdk,
  SessionStart,
  SessionTransition,
} from './envelope/session-bodies.js';
export { decodeEnvelope } from './codec/envelope-decoder.js';
export type { EncodeEnvelopeOptions } from './codec/envelope-encoder.js';
export { encodeEnvelope, encodeEnvelopeInto, encodeEnvelopeUnsigned, encodeEnvelopeUnsignedInto, encodeSignatureContext } from './codec/envelope-encoder.js';

// --- headers, capsules, chunk assembler, claim check, state patches, helpers (wire-extras) ---
export { decodeStrictCbor, encodeCbor, DEFAULT_MAX_CBOR_BYTES, DEFAULT_MAX_CBOR_DEPTH, DEFAULT_MAX_CBOR_ITEMS } from './cbor/strict.js';
export { CAPSULE_LIMITS, MAX_STATE_CBOR_ITEMS } from './cbor/capsule-limits.js';
export type { CapsuleKind, CapsuleLimits } from './cbor/capsule-limits.js';
export { MAX_ITEMS as MAX_ENVELOPE_CBOR_ITEMS } from './codec/reader.js';
export type { CborValue, StrictCborOptions } from './cbor/strict.js';
export { FieldReader, isCborMap } from './cbor/fields.js';
export { readDetailMap, detailMapToCbor, detailValueToCbor } from './cbor/value.js';
export {
  HEADER_KIND_CODES,
  headerKindFromCode,
  rawHeader,
  stringHeader,
  boolHeader,
  int8Header,
  int16Header,
  int32Header,
  int64Header,
  int128Header,
  uint8Header,
  uint16Header,
  uint32Header,
  uint64Header,
  uint128Header,
  float32Header,
  float64Header,
  invalidHeader,
  readRawHeader,
  readStringHeader,
  readBoolHeader,
  readIntegerHeader,
  readInt8Header,
  readInt16Header,
  readInt32Header,
  readInt64Header,
  readInt128Header,
  readUint8Header,
  readUint16Header,
  readUint32Header,
  readUint64Header,
  readUint128Header,
  readFloat32Header,
  readFloat64Header,
} from './headers/header-value.js';
export type { HeaderKind, HeaderValue, RecordHeaders } from './headers/header-value.js';
export { HEADER_SOFT_CAP, HEADER_VALUE_MAX, HEADER_FRAMING_BYTES, headerBlockSize, checkHeaderValue, checkSoftCap, sortHeaders } from './headers/limits.js';
export { HeaderName, BROADCAST_ADDRESSEE, SHARED_SESSION_TOPICS, AGENT_OP_VERSION } from './headers/names.js';
export { encodeHeaderBlock, decodeHeaderBlock, readConversationHeader } from './headers/header-block.js';
export type { HeaderBlockFields, HeaderBlockOptions, HeaderAddressee, DecodedHeaderBlock } from './headers/header-block.js';
export { encodeProvenanceHeaders, decodeProvenanceHeaders } from './headers/provenance.js';
export type { Provenance, ProvenanceUsage } from './headers/provenance.js';
export { estimateTokens } from './helpers/token-estimate.js';
export { enterBridge, bridgeHopMetadata, readBridgeHops, BRIDGE_HOPS_METADATA_KEY } from './helpers/bridge-hops.js';
export { reportSkippedRecord, skippedRecordError } from './helpers/skipped-record.js';
export type { RecordPosition, SkippedRecordHandler } from './helpers/skipped-record.js';
export { encodeBodyRef, decodeBodyRef, validateBodyRef, MAX_BODY_REF_REFERENCE_BYTES } from './claim-check/body-ref.js';
export type { BodyRef } from './claim-check/body-ref.js';
export { InMemoryBlobStore, BlobNotFoundError } from './claim-check/blob-store.js';
export type { BlobStore } from './claim-check/blob-store.js';
export { checkIn, resolveBody, constantTimeEqual, CONTENT_TYPE_REF } from './claim-check/claim-check.js';
export type { CheckedIn } from './claim-check/claim-check.js';
export { ChunkAssembler, FINISH_REASON_GAP, FINISH_REASON_ABANDONED } from './chunks/assembler.js';
export type { AssemblerRecord, ChunkEvent, ChunkBodyEvent, ChunkFinishedEvent, ChunkFailedEvent } from './chunks/assembler.js';
export { reassembleChannel } from './chunks/reassemble.js';
export type { ChannelRecord, ReassembledChannel } from './chunks/reassemble.js';
export { applyJsonPatch, MAX_STATE_DEPTH, MAX_STATE_DOCUMENT_BYTES, parseJsonPatch, parseJsonPointer } from './state/json-patch.js';
export type { JsonPatchOperation } from './state/json-patch.js';
export { isJsonObject, jsonEqual, nestsDeeperThan } from './state/json-value.js';
export type { JsonValue } from './state/json-value.js';
export { jsonToCbor, cborToJson } from './state/json-cbor.js';
export {
  encodeStateDelta,
  decodeStateDelta,
  validateStateDelta,
  encodeStateSnapshot,
  decodeStateSnapshot,
  validateStateSnapshot,
  MAX_STATE_PATCH_OPS,
  MAX_STATE_JSON_BYTES,
  STATE_SNAPSHOT_OPERATION,
  STATE_DELTA_OPERATION,
} from './state/state-records.js';
export type { StateDelta, StateSnapshot } from './state/state-records.js';
export { reconstructState, StateFold } from './state/reconstruct.js';
export type { StateRecord, StateOutcome, ReconstructedState } from './state/reconstruct.js';
export { envelopeRecord, readEnvelopeRecord } from './headers/envelope-record.js';
export type { EnvelopeRecord, ReceivedRecord } from './headers/envelope-record.js';
export { encodeAgentErrorBody, decodeAgentErrorBody } from './capsules/error-body.js';
export type { AgentErrorBody } from './capsules/error-body.js';
export { encodeAgentDeadLetter, decodeAgentDeadLetter } from './capsules/dead-letter.js';
export type { AgentDeadLetter } from './capsules/dead-letter.js';
export { encodeAgentCard, decodeAgentCard, validateAgentCard, MAX_CARD_CAPABILITIES, MAX_CARD_TEXT_BYTES } from './capsules/agent-card.js';
export type { AgentCard, CapabilityDescriptor, ContentRef } from './capsules/agent-card.js';
export { encodeAgentPresence, decodeAgentPresence, validateAgentPresence, AGENT_PRESENCE_VERSION, MAX_PRESENCE_INBOX_BYTES } from './capsules/agent-presence.js';
export type { AgentPresence } from './capsules/agent-presence.js';
export { encodeFoldSnapshot, decodeFoldSnapshot, foldSnapshotResumeOffset, resumeOffsets } from './capsules/fold-snapshot.js';
export type { FoldSnapshot } from './capsules/fold-snapshot.js';
export {
  encodeSessionHeartbeat,
  decodeSessionHeartbeat,
  splitHeartbeatSessions,
  MAX_HEARTBEAT_SESSIONS,
  HEARTBEAT_OPERATION,
  HEARTBEAT_TOPIC,
} from './capsules/session-heartbeat.js';
export type { SessionHeartbeat } from './capsules/session-heartbeat.js';
export {
  AGDX_HELLO_CODE,
  FeatureBit,
  featureNames,
  DEFAULT_WIRE_TOPOLOGY,
  encodeHelloReply,
  encodeBackendAnnounce,
  decodeBackendAnnounce,
  decodeHelloReply,
} from './capsules/hello.js';
export type { OpVersions, BackendDescriptor, WireTopology, BackendAnnounce } from './capsules/hello.js';
export {
  SessionControlOperation,
  SESSION_PARKED_OPERATION,
  SESSION_UNPARKED_OPERATION,
  encodeSessionPauseRequest,
  decodeSessionPauseRequest,
  MAX_PAUSE_REQUEST_BYTES,
  encodeSessionParking,
  decodeSessionParking,
  validateSessionParking,
} from './capsules/session-control.js';
export type { SessionPauseRequest, SourceRef, SessionParking } from './capsules/session-control.js';
