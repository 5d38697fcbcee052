/**
 * The AGDX agent SDK: root client, send builders, chunk writers, agent runtime, replies, human input, lifecycle, heartbeats and pause/resume.
 * @module
 */

// --- client (agents-client) ---
export {
  CancelledError,
  HandlerConfigError,
  LayoutMismatchError,
  NoStreamError,
  PolicyBlockedError,
  PublishFailedError,
  RejectedError,
  SkippedRecordError,
  TimeoutError,
} from './errors.js';
export type { AgentsErrorKind, SkipReason } from './errors.js';
export { AgdxClient } from './client/agdx-client.js';
export type { AgdxClientOptions, BootstrapOptions, BootstrapResult, PublishOptions, RequestOptions } from './client/agdx-client.js';
export { AgentTopic, BOOTSTRAP_TOPICS, HEARTBEAT_EXPIRY_MICROS, ON_FIRST_USE_TOPICS } from './client/agent-topic.js';
export { AgdxSend } from './send/agdx-send.js';
export type { RequestInputOptions } from './send/agdx-send.js';
export { AgdxSendBuilder } from './send/agdx-send-builder.js';
export type { SendOptions, SendReceipt } from './send/agdx-send-builder.js';
export type { ContentTypeLike } from './send/content-type.js';
export type { AgentIdLike, TaskStateLike } from './send/refinements.js';
export type { Signer } from './send/signer.js';
export { AgdxChunkWriter, MAX_CHUNK_BODY_BYTES } from './streaming/chunk-writer.js';
export type { ChunkWriteOptions } from './streaming/chunk-writer.js';
export { ChunkEncoder } from './streaming/chunk-encoder.js';
export type { ChunkStreamFields } from './streaming/chunk-encoder.js';
export { agentMessageBody, agentMessageResolveBody, readAgentMessage, resolveAgentMessageBody } from './message/agent-message.js';
export type {
  AgentMessage,
  AgentProvenance,
  LlmUsage,
  MessagePosition,
  ProvenanceAgent,
  ReadAgentMessageOptions,
} from './message/agent-message.js';
export { ReplyHub } from './replies/reply-hub.js';
export { ANSWERED_REPLY_MEMORY } from './replies/answered-replies.js';
export { FrontedReplies, signerCheck, speaksAsSigner } from './replies/reply-signers.js';
export type { ReplySignerPolicy, SignerCheck } from './replies/reply-signers.js';
export type { PendingReply, ReplyWaitOptions } from './replies/reply-hub.js';
export { answersRequest } from './replies/reply-rules.js';
export type { ReplyCriteria } from './replies/reply-rules.js';
export type { Verifier, VerifiedPrincipal } from './replies/verifier.js';
export type { Clock } from './clock/clock.js';
export { SystemClock } from './clock/system-clock.js';
export { TestClock } from './clock/test-clock.js';
export { checkStreamLayout, consumedPartitions, consumedTopic, layoutTopics, locateRecords, replyTopicFor, routeRecord, SHARED_LAYOUT } from './layouts/stream-layout.js';
export type { LocateQuery, RecordRoute, StreamLayout } from './layouts/stream-layout.js';
export { locatePartitions } from './layouts/locate-partitions.js';
export { describePlaces } from './layouts/describe-places.js';
export {
  declareLayout,
  decodeLayoutDeclaration,
  encodeLayoutDeclaration,
  LAYOUT_DECLARATION_TOPIC,
  MAX_LAYOUT_DECLARATION_BYTES,
  readLayoutDeclaration,
  type DeclareLayoutOptions,
  type LayoutDeclaration,
} from './layouts/layout-declaration.js';
export { agentPlaceMismatch, checkLayoutDeclaration, layoutDeclarationMismatch, type LayoutCheckOptions } from './layouts/layout-declaration-check.js';
export type { PlaceState } from './layouts/describe-places.js';
export { keyedPlacementMismatch, recordPlacementMismatch } from './layouts/record-placement.js';
export type { FoundRecord, KeyedRecord } from './layouts/record-placement.js';
export { parseStreamScopedName, STREAM_SCOPE_PREFIX, streamScopedName } from './layouts/stream-scoped-name.js';
export type { StreamScopedName } from './layouts/stream-scoped-name.js';
export { PLAIN_LOG_CAPABILITIES } from './capabilities/capabilities.js';
export type { Capabilities, QueryConsistency } from './capabilities/capabilities.js';
export { authorizeEdge, edgeDenialChallenge, edgeDenialCode, edgeDenialStatus } from './edge/edge-auth.js';
export type { EdgeClaims, EdgeDenial, EdgeDenialCode } from './edge/edge-auth.js';
export type { ActionGovernor, GovernedAction, GovernorVerdict } from './governor/action-governor.js';

// --- runtime (agents-runtime) ---
export { Agent, AgentBuilder } from './agent/agent-builder.js';
export type { AgentConfig, AgentHandler, HeartbeatSettings } from './agent/agent-config.js';
export { DEFAULT_REPLAY_WINDOW, type ReplayGuardOptions } from './agent/replay-guard.js';
export { AgentCtx } from './agent/agent-ctx.js';
export type { ApprovalGateOptions } from './agent/agent-ctx.js';
export { AgentHandle } from './agent/agent-handle.js';
export type { AgentStats } from './agent/agent-handle.js';
export type { ConcurrencyPolicy } from './agent/concurrency.js';
export { DEFAULT_PIPELINE_LIMITS, type PipelineLimits } from './agent/answer-pipeline.js';
export { HandlerError, isRetryable } from './agent/handler-errors.js';
export { logPositionOf, nameId } from './agent/log-position.js';
export type { RecordAddress } from './agent/log-position.js';
export type { RecordOutcome } from './agent/record-pipeline.js';
export { backoffDelayMs, checkRetryPolicy, DEFAULT_RETRY_POLICY } from './agent/retry-policy.js';
export type { RetryPolicy } from './agent/retry-policy.js';
export { DEFAULT_RESUME_LOOK_BACK, MAX_RESUME_LOOK_BACK, RESUME_MARKER_TOPIC, type CrashLoopGuardOptions } from './agent/resume-markers.js';
export { AGENT_CONTROL_TOPIC, classifyEnvelope, classifyGeneric, DispatchClass, isControlOperation } from './dispatch/classify.js';
export type { ClassifiedEnvelope, GenericDispatchFields, HandledOperations } from './dispatch/classify.js';
export { processedKey } from './dedup/processed-key-store.js';
export type { ProcessedKeyStore } from './dedup/processed-key-store.js';
export { DEFAULT_DEDUP_WINDOW, SlidingWindowKeyStore } from './dedup/sliding-window.js';
export { RecencyMap } from './dedup/recency-map.js';
export { LogProcessedKeyStore, PROCESSED_KEY_NAMESPACE_HEADER, PROCESSED_KEYS_TOPIC } from './dedup/log-processed-key-store.js';
export type { LogProcessedKeyStoreOptions } from './dedup/log-processed-key-store.js';
export { PROCESSED_KEY_OPERATION } from './dedup/signed-processed-key.js';
export type { ProcessedKeySigning } from './dedup/signed-processed-key.js';
export { DEAD_LETTER_TOPIC, deadLetterRecord, DeadLetterWriter } from './dead-letter/dead-letter.js';
export type { DeadLetterInput, DeadLetterRecord, DeadLetterSink } from './dead-letter/dead-letter.js';
export {
  defaultSessionStart,
  SDK_LANGUAGE,
  SDK_VERSION,
  SESSION_OPERATION,
  sessionAcknowledgmentEnvelope,
  sessionEndEnvelope,
  sessionStartEnvelope,
  sessionTransitionEnvelope,
  SESSIONS_TOPIC,
} from './lifecycle/session-records.js';
export { LIFECYCLE_CONTENT_TYPE, SessionLifecycle } from './lifecycle/session-lifecycle.js';
export type { LanePublisher } from './lifecycle/session-lifecycle.js';
export {
  DEFAULT_HEARTBEAT_MS,
  DEFAULT_SESSION_IDLE_TIMEOUT_MS,
  HeartbeatRegistry,
  MIN_HEARTBEAT_MS,
} from './lifecycle/heartbeats.js';
export type { HeartbeatOptions, HeartbeatPublisher, SessionLease } from './lifecycle/heartbeats.js';
export { CONTROL_HISTORY_LIMIT } from './control/control-follower.js';
export { PauseController } from './control/pause-controller.js';
export type { Admission, PauseControllerOptions, PendingControl } from './control/pause-controller.js';
export type { ControlRequest, HeldRecord } from './control/session-control-state.js';

// --- registry facts ---
export { QuarantineOperation, quarantine, readQuarantine, unquarantine } from './registry/quarantine.js';
export type { QuarantineFactOptions, QuarantineView, ReadQuarantineOptions } from './registry/quarantine.js';

// --- telemetry hook (implemented by @agdx/otel) ---
export type { AgdxTelemetry, ChunkStreamEvent, ChunkStreamSpan, DeadLetterEvent, HandleEvent, HandleSpan, SendEvent, SendSpan, ServeEvent, ServeFailure, ServeSpan, ServeStreamEnd, ServeStreamSummary, SessionEvent, SessionSpan, WaitEvent, WaitSpan } from './telemetry/agdx-telemetry.js';
export { MAX_STREAM_EVENT_TYPES, traceServeStream, type ServeStreamTrace } from './telemetry/traced-serve-stream.js';
export { tracedSession } from './telemetry/traced-session.js';
export { tracedServe, type ServeOutcome } from './telemetry/traced-serve.js';
export { MAX_TELEMETRY_HEADERS, withTelemetryHeaders } from './telemetry/telemetry-headers.js';
