import type { AgentMessage } from '@agdx/agents';
import type { LogRecord } from '@agdx/transport';
import { ConversationId, readConversationHeader } from '@agdx/wire';

/** One record of a scanned topic: decoded, or undecodable with the conversation its header names. */
export interface ScannedRecord {
  readonly topic: string;
  readonly topicIndex: number;
  readonly record: LogRecord;
  readonly message: AgentMessage | undefined;
  /** The conversation: from the decoded message, else from a readable header. */
  readonly conversation: ConversationId | undefined;
}

/** What a scan covered on each partition. */
export interface PartitionFrontier {
  readonly topic: string;
  readonly partition: number;
  /** First offset the log still held (the retained start), or the tail when empty. */
  readonly retainedFrom: bigint;
  /** The next offset after the scan (the fold frontier). */
  readonly folded: bigint;
  /** The tail when the scan began. */
  readonly head: bigint;
}

/** The conversation a record header names, when it is readable. */
export function headerConversation(record: LogRecord): ConversationId | undefined {
  const header = record.headers.get('gen_ai.conversation.id');
  if (header === undefined) return undefined;
  try {
    return readConversationHeader(header, 'gen_ai.conversation.id');
  } catch {
    return undefined;
  }
}
