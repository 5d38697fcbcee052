import { AgentId } from '../ids/agent-id.js';
import { ConversationId } from '../ids/machine-id.js';
import {
  readStringHeader,
  readUint128Header,
  readUint32Header,
  readUint8Header,
  stringHeader,
  uint32Header,
  uint8Header,
  invalidHeader,
  type HeaderValue,
  type RecordHeaders,
} from './header-value.js';
import { checkHeaderValue, checkSoftCap, sortHeaders } from './limits.js';
import { AGENT_OP_VERSION, BROADCAST_ADDRESSEE, HeaderName, SHARED_SESSION_TOPICS } from './names.js';

/** The envelope fields the header block projects (an `AgentEnvelope` satisfies it). */
export interface HeaderBlockFields {
  /** Conversation. */
  readonly conversation: ConversationId;
  /** Parent conversation, when the envelope has one. */
  readonly parent?: ConversationId | undefined;
  /** Root conversation, when the envelope has one. */
  readonly root?: ConversationId | undefined;
  /** Author. */
  readonly source: AgentId;
  /** Addressee. */
  readonly target?: AgentId | undefined;
}

/** Options of {@link encodeHeaderBlock}. */
export interface HeaderBlockOptions {
  /**
   * The topic the record is written to. On a shared session topic (`agent.sessions`,
   * `agent.control`) an untargeted record is addressed to `*` (broadcast).
   */
  readonly topic?: string;
}

/** Who a record is addressed to, as read from `agdx.to`. */
export type HeaderAddressee =
  | { readonly broadcast: true }
  | { readonly broadcast: false; readonly agent: AgentId };

/** The decoded envelope header block. Absent headers are undefined. */
export interface DecodedHeaderBlock {
  /** `agdx.av` (uint32). */
  readonly version: number | undefined;
  /** `agdx.ct` (uint8 content type code). */
  readonly contentType: number | undefined;
  /** `gen_ai.conversation.id`, from text or the older uint128 little-endian form. */
  readonly conversation: ConversationId | undefined;
  /** `agdx.parent_conv`. */
  readonly parent: ConversationId | undefined;
  /** `agdx.root_conv`. */
  readonly root: ConversationId | undefined;
  /** `agdx.to`: an agent, or broadcast for `*`. */
  readonly to: HeaderAddressee | undefined;
  /** `gen_ai.agent.id`. */
  readonly agent: AgentId | undefined;
}

function textValue(name: string, text: string): HeaderValue {
  const value = stringHeader(text);
  checkHeaderValue(name, value);
  return value;
}

/**
 * The seed-000 header block of an envelope record, sorted by key: `agdx.av` (uint32 1),
 * `agdx.ct` (uint8), `agdx.parent_conv`, `agdx.root_conv` (when set), `agdx.to` (the target, or
 * `*` when untargeted on a shared session topic), `gen_ai.agent.id`, `gen_ai.conversation.id`;
 * IDs as canonical Crockford text. Throws InvalidError when a value breaks the header limits
 * (for example a 256-byte agent id, legal on the wire but not in a header).
 */
export function encodeHeaderBlock(envelope: HeaderBlockFields, contentType: number, options: HeaderBlockOptions = {}): RecordHeaders {
  const entries: [string, HeaderValue][] = [
    [HeaderName.Version, uint32Header(AGENT_OP_VERSION)],
    [HeaderName.ContentType, uint8Header(contentType)],
    [HeaderName.AgentId, textValue(HeaderName.AgentId, envelope.source.toString())],
    [HeaderName.ConversationId, textValue(HeaderName.ConversationId, envelope.conversation.toString())],
  ];
  if (envelope.parent !== undefined) entries.push([HeaderName.ParentConversation, textValue(HeaderName.ParentConversation, envelope.parent.toString())]);
  if (envelope.root !== undefined) entries.push([HeaderName.RootConversation, textValue(HeaderName.RootConversation, envelope.root.toString())]);
  if (envelope.target !== undefined) {
    entries.push([HeaderName.To, textValue(HeaderName.To, envelope.target.toString())]);
  } else if (options.topic !== undefined && SHARED_SESSION_TOPICS.includes(options.topic)) {
    entries.push([HeaderName.To, textValue(HeaderName.To, BROADCAST_ADDRESSEE)]);
  }
  const headers = sortHeaders(entries);
  checkSoftCap(headers, 'envelope headers');
  return headers;
}

/** Parses a Crockford conversation-like header value; a bad id is a header CodecError. */
export function readConversationHeader(value: HeaderValue, name: string): ConversationId {
  if (value.kind === 'uint128') return ConversationId.fromBigInt(readUint128Header(value, name));
  const text = readStringHeader(value, name);
  const id = ConversationId.tryParse(text);
  if (id === undefined) throw invalidHeader(name);
  return id;
}

function agentHeader(value: HeaderValue, name: string): AgentId {
  const id = AgentId.tryParse(readStringHeader(value, name));
  if (id === undefined) throw invalidHeader(name);
  return id;
}

/**
 * Reads an envelope header block. Accepts the conversation header as Crockford text or the older
 * typed uint128 little-endian form; `agdx.to = *` reads as broadcast, never as an agent. A header
 * of the wrong kind or with an unparsable value is a CodecError naming it; unknown headers are
 * ignored.
 */
export function decodeHeaderBlock(headers: RecordHeaders): DecodedHeaderBlock {
  const get = (name: string): HeaderValue | undefined => headers.get(name);
  const av = get(HeaderName.Version);
  const ct = get(HeaderName.ContentType);
  const conv = get(HeaderName.ConversationId);
  const parent = get(HeaderName.ParentConversation);
  const root = get(HeaderName.RootConversation);
  const to = get(HeaderName.To);
  const agent = get(HeaderName.AgentId);
  let addressee: HeaderAddressee | undefined;
  if (to !== undefined) {
    const text = readStringHeader(to, HeaderName.To);
    if (text === BROADCAST_ADDRESSEE) addressee = { broadcast: true };
    else addressee = { broadcast: false, agent: agentHeader(to, HeaderName.To) };
  }
  return {
    version: av === undefined ? undefined : readUint32Header(av, HeaderName.Version),
    contentType: ct === undefined ? undefined : readUint8Header(ct, HeaderName.ContentType),
    conversation: conv === undefined ? undefined : readConversationHeader(conv, HeaderName.ConversationId),
    parent: parent === undefined ? undefined : readConversationHeader(parent, HeaderName.ParentConversation),
    root: root === undefined ? undefined : readConversationHeader(root, HeaderName.RootConversation),
    to: addressee,
    agent: agent === undefined ? undefined : agentHeader(agent, HeaderName.AgentId),
  };
}

