/**
 * The AGDX agent SDK: root client, send builders, chunk writers, agent runtime, replies, human input, lifecycle, heartbeats and pause/resume.
 * @module
 */

// --- client (agents-client) ---
export {
  CancelledError,
  HandlerConfigError,
  NoStreamError,
  PolicyBlockedError,
  PublishFailedError,
  RejectedError,
  TimeoutError,
} from './errors.js';
export type { AgentsErrorKind } from './errors.js';
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
export type { PendingReply, ReplyWaitOptions } from './replies/reply-hub.js';
export { answersRequest } from './replies/reply-rules.js';
export type { ReplyCriteria } from './replies/reply-rules.js';
export type { Verifier, VerifiedPrincipal } from './replies/verifier.js';
export type { Clock } from './clock/clock.js';
export { SystemClock } from './clock/system-clock.js';
export { TestClock } from './clock/test-clock.js';
export { checkStreamLayout, replyTopicFor, routeRecord, SHARED_LAYOUT } from './layouts/stream-layout.js';
export type { RecordRoute, StreamLayout } from './layouts/stream-layout.js';
export { parseStreamScopedName, STREAM_SCOPE_PREFIX, streamScopedName } from './layouts/stream-scoped-name.js';
export type { StreamScopedName } from './layouts/stream-scoped-name.js';
export { PLAIN_LOG_CAPABILITIES } from './capabilities/capabilities.js';
export type { Capabilities, QueryConsistency } from './capabilities/capabilities.js';
export { authorizeEdge, edgeDenialChallenge, edgeDenialCode, edgeDenialStatus } from './edge/edge-auth.js';
export type { EdgeClaims, EdgeDenial, EdgeDenialCode } from './edge/edge-auth.js';
export type { ActionGovernor, GovernedAction, GovernorVerdict } from './governor/action-governor.js';

// --- runtime (agents-runtime) ---
