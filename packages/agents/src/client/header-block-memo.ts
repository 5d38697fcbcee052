/**
 * Memoised seed header blocks. A block is a pure function of the content type, the topic, the
 * author, the session, the addressee and the ancestry, so a cached block is byte-identical to a
 * fresh one. A requester and its agents send the same few blocks again and again, so the last few
 * are compared field by field first (no key string is built for them); the rest go through a
 * bounded map keyed by the fields' text.
 */
import { encodeHeaderBlock, type AgentId, type ConversationId, type HeaderBlockFields, type RecordHeaders } from '@agdx/wire';
import { sealHeaders } from '@agdx/transport';

const CACHE_LIMIT = 4096;
const RECENT = 8;

interface Recent {
  readonly contentType: number;
  readonly topic: string;
  readonly source: string;
  readonly conversation: ConversationId;
  readonly target: string | undefined;
  readonly parent: ConversationId | undefined;
  readonly root: ConversationId | undefined;
  readonly headers: RecordHeaders;
}

// By text, which an id keeps once shown: safe for ids from another installed copy of wire too.
function sameId(a: ConversationId | undefined, b: ConversationId | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.toString() === b.toString());
}

function sameAgent(a: AgentId | undefined, b: string | undefined): boolean {
  return a === undefined ? b === undefined : a.value === b;
}

/** The header blocks of one client family (every client derived from one `AgdxClient.from`). */
export class HeaderBlockMemo {
  readonly #recent: (Recent | undefined)[] = new Array<Recent | undefined>(RECENT).fill(undefined);
  #next = 0;
  readonly #byKey = new Map<string, RecordHeaders>();

  /** The sealed header block of `fields` sent with `contentType` on `topic`. */
  get(fields: HeaderBlockFields, contentType: number, topic: string): RecordHeaders {
    for (const r of this.#recent) {
      if (
        r !== undefined &&
        r.contentType === contentType &&
        r.topic === topic &&
        r.source === fields.source.value &&
        sameId(r.conversation, fields.conversation) &&
        sameAgent(fields.target, r.target) &&
        sameId(r.parent, fields.parent) &&
        sameId(r.root, fields.root)
      ) {
        return r.headers;
      }
    }
    const headers = this.#lookup(fields, contentType, topic);
    this.#recent[this.#next] = {
      contentType,
      topic,
      source: fields.source.value,
      conversation: fields.conversation,
      target: fields.target?.value,
      parent: fields.parent,
      root: fields.root,
      headers,
    };
    this.#next = (this.#next + 1) % RECENT;
    return headers;
  }

  #lookup(fields: HeaderBlockFields, contentType: number, topic: string): RecordHeaders {
    // Agent ids hold no control characters and ids are Crockford text, so only the topic could
    // contain the separator, and it is the one field not followed by another free-form one.
    const key = `${contentType}\u0000${topic}\u0000${fields.source.value}\u0000${fields.conversation.toString()}\u0000${fields.target?.value ?? ''}\u0000${fields.parent?.toString() ?? ''}\u0000${fields.root?.toString() ?? ''}`;
    const cache = this.#byKey;
    let headers = cache.get(key);
    if (headers === undefined) {
      // Sealed once here, so no append has to copy it again.
      headers = sealHeaders(encodeHeaderBlock(fields, contentType, { topic }));
      if (cache.size >= CACHE_LIMIT) cache.clear();
      cache.set(key, headers);
    }
    return headers;
  }
}
