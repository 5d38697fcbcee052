/**
 * The AI SDK on AGDX: a model call made with `streamText` recorded as chunk streams, tool records
 * and a response with usage; AGDX agents as AI SDK tools; model calls as session turns.
 * @module
 */
export { recordModelStream } from './record-model-stream.js';
export type { ModelStreamOutcome, ModelStreamPart, ModelStreamSource, RecordModelStreamOptions } from './record-model-stream.js';
export type { ModelStreamDestination, ModelStreamTarget } from './destination.js';
export { seedFinishReason } from './finish-reason.js';
export { costMicrosOf } from './model-price.js';
export type { ModelPrice } from './model-price.js';
export { tokenUsageOf } from './token-usage.js';
export type { AiSdkUsage } from './token-usage.js';
export { agentTool, MAX_TOOL_ERROR_MESSAGE_BYTES } from './agent-tool.js';
export type { AgentToolOptions } from './agent-tool.js';
export { appendModelMessages, modelMessagesFromTurns, sessionModelMessages, turnKindOf } from './session-turns.js';
export { decodeTurnPayload, encodeTurnPayload, TURN_FORMAT } from './turn-payload.js';
export type { TurnPayload } from './turn-payload.js';
