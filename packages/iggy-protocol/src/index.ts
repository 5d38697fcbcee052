/**
 * The Apache Iggy binary protocol (VSR and classic) as pure codecs, in three layers:
 * framing (VSR headers, classic frames, splitters, generation detection), session (VSR Register
 * and request numbering, classic login, as pure state machines) and command codecs (both
 * directions for every command a log transport needs). No sockets, no Node built-ins.
 * @module
 */

// Errors
export type { IggyErrorKind, IggyProtocolErrorOptions } from './errors.js';
export { IggyProtocolError, IggyCodecError, IggyInvalidError, IggyIntegrityError, IggyUnsupportedError, IggyError, IggyEvictionError, UNMATCHED_REPLY } from './errors.js';
export { IGGY_ERROR_CODES, iggyErrorName } from './error-codes.js';
export type { IggyProtocol } from './protocol.js';

// Checksums
export type { ChecksumOptions, Xxh3Stream } from './checksums.js';
export { initChecksums, checksumsReady, wasmBatchHashingReady, xxh3_64, xxh3Stream, xxh32, partitionForKey } from './checksums.js';

// Layer 1: framing
export type { VsrRequestHeader, VsrRequestHeaderInit, VsrRequestFrame, VsrReplyHeader, VsrReplyHeaderInit, VsrEvictionHeader, VsrServerFrame } from './framing/vsr-header.js';
export {
  VSR_HEADER_SIZE,
  VSR_DEFAULT_MAX_FRAME_SIZE,
  VsrCommand,
  EvictionReason,
  writeVsrRequestHeader,
  encodeVsrRequestFrame,
  encodeVsrRequestFrameInPlace,
  decodeVsrRequestHeader,
  decodeVsrRequestFrame,
  vsrRequestHeaderProblem,
  vsrRequestChecksum,
  vsrRequestChecksumMatches,
  encodeVsrReplyFrame,
  decodeVsrReplyHeader,
  encodeVsrEvictionFrame,
  decodeVsrEvictionHeader,
  decodeVsrServerFrame,
  evictionReasonName,
  evictionErrorCode,
} from './framing/vsr-header.js';
export {
  Operation,
  isDeclaredOperation,
  isMetadataOperation,
  isPartitionOperation,
  isResultFramedOperation,
  operationForCode,
  codeForOperation,
  commandCodeOfRequest,
} from './framing/operations.js';
export type { ResultEntry, ResultSection } from './framing/result-section.js';
export { decodeResultSection, encodeResultSection, evictionError, unwrapVsrReply } from './framing/result-section.js';
export type { ClassicRequest, ClassicResponse } from './framing/classic-frame.js';
export {
  CLASSIC_MAX_CONTROL_PAYLOAD,
  CLASSIC_DEFAULT_MAX_FRAME_SIZE,
  CLASSIC_REQUEST_HEADER_SIZE,
  encodeClassicRequest,
  encodeClassicRequestInPlace,
  decodeClassicRequest,
  encodeClassicResponse,
  decodeClassicResponse,
  unwrapClassicResponse,
} from './framing/classic-frame.js';
export type { FrameSplitter, FrameSplitterOptions } from './framing/frame-splitter.js';
export { VsrFrameSplitter, ClassicRequestSplitter, ClassicResponseSplitter } from './framing/frame-splitter.js';
export type { ProtocolDetection } from './framing/detect-protocol.js';
export { detectProtocolGeneration } from './framing/detect-protocol.js';

// Layer 2: session
export type { VsrSessionState, VsrClientSessionOptions, VsrPendingRequest, VsrReplyOutcome } from './session/vsr-client-session.js';
export { VsrClientSession } from './session/vsr-client-session.js';
export type { ClassicSessionState, ClassicPendingRequest, ClassicResponseOutcome, ClassicClientSessionOptions } from './session/classic-client-session.js';
export { ClassicClientSession } from './session/classic-client-session.js';
export type { VsrServerAdmission, VsrServerSessionOptions } from './session/vsr-server-session.js';
export { VsrServerSession } from './session/vsr-server-session.js';
export type { ClassicServerAdmission } from './session/classic-server-session.js';
export { ClassicServerSession } from './session/classic-server-session.js';

// Layer 3: command codecs
export { CommandCode, isKnownCommandCode } from './commands/command-codes.js';
export type { Identifier, Consumer, Partitioning, PollingStrategy } from './commands/primitives.js';
export { partitioning, PollingKind } from './commands/primitives.js';
export type { HeaderKind, HeaderValue, UserHeaderEntry } from './commands/user-headers.js';
export {
  HEADER_KIND_CODES,
  MAX_USER_HEADERS_SIZE,
  headerKindFromCode,
  headerValue,
  encodeUserHeaders,
  decodeUserHeaders,
  decodeUserHeaderEntries,
} from './commands/user-headers.js';
export type { OptionsBlock } from './commands/options.js';
export { MAX_OPTIONS_ENTRIES, encodeOptions, decodeOptions } from './commands/options.js';
export type { ClientVersionInfo } from './commands/version.js';
export { IGGY_PROTOCOL_VERSION, packProtocolVersion, unpackProtocolVersion, isProtocolVersionAccepted } from './commands/version.js';
export type { PasswordCredentials, TokenCredentials, Credentials, ClassicLoginRequest, RegisterRequest, RegisterReply } from './commands/login.js';
export {
  encodeLoginUserRequest,
  decodeLoginUserRequest,
  encodeLoginWithTokenRequest,
  decodeLoginWithTokenRequest,
  encodeIdentityResponse,
  decodeIdentityResponse,
  encodeRegisterRequest,
  decodeRegisterRequest,
  encodeRegisterReply,
  decodeRegisterReply,
} from './commands/login.js';
export type { ClusterMetadata, ClusterNode, ClusterNodeEndpoints, ClusterNodeRoleName, ClusterNodeStatusName } from './commands/cluster.js';
export { ClusterNodeRole, ClusterNodeStatus, encodeGetClusterMetadataRequest, encodeClusterMetadata, decodeClusterMetadata } from './commands/cluster.js';
export type { ClientDetails, ClientGroupMembership, CacheMetric, ServerStats } from './commands/system.js';
export { encodeClientDetails, decodeClientDetails, encodeServerStats, decodeServerStats } from './commands/system.js';
export type { ClientInfo } from './commands/clients.js';
export { NO_USER_ID, encodeGetClientRequest, decodeGetClientRequest, encodeClientList, decodeClientList } from './commands/clients.js';
export type { OptionDescriptor } from './commands/describe-options.js';
export { OptionsScope, encodeDescribeOptionsRequest, decodeDescribeOptionsRequest, encodeOptionDescriptors, decodeOptionDescriptors } from './commands/describe-options.js';
export type { PartitionTarget, DeleteSegmentsRequest, FlushUnsavedBufferRequest } from './commands/partition-maintenance.js';
export { encodeDeleteSegmentsRequest, decodeDeleteSegmentsRequest, encodeFlushUnsavedBufferRequest, decodeFlushUnsavedBufferRequest } from './commands/partition-maintenance.js';
export { decodeIgnoringTrailingBytes, ignoringTrailingBytes } from './commands/trailing-bytes.js';
export type { StreamTarget, TopicTarget, GroupTarget } from './commands/targets.js';
export { encodeStreamTarget, decodeStreamTarget, encodeTopicTarget, decodeTopicTarget, encodeGroupTarget, decodeGroupTarget } from './commands/targets.js';
export type { CreateStreamRequest, UpdateStreamRequest, StreamInfo, StreamDetails } from './commands/streams.js';
export {
  encodeCreateStreamRequest,
  decodeCreateStreamRequest,
  encodeUpdateStreamRequest,
  decodeUpdateStreamRequest,
  encodeStreamInfo,
  decodeStreamInfo,
  encodeStreamDetails,
  decodeStreamDetails,
  encodeStreamList,
  decodeStreamList,
} from './commands/streams.js';
export type { TopicSettings, CreateTopicRequest, UpdateTopicRequest, PartitionInfo, TopicInfo, TopicDetails, PartitionsRequest } from './commands/topics.js';
export {
  CompressionAlgorithm,
  EXPIRY_NEVER,
  SIZE_UNLIMITED,
  TopicOptionKey,
  encodeCreateTopicRequest,
  decodeCreateTopicRequest,
  encodeUpdateTopicRequest,
  decodeUpdateTopicRequest,
  encodeTopicDetails,
  decodeTopicDetails,
  encodeTopicList,
  decodeTopicList,
  encodePartitionsRequest,
  decodePartitionsRequest,
} from './commands/topics.js';
export type { OutgoingMessage, PolledMessage, EncodeMessagesOptions } from './commands/messages.js';
export { MAX_PAYLOAD_SIZE, randomMessageId } from './commands/messages.js';
export type { BatchHeader, BatchFrame, MessageBatch, DecodeBatchOptions, BatchStamp } from './commands/message-batch.js';
export {
  BATCH_HEADER_SIZE,
  FRAME_HEADER_SIZE,
  computeBatchChecksum,
  encodeMessageBatch,
  decodeMessageBatch,
  stampMessageBatch,
  sliceMessageBatch,
  batchToPolledMessages,
} from './commands/message-batch.js';
export type { ClassicMessage } from './commands/classic-messages.js';
export { CLASSIC_MESSAGE_HEADER_SIZE } from './commands/classic-messages.js';
export type { SendMessagesRequest, DecodedSendMessages, DecodeSendMessagesOptions, SendConfirmation } from './commands/send-messages.js';
export { encodeSendMessagesRequest, decodeSendMessagesRequest, encodeSendMessagesResponse, decodeSendMessagesResponse } from './commands/send-messages.js';
export type { PollMessagesRequest, PolledMessages, DecodePollOptions } from './commands/poll-messages.js';
export {
  RESYNC_REQUIRED_PARTITION,
  encodePollMessagesRequest,
  decodePollMessagesRequest,
  decodePollMessagesResponse,
  encodePollResponseVsr,
  encodePollResponseClassic,
  encodeEmptyPollResponse,
} from './commands/poll-messages.js';
export type { ConsumerOffsetTarget, OffsetAck, StoreConsumerOffsetRequest, DeleteConsumerOffsetRequest, ConsumerOffsetInfo } from './commands/consumer-offsets.js';
export {
  encodeStoreConsumerOffsetRequest,
  decodeStoreConsumerOffsetRequest,
  encodeGetConsumerOffsetRequest,
  decodeGetConsumerOffsetRequest,
  encodeDeleteConsumerOffsetRequest,
  decodeDeleteConsumerOffsetRequest,
  encodeConsumerOffsetInfo,
  decodeConsumerOffsetInfo,
} from './commands/consumer-offsets.js';
export type {
  CreateConsumerGroupRequest,
  ConsumerGroupInfo,
  ConsumerGroupMember,
  ConsumerGroupDetails,
  ConsumerGroupAssignment,
} from './commands/consumer-groups.js';
export {
  encodeCreateConsumerGroupRequest,
  decodeCreateConsumerGroupRequest,
  encodeConsumerGroupInfo,
  decodeConsumerGroupInfo,
  encodeConsumerGroupDetails,
  decodeConsumerGroupDetails,
  encodeConsumerGroupList,
  decodeConsumerGroupList,
  encodeConsumerGroupAssignment,
  decodeConsumerGroupAssignment,
} from './commands/consumer-groups.js';
export type { GlobalPermissions, StreamPermissions, TopicPermissions, Permissions } from './commands/permissions.js';
export { globalPermissions } from './commands/permissions.js';
export type {
  UserStatusCode,
  UserTarget,
  CreateUserRequest,
  UpdateUserRequest,
  UpdatePermissionsRequest,
  ChangePasswordRequest,
  UserInfo,
  UserDetails,
} from './commands/users.js';
export {
  UserStatus,
  encodeUserTarget,
  decodeUserTarget,
  encodeCreateUserRequest,
  decodeCreateUserRequest,
  encodeUpdateUserRequest,
  decodeUpdateUserRequest,
  encodeUpdatePermissionsRequest,
  decodeUpdatePermissionsRequest,
  encodeChangePasswordRequest,
  decodeChangePasswordRequest,
  encodeUserDetails,
  decodeUserDetails,
  encodeUserList,
  decodeUserList,
} from './commands/users.js';
export type { CreateTokenRequest, DeleteTokenRequest, TokenInfo } from './commands/personal-access-tokens.js';
export {
  TOKEN_EXPIRY_SERVER_DEFAULT,
  TOKEN_EXPIRY_NEVER,
  encodeCreateTokenRequest,
  decodeCreateTokenRequest,
  encodeDeleteTokenRequest,
  decodeDeleteTokenRequest,
  encodeRawTokenReply,
  decodeRawTokenReply,
  encodeTokenList,
  decodeTokenList,
} from './commands/personal-access-tokens.js';
