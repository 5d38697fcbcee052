/**
 * The AGDX LogTransport interface, the embedded in-memory log, and the transport conformance suite.
 * @module
 */
export type { LogClock } from './clock.js';
export { ManualLogClock, systemLogClock } from './clock.js';
export type { TransportErrorKind, TransportErrorOptions } from './errors.js';
export {
  CancelledError,
  ClosedError,
  ConflictError,
  InvalidArgumentError,
  NotFoundError,
  TimeoutError,
  TransportError,
  TransportFailureError,
} from './errors.js';
export type { FollowGroupOptions, FollowRequest } from './follow.js';
export { follow, followGroup } from './follow.js';
export type { HeaderJsValue, HeaderKind, HeaderValue, RecordHeaders } from './headers.js';
export {
  checkHeaderValue,
  copyRecordHeaders,
  HEADER_KIND_CODES,
  HEADER_KINDS,
  headerValue,
  isHeaderKind,
  MAX_HEADER_BLOCK_BYTES,
  MAX_HEADER_PART_BYTES,
  readHeaderValue,
} from './headers.js';
export { watchAbort } from './abort-watch.js';
export { ByteSlab } from './byte-slab.js';
export { isSealedHeaders, sealHeaders } from './sealed-headers.js';
export { keyBytes as routingKeyBytes, MAX_KEY_BYTES, partitionForKey, xxh32 } from './key-routing.js';
export { batchRecordBytes, checkBatchBytes, MAX_BATCH_BYTES, RECORD_FRAMING_BYTES } from './batch-limit.js';
export type {
  AppendRecord,
  AppendRequest,
  AppendResult,
  CallOptions,
  ConsumerRef,
  GroupMember,
  GroupPollOptions,
  GroupPollResult,
  JoinGroupRequest,
  LogRecord,
  LogTransport,
  OffsetRequest,
  PartitionAddress,
  PartitionDescription,
  ReadFromTimestampRequest,
  ReadRequest,
  Routing,
  StoreOffsetRequest,
  TopicAddress,
  TopicDescription,
  TopicSettings,
  WaitRequest,
} from './log-transport.js';
export { partitionShareBytes, RETAINED_RECORD_OVERHEAD_BYTES, retainedRecordBytes } from './retention.js';
export type { MemoryLogOptions } from './memory-log.js';
export { MemoryLog } from './memory-log.js';
// Argument checks every transport applies the same way, so a mistake gives the same typed error
// whichever log is underneath.
export {
  checkExpiry,
  checkMaxCount,
  checkMaxTopicBytes,
  checkName,
  checkOffset,
  checkPartitionCount,
  checkPartitionId,
  checkSignal,
  checkTimeout,
  DEFAULT_READ_COUNT,
  MAX_NAME_BYTES,
  MAX_PARTITIONS,
  MAX_PAYLOAD_BYTES,
  MAX_READ_COUNT,
  MAX_WAIT_MS,
} from './validation.js';
