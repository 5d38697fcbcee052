import { InvalidError } from '../errors.js';
import { utf8Length } from './utf8.js';

/** Wire cap on an agent id, in UTF-8 bytes. */
export const MAX_AGENT_ID_BYTES = 256;
/** The SDK's stricter cap for ids it creates (`AgentId.new`), in UTF-8 bytes. */
export const MAX_SDK_AGENT_ID_BYTES = 255;

/** First C0, DEL or C1 control character in `text`, if any. */
function findControl(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= 0x1f || (c >= 0x7f && c <= 0x9f)) return text[i];
  }
  return undefined;
}

let adopt: (text: string) => AgentId;

/**
 * An agent's name: non-empty UTF-8 text without C0/DEL/C1 control characters.
 *
 * The wire accepts up to 256 bytes ({@link AgentId.parse}); ids an application creates with
 * {@link AgentId.new} must fit in 255 bytes so they also fit an Iggy header value. `*` parses as an
 * ordinary id here, but header blocks reserve `agdx.to = "*"` for broadcast and never read it as an
 * agent, so do not name an agent `*`.
 */
export class AgentId {
  /** The id text. */
  readonly value: string;

  static {
    adopt = (text) => new AgentId(text);
  }

  private constructor(value: string) {
    this.value = value;
  }

  /**
   * Creates an id under the SDK rule (1..255 UTF-8 bytes, no control characters).
   * @throws InvalidError `identifier must not be empty`, `identifier length NB exceeds max 255B`,
   * ``identifier contains invalid character `c` ``.
   */
  static new(text: string): AgentId {
    if (typeof text !== 'string' || text.length === 0) throw new InvalidError('identifier must not be empty');
    const bytes = utf8Length(text);
    if (bytes > MAX_SDK_AGENT_ID_BYTES) {
      throw new InvalidError(`identifier length ${bytes}B exceeds max ${MAX_SDK_AGENT_ID_BYTES}B`, {
        context: { bytes, cap: MAX_SDK_AGENT_ID_BYTES },
      });
    }
    const bad = findControl(text);
    if (bad !== undefined) {
      throw new InvalidError(`identifier contains invalid character \`${bad}\``, { context: { char: bad } });
    }
    return new AgentId(text);
  }

  /**
   * Reads an id under the wire rule (1..256 UTF-8 bytes, no control characters); the envelope decoder
   * and validator use this.
   * @throws InvalidError `agent id must not be empty`, `agent id is NB, exceeds cap 256B`,
   * `agent id must not contain control characters (found c)`.
   */
  static parse(text: string): AgentId {
    checkWireAgentId(text);
    return new AgentId(text);
  }

  /** Like {@link AgentId.parse} but returns `undefined` instead of throwing. */
  static tryParse(text: string): AgentId | undefined {
    try {
      return AgentId.parse(text);
    } catch {
      return undefined;
    }
  }

  /** The id text (the seeds' `asStr()`, kept so their examples run unchanged). */
  asStr(): string {
    return this.value;
  }

  /** The id text. */
  toString(): string {
    return this.value;
  }

  /** JSON form: the id text. */
  toJSON(): string {
    return this.value;
  }

  /** True when both ids have the same text. */
  equals(other: AgentId | undefined | null): boolean {
    return other !== undefined && other !== null && other.value === this.value;
  }
}

/**
 * Throws unless `text` satisfies the wire agent-id rule. @internal
 */
export function checkWireAgentId(text: string): void {
  if (typeof text !== 'string' || text.length === 0) throw new InvalidError('agent id must not be empty');
  const bytes = utf8Length(text);
  if (bytes > MAX_AGENT_ID_BYTES) {
    throw new InvalidError(`agent id is ${bytes}B, exceeds cap ${MAX_AGENT_ID_BYTES}B`, {
      context: { bytes, cap: MAX_AGENT_ID_BYTES },
    });
  }
  const bad = findControl(text);
  if (bad !== undefined) {
    throw new InvalidError(`agent id must not contain control characters (found ${bad})`, { context: { char: bad } });
  }
}

/**
 * Wraps text the caller has already checked against the wire rule (the decoder checks printable
 * ASCII while it reads the bytes, so a second scan would only repeat it). @internal
 */
export function adoptCheckedAgentId(text: string): AgentId {
  return adopt(text);
}
