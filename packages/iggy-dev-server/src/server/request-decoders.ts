/**
 * The request decoders the server uses, with Iggy's rule for bytes after the request body in
 * one place. Both generations decode a request from its prefix and ignore what follows (Iggy
 * 0.8's dispatcher logs "trailing bytes" and goes on; 0.9 decodes with `decode_from`), so an
 * SDK may append fields this server does not know, as the official Node SDK does with a
 * partitions count after DeleteTopic. SendMessages is the exception: its batch is checked to
 * the last byte, so a send with extra bytes is refused and never half-stored. The VSR Register
 * body stays exact too (see {@link decodeRegisterRequest}).
 *
 * Every request decoder the command layer calls comes from this file; a new one belongs here,
 * wrapped or listed as strict. The user and personal-access-token codecs (used by `auth/`)
 * read a prefix by construction and need no wrapper.
 */

import * as codecs from '@agdx/iggy-protocol';
import { ignoringTrailingBytes } from '@agdx/iggy-protocol';

/** Requests that must end exactly where their structure does, as on the real server. */
export const STRICT_REQUESTS: ReadonlySet<number> = new Set([codecs.CommandCode.SendMessages, codecs.CommandCode.LoginRegister, codecs.CommandCode.LoginRegisterWithPersonalAccessToken]);

/** SendMessages: strict (see {@link STRICT_REQUESTS}). */
export const decodeSendMessagesRequest: typeof codecs.decodeSendMessagesRequest = codecs.decodeSendMessagesRequest;

/** Tolerant: `[stream]` (GetStream, DeleteStream, PurgeStream, GetTopics). */
export const decodeStreamTarget: typeof codecs.decodeStreamTarget = ignoringTrailingBytes(codecs.decodeStreamTarget);
/** Tolerant: `[stream][topic]` (GetTopic, DeleteTopic, PurgeTopic, GetConsumerGroups). */
export const decodeTopicTarget: typeof codecs.decodeTopicTarget = ignoringTrailingBytes(codecs.decodeTopicTarget);
/** Tolerant: `[stream][topic][group]` (the group commands). */
export const decodeGroupTarget: typeof codecs.decodeGroupTarget = ignoringTrailingBytes(codecs.decodeGroupTarget);
/** Tolerant: CreateStream (VSR options run to the end, so only classic can carry extra bytes). */
export const decodeCreateStreamRequest: typeof codecs.decodeCreateStreamRequest = ignoringTrailingBytes(codecs.decodeCreateStreamRequest);
/** Tolerant: UpdateStream. */
export const decodeUpdateStreamRequest: typeof codecs.decodeUpdateStreamRequest = ignoringTrailingBytes(codecs.decodeUpdateStreamRequest);
/** Tolerant: CreateTopic. */
export const decodeCreateTopicRequest: typeof codecs.decodeCreateTopicRequest = ignoringTrailingBytes(codecs.decodeCreateTopicRequest);
/** Tolerant: UpdateTopic. */
export const decodeUpdateTopicRequest: typeof codecs.decodeUpdateTopicRequest = ignoringTrailingBytes(codecs.decodeUpdateTopicRequest);
/** Tolerant: CreatePartitions and DeletePartitions. */
export const decodePartitionsRequest: typeof codecs.decodePartitionsRequest = ignoringTrailingBytes(codecs.decodePartitionsRequest);
/** Tolerant: DeleteSegments. */
export const decodeDeleteSegmentsRequest: typeof codecs.decodeDeleteSegmentsRequest = ignoringTrailingBytes(codecs.decodeDeleteSegmentsRequest);
/** Tolerant: FlushUnsavedBuffer. */
export const decodeFlushUnsavedBufferRequest: typeof codecs.decodeFlushUnsavedBufferRequest = ignoringTrailingBytes(codecs.decodeFlushUnsavedBufferRequest);
/** Tolerant: PollMessages. */
export const decodePollMessagesRequest: typeof codecs.decodePollMessagesRequest = ignoringTrailingBytes(codecs.decodePollMessagesRequest);
/** Tolerant: GetConsumerOffset. */
export const decodeGetConsumerOffsetRequest: typeof codecs.decodeGetConsumerOffsetRequest = ignoringTrailingBytes(codecs.decodeGetConsumerOffsetRequest);
/** Tolerant: StoreConsumerOffset. */
export const decodeStoreConsumerOffsetRequest: typeof codecs.decodeStoreConsumerOffsetRequest = ignoringTrailingBytes(codecs.decodeStoreConsumerOffsetRequest);
/** Tolerant: DeleteConsumerOffset. */
export const decodeDeleteConsumerOffsetRequest: typeof codecs.decodeDeleteConsumerOffsetRequest = ignoringTrailingBytes(codecs.decodeDeleteConsumerOffsetRequest);
/** Tolerant: CreateConsumerGroup. */
export const decodeCreateConsumerGroupRequest: typeof codecs.decodeCreateConsumerGroupRequest = ignoringTrailingBytes(codecs.decodeCreateConsumerGroupRequest);
/** Tolerant: GetClient. */
export const decodeGetClientRequest: typeof codecs.decodeGetClientRequest = ignoringTrailingBytes(codecs.decodeGetClientRequest);
/** Tolerant: DescribeOptions. */
export const decodeDescribeOptionsRequest: typeof codecs.decodeDescribeOptionsRequest = ignoringTrailingBytes(codecs.decodeDescribeOptionsRequest);
/** Tolerant: classic LoginUser. */
export const decodeLoginUserRequest: typeof codecs.decodeLoginUserRequest = ignoringTrailingBytes(codecs.decodeLoginUserRequest);
/** Tolerant: classic LoginWithPersonalAccessToken. */
export const decodeLoginWithTokenRequest: typeof codecs.decodeLoginWithTokenRequest = ignoringTrailingBytes(codecs.decodeLoginWithTokenRequest);
/**
 * Strict: the VSR Register body. Iggy tries the password shape and then the token shape, each
 * from a prefix; with two shapes a prefix can fit the wrong one, so this server keeps the
 * exact-length parse (every official SDK sends exact bodies) and evicts the rest with reason 15.
 */
export const decodeRegisterRequest: typeof codecs.decodeRegisterRequest = codecs.decodeRegisterRequest;
