/**
 * AGDX sessions: typed turns, model-ready context, memory, checkpoints, replay, state and lifecycle reads, with the log as the only store.
 * @module
 */
export { sessions, Sessions } from './sessions.js';
export type { SessionsBootstrapResult, SessionsOptions } from './sessions.js';
export { Session } from './session.js';
export type { SessionScope, TurnFold } from './session.js';
export { SessionConfig } from './session-config.js';
export {
  DEFAULT_SESSION_CONTEXT_TOKENS,
  DEFAULT_SESSION_CONTEXT_TURNS,
  DEFAULT_SESSION_MEMORY_NAMESPACE,
  DEFAULT_SESSION_TOPICS,
  isSessionTurnKind,
  SESSION_TURN_KINDS,
  sessionTurnKind,
  SessionTurnKind,
  sessionTurnTopic,
} from './turns/turn-kind.js';
export { sessionTurnText } from './turns/session-turn.js';
export type { ContextMessage, SessionTurn } from './turns/session-turn.js';
export { atCheckpointBounds, CONTEXT_READ_WINDOW, readConversation, sinceCheckpointBounds, windowedBounds } from './turns/read-turns.js';
export { MAX_CACHED_TURN_BYTES, MAX_CACHED_TURN_WINDOWS, MAX_CACHED_TURNS } from './turns/turn-window.js';
export type { TurnWindowUsage } from './turns/turn-window.js';
export type { PartitionBounds } from './turns/read-turns.js';
export { Chain, defaultTokenEstimator, LastN, RoleFilter, TokenBudget } from './context/context-policy.js';
export type { ContextPolicy, TokenEstimator } from './context/context-policy.js';
export { Checkpoint, contextCheckpoint } from './checkpoint/checkpoint.js';
export { FoldSnapshotRejectedError, MissingTopicError, StaleSessionError } from './errors.js';
export type { FoldSnapshotRejection } from './errors.js';
export { CONSOLIDATE_SCAN_LIMIT, SessionMemory } from './memory/session-memory.js';
export type { ConsolidateOptions, ConsolidateReport, RememberOptions, Summarizer, VectorMemory, VectorMemoryOptions } from './memory/session-memory.js';
export { DEFAULT_RECALL_LIMIT, MAX_RECALL_QUERY_LENGTH, RecallBuilder } from './memory/recall-builder.js';
export type { MemoryItem } from './memory/recall-builder.js';
export { MAX_PENDING_FEEDBACK, MEMORY_INDEX_CACHE_SIZE, MEMORY_NAMESPACE_HEADER } from './memory/memory-index.js';
export {
  FEEDBACK_DOUBLING_WEIGHT,
  FEEDBACK_WEIGHT_CAP,
  fuseReciprocalRank,
  RECALL_STRATEGIES,
  RECENCY_BOOST,
  RECENCY_HALF_LIFE_ITEMS,
  RRF_K,
  scoreBoost,
} from './memory/ranking.js';
export type { RecallStrategy } from './memory/ranking.js';
export { BM25_B, BM25_K1 } from './memory/bm25.js';
export { MAX_INDEXED_TOKENS, MAX_TOKEN_LENGTH, tokenize } from './memory/tokenize.js';
export { cosine, EMBED_BATCH, MAX_EMBEDDING_DIMENSIONS } from './memory/vector.js';
export type { Embedder } from './memory/vector.js';
export { EmbedderError, SummarizerError } from './memory/memory-errors.js';
export { decodeMemoryRecord, encodeMemoryRecord, MAX_SUMMARY_COVERS, MEMORY_KINDS } from './memory/memory-record.js';
export type { MemoryKind, MemoryRecord } from './memory/memory-record.js';
export { toContextBlock } from './memory/context-block.js';
export type { BlockItem } from './memory/context-block.js';
export { SessionLifecycleWriter, STATE_SNAPSHOT_EVERY } from './lifecycle/lifecycle-writer.js';
export type { AgentLike, BeginOptions, BeginResult } from './lifecycle/lifecycle-writer.js';
export { SessionReads } from './reads/session-reads.js';
export type {
  SessionChangeRow,
  SessionChangesView,
  SessionEventsPage,
  SessionLinksView,
  SessionListFilter,
  SessionPage,
  SessionSourcesView,
  SessionReadsOptions,
  SessionStateView,
  SourceGap,
} from './reads/session-reads.js';
export { CHANGE_WINDOW, MAX_TRACKED_TIMELINES } from './reads/lane-fold.js';
export { FOLD_HEADER, FOLD_STREAM_HEADER, SNAPSHOT_TOPIC } from './reads/fold-snapshot-store.js';
export { REDELIVERY_WINDOW } from './position-window.js';
export { layoutFingerprint } from './reads/lane-fold.js';
export type { FoldStart } from './reads/lane-fold.js';
export type { FoldSnapshotWritten } from './reads/fold-snapshot-store.js';
export { MAX_FOLD_SNAPSHOT_BYTES } from './reads/fold-image.js';
export { MAX_SNAPSHOT_CALL_IDENTITIES, MAX_SNAPSHOT_CALL_IDENTITY_BYTES, MAX_TALLY_IDENTITIES_PER_SESSION } from './reads/call-tally.js';
export { sessionStatusOf } from './reads/session-fold.js';
export type { EventPosition, SessionEvent, SessionInfo, SessionStatus, StateChange } from './reads/session-fold.js';
export { MAX_STATE_HISTORY } from './reads/session-fold.js';
export type { PartitionFrontier } from './reads/scanned-record.js';
export { envelopeDisplayType } from './reads/display-type.js';
