/** Well-known AGDX header names. */
export const HeaderName = {
  /** Envelope wire version (uint32). Its presence marks an envelope record. */
  Version: 'agdx.av',
  /** Content type code (uint8). */
  ContentType: 'agdx.ct',
  /** Parent conversation (Crockford text). */
  ParentConversation: 'agdx.parent_conv',
  /** Root conversation (Crockford text). */
  RootConversation: 'agdx.root_conv',
  /** Addressee agent id, or `*` for broadcast. */
  To: 'agdx.to',
  /** Author agent id. */
  AgentId: 'gen_ai.agent.id',
  /** Conversation (Crockford text; older writers use uint128 little-endian). */
  ConversationId: 'gen_ai.conversation.id',
  /** Causal parent message id `<partition>:<offset>`. */
  Cause: 'agdx.cause',
  /** Generic correlation (text). */
  Correlation: 'agdx.corr',
  /** Cost in USD (float64). */
  Cost: 'agdx.cost',
  /** Deadline, epoch microseconds (uint64). */
  Deadline: 'agdx.deadline',
  /** Fencing token (uint64). */
  Fence: 'agdx.fence',
  /** Idempotency key (text). */
  IdempotencyKey: 'agdx.idem',
  /** Input tokens (uint64). */
  InputTokens: 'gen_ai.usage.input_tokens',
  /** Output tokens (uint64). */
  OutputTokens: 'gen_ai.usage.output_tokens',
} as const;

/** A well-known AGDX header name. */
export type HeaderName = (typeof HeaderName)[keyof typeof HeaderName];

/** The addressee text that means "every participant" on a shared session topic. */
export const BROADCAST_ADDRESSEE = '*';

/** Shared session topics on which an untargeted record is addressed to `*`. */
export const SHARED_SESSION_TOPICS: readonly string[] = ['agent.sessions', 'agent.control'];

/** The envelope wire version carried in `agdx.av`. */
export const AGENT_OP_VERSION = 1;
