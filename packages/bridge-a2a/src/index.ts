/**
 * Expose AGDX agents to A2A v1.0 clients: JSON-RPC handler, web-standard HTTP handler, signed Agent Cards.
 * @module
 */
import { BRIDGE_APP_ERROR_CODE } from '@agdx/bridge-kit';
export { A2aBridge, A2aMethod, CANCEL_MESSAGE, TASK_SCAN_LIMITS } from './a2a-bridge.js';
export { OWN_CANCEL_MEMORY } from './own-cancels.js';
export { KEPT_TASK_READS } from './task-reads.js';
export { PENDING_REPLIES_PER_TASK, TASK_INDEX_LIMIT } from './task-index.js';
export { COUNTED_REPLY_IDS } from './counted-replies.js';
export { EVICTED_FILTER_BITS } from './evicted-ids.js';
export type { SubmitOptions, WatchedTask, WatchOptions } from './a2a-bridge.js';
export {
  A2A_CARD_DESCRIPTION,
  A2A_JSONRPC_BINDING,
  A2A_PROTOCOL_VERSION,
  AGENT_CARD_PATH,
  buildAgentCard,
  contentRefMode,
  skillFromCapability,
} from './card.js';
export type { A2aAgentCard, A2aAgentInterface, A2aAgentSkill } from './card.js';
export { a2aTaskState, isTerminalA2aState, pendingTask, taskFromEnvelope, taskStateToJson, taskToJson } from './task.js';
export type { A2aArtifact, A2aTask, A2aTaskJson, A2aTaskState, A2aTaskStateJson } from './task.js';
export { PublicErrorMessage, publicErrorMessage } from '@agdx/bridge-kit';
/** The JSON-RPC error code of every failed bridge call (application error, -32000). */
export const A2A_APP_ERROR_CODE: -32000 = BRIDGE_APP_ERROR_CODE;
export type { JsonRpcErrorObject, JsonRpcId, JsonRpcResponse } from '@agdx/bridge-kit';
export { createA2aHttpHandler, DEFAULT_SEND_MESSAGE_WAIT_MS, DEFAULT_STREAM_TIMEOUT_MS } from './http-handler.js';
export type { A2aCardSource, A2aHttpHandlerOptions } from './http-handler.js';
export { answersImmediately, readSendMessageParams, readTaskIdParams } from './params.js';
export type { SendConfiguration, SendMessageParams } from './params.js';
export { DEFAULT_MAX_BODY_BYTES } from '@agdx/bridge-kit';
export type { EdgeAuthorization } from '@agdx/bridge-kit';
export { verifyCard, verifyCardSync, signedCard, canonicalCardJson, cardSigningInput, cardProtectedHeader, CARD_JWS_TYPE, CARD_PROTECTED_HEADER } from '@agdx/sign';
export { a2aSignableCard } from './signed-card.js';
export type { CardSignature, SignedCard } from '@agdx/sign';
