/**
 * AG-UI events and shared state for frontends, rendered from the AGDX log, live over Server-Sent Events.
 * @module
 */
export { AguiBridge } from './agui-bridge.js';
export type { AguiBridgeOptions, AguiCallOptions, AguiSource } from './agui-bridge.js';
export type { AguiSnapshotWritten } from './conversation-replay.js';
export { AGUI_FOLD, AGUI_SNAPSHOT_LOOKBACK, AGUI_SNAPSHOT_TOPIC, FOLD_CONVERSATION_HEADER, FOLD_TOPIC_HEADER } from './agui-snapshot.js';
export { AguiEventType } from './events.js';
export type {
  AgdxCustomEvent,
  AgdxCustomEventName,
  AgdxRecordValue,
  AgdxTurnValue,
  AguiEvent,
  ReasoningMessageContentEvent,
  ReasoningMessageEndEvent,
  ReasoningMessageStartEvent,
  RunErrorEvent,
  RunFinishedEvent,
  RunStartedEvent,
  StateDeltaEvent,
  StateSnapshotEvent,
  TextMessageContentEvent,
  TextMessageEndEvent,
  TextMessageStartEvent,
  ToolCallArgsEvent,
  ToolCallEndEvent,
  ToolCallResultEvent,
} from './events.js';
export { envelopeToAgUi, TASK_FAILED_MESSAGE, TASK_STATUS_OPERATION } from './convert-record.js';
export { AguiConverter, envelopesToAgUi } from './converter.js';
export type { ConvertedState, ConverterImage } from './converter.js';
export { createAguiHandler, DEFAULT_RUN_TIMEOUT_MS } from './live-handler.js';
export type { AguiHandlerOptions, AguiRequestHandler } from './live-handler.js';
export { RunFraming } from './run-framing.js';
export type { FramedEvents } from './run-framing.js';
export { formatEventId, formatEventIds, MAX_EVENT_ID_POSITIONS, parseEventId, parseEventIds, SSE_CONTENT_TYPE, sseComment, sseEvent } from './sse.js';
export { turnEndedBy, turnFactsOf, turnOpenedBy, turnStartOf } from './turn.js';
export type { TurnEnd, TurnFacts, TurnStart } from './turn.js';
export { userInputOf } from './run-start.js';
export type { AguiRunStart, UserInput } from './run-start.js';
export type { EventPosition } from './sse.js';
