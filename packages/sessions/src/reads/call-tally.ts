import { CodecError, readBridgeHops, type AgentEnvelope, type CborValue } from '@agdx/wire';

const MODEL_STREAM_PURPOSES: ReadonlySet<string> = new Set(['chat', 'reasoning']);
const TOOL_STREAM_PURPOSE = 'tool_args';
const IMAGE_SURFACE = 'session fold snapshot';
const U64_MAX = 0xffff_ffff_ffff_ffffn;

/**
 * Most call identities a saved tally keeps per session, for each of its three collections (model
 * calls, tool calls, chunk-stream purposes by channel): the newest ones.
 */
export const MAX_TALLY_IDENTITIES_PER_SESSION = 64;
/** Most call identities (all sessions, all three collections) one fold snapshot keeps. */
export const MAX_SNAPSHOT_CALL_IDENTITIES = 100_000;
/** Most UTF-8 bytes of call identities (and channel purposes) one fold snapshot keeps. */
export const MAX_SNAPSHOT_CALL_IDENTITY_BYTES: number = 4 * 1024 * 1024;
/** Longest identity, channel or purpose a tally saves or accepts back, in UTF-16 code units. */
export const MAX_CALL_IDENTITY_LENGTH = 1024;

/**
 * What is left of a snapshot's room for call identities; {@link CallTally.toImage} takes from it.
 * Start one with {@link callIdentityBudget}.
 */
export interface CallIdentityBudget {
  entries: number;
  bytes: number;
}

/** A snapshot's whole room for call identities. */
export function callIdentityBudget(): CallIdentityBudget {
  return { entries: MAX_SNAPSHOT_CALL_IDENTITIES, bytes: MAX_SNAPSHOT_CALL_IDENTITY_BYTES };
}

function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

function badImage(message: string): CodecError {
  return new CodecError(`${IMAGE_SURFACE}: a call tally ${message}`, { context: { surface: IMAGE_SURFACE } });
}

function imageCount(value: CborValue | undefined, what: string): bigint {
  if (typeof value !== 'bigint' || value < 0n || value > U64_MAX) throw badImage(`${what} must be an unsigned integer`);
  return value;
}

function imageText(value: CborValue | undefined, what: string): string {
  if (typeof value !== 'string' || value.length > MAX_CALL_IDENTITY_LENGTH) throw badImage(`${what} must be text of at most ${MAX_CALL_IDENTITY_LENGTH} characters`);
  return value;
}

function imageList(value: CborValue | undefined, what: string): readonly CborValue[] {
  if (!Array.isArray(value) || value.length > MAX_TALLY_IDENTITIES_PER_SESSION) throw badImage(`${what} must be an array of at most ${MAX_TALLY_IDENTITIES_PER_SESSION}`);
  return value as readonly CborValue[];
}

/** The newest entries of `values` (insertion order) that fit the per-session cap and `budget`. */
function newest<T>(values: readonly T[], size: (value: T) => number, budget: CallIdentityBudget): T[] {
  const kept: T[] = [];
  for (let i = values.length - 1; i >= 0 && kept.length < MAX_TALLY_IDENTITIES_PER_SESSION && budget.entries > 0; i--) {
    const value = values[i] as T;
    const bytes = size(value);
    if (bytes < 0) continue;
    if (bytes > budget.bytes) break;
    budget.entries--;
    budget.bytes -= bytes;
    kept.push(value);
  }
  return kept.reverse();
}

/** The identities of a saved list, each at most once. */
function identitySet(values: readonly CborValue[], what: string): Set<string> {
  const set = new Set<string>();
  for (const id of values) set.add(imageText(id, what));
  if (set.size !== values.length) throw badImage('identity appears twice');
  return set;
}

/** The saved stream purposes by channel, each channel at most once. */
function purposeMap(values: readonly CborValue[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const entry of values) {
    if (!Array.isArray(entry) || entry.length !== 2) throw badImage('stream purpose must be a pair');
    const channel = imageText(entry[0], 'channel');
    if (map.has(channel)) throw badImage('stream purpose appears twice');
    map.set(channel, imageText(entry[1], 'stream purpose'));
  }
  return map;
}

/** The UTF-8 size of an identity, or -1 when it is too long to save. */
function identitySize(text: string): number {
  return text.length > MAX_CALL_IDENTITY_LENGTH ? -1 : utf8Length(text);
}

/** The records that say a model or a tool was called, one identity per call. */
function callIdentity(envelope: AgentEnvelope, fallback: string): string {
  // One call often shows up several times: a reasoning stream and a chat stream answer the same
  // request under its correlation, and a tool's argument stream shares the correlation its
  // result answers. Keying by correlation counts each call once however many records carry it.
  return envelope.correlation?.toString() ?? envelope.channel?.toString() ?? envelope.record?.toString() ?? fallback;
}

/**
 * Counts the model calls and tool calls of one session from the envelopes that carry them, and
 * notes the bridge a conversation came through.
 *
 * A model call shows as a model request or response (display `model.request`, `model.response`)
 * or the opening chunk of a `chat` or `reasoning` stream; a tool call as an `execute_tool`
 * command or its result (display `tool.call`, `tool.result`) or the opening chunk of a
 * `tool_args` stream. Records of one call share its correlation (or, without one, its channel),
 * and each identity counts once, so a request and its response are one call, and a response
 * whose request is not on the scanned topics still counts.
 */
export class CallTally {
  // The collections are created on first use: a fold snapshot restores one tally per session,
  // most of them with nothing to hold, and empty collections were a third of a restore's garbage.
  #model: Set<string> | undefined;
  #tool: Set<string> | undefined;
  /** Calls counted before a restore whose identities the saved image did not keep. */
  #modelBase = 0n;
  #toolBase = 0n;
  /** The purpose each chunk stream opened with, by channel: later chunks do not repeat it. */
  #purposes: Map<string, string> | undefined;
  #bridge: string | undefined;
  #seen = false;

  /** Observes one envelope of the session; `display` is its timeline display type. */
  observe(envelope: AgentEnvelope, display: string, position: string): void {
    if (!this.#seen) {
      this.#seen = true;
      // The first record says who opened the conversation: a bridge stamps its hop on every
      // request it forwards, so a conversation a bridge opened is a bridge call.
      this.#bridge = readBridgeHops(envelope.metadata)[0];
    }
    const opening = envelope.kind === 'chunk' && (envelope.sequence ?? 0n) === 0n ? envelope.operation : undefined;
    if (opening !== undefined && envelope.channel !== undefined) (this.#purposes ??= new Map()).set(envelope.channel.toString(), opening);
    if (display === 'model.request' || display === 'model.response' || (opening !== undefined && MODEL_STREAM_PURPOSES.has(opening))) {
      (this.#model ??= new Set()).add(callIdentity(envelope, position));
    } else if (display === 'tool.call' || display === 'tool.result' || opening === TOOL_STREAM_PURPOSE) {
      (this.#tool ??= new Set()).add(callIdentity(envelope, position));
    }
  }

  /**
   * The purpose of a chunk's stream: its own operation on the opening chunk, else the purpose its
   * channel opened with (observed earlier), else undefined.
   */
  purposeOf(envelope: AgentEnvelope): string | undefined {
    if (envelope.kind !== 'chunk') return undefined;
    return envelope.operation ?? (envelope.channel !== undefined ? this.#purposes?.get(envelope.channel.toString()) : undefined);
  }

  /**
   * The display type of a record whose envelope display is `display`: a later chunk of a `chat`
   * or `reasoning` stream shows as `model.stream` like the chunk that opened it.
   */
  displayOf(envelope: AgentEnvelope, display: string): string {
    const purpose = this.purposeOf(envelope);
    return purpose !== undefined && MODEL_STREAM_PURPOSES.has(purpose) ? 'model.stream' : display;
  }

  /** Distinct model calls seen. */
  get modelCalls(): bigint {
    return this.#modelBase + BigInt(this.#model?.size ?? 0);
  }

  /** Distinct tool calls seen. */
  get toolCalls(): bigint {
    return this.#toolBase + BigInt(this.#tool?.size ?? 0);
  }

  /** The first bridge named by the conversation's first envelope, if a bridge opened it. */
  get bridge(): string | undefined {
    return this.#bridge;
  }

  /**
   * The tally as a CBOR value for a fold snapshot: `[modelCalls, toolCalls, seen, bridge | null,
   * modelIds, toolIds, [[channel, purpose], ...]]`. The counts are always saved. Call identities
   * and stream purposes are saved only when `identities` is true (the session is still open, so
   * more records of calls already counted may come): the newest
   * {@link MAX_TALLY_IDENTITIES_PER_SESSION} of each collection, as far as `budget` allows (it is
   * shared by every session of the snapshot and decremented here). An identity not saved is
   * still counted; a later record of its call would count as a new call after a restore.
   */
  toImage(identities: boolean, budget: CallIdentityBudget): CborValue {
    const keep = identities && budget.entries > 0;
    const model = keep ? newest([...(this.#model ?? [])], identitySize, budget) : [];
    const tool = keep ? newest([...(this.#tool ?? [])], identitySize, budget) : [];
    const purposes = keep
      ? newest(
          [...(this.#purposes ?? [])],
          ([channel, purpose]) => (channel.length > MAX_CALL_IDENTITY_LENGTH || purpose.length > MAX_CALL_IDENTITY_LENGTH ? -1 : utf8Length(channel) + utf8Length(purpose)),
          budget,
        )
      : [];
    const bridge = this.#bridge !== undefined && this.#bridge.length <= MAX_CALL_IDENTITY_LENGTH ? this.#bridge : null;
    return [this.modelCalls, this.toolCalls, this.#seen, bridge, model, tool, purposes.map(([channel, purpose]) => [channel, purpose])];
  }

  /**
   * A tally restored from {@link toImage}'s value: the saved counts, with the saved identities
   * and purposes (if any) ready to recognise further records of their calls.
   * @throws CodecError when the value is not a well-formed tally image.
   */
  static fromImage(value: CborValue | undefined): CallTally {
    if (!Array.isArray(value) || value.length !== 7) throw badImage('must be an array of 7');
    const r = value as readonly CborValue[];
    const tally = new CallTally();
    const modelCalls = imageCount(r[0], 'model call count');
    const toolCalls = imageCount(r[1], 'tool call count');
    if (typeof r[2] !== 'boolean') throw badImage('seen flag must be a boolean');
    tally.#seen = r[2];
    tally.#bridge = r[3] === null ? undefined : imageText(r[3], 'bridge');
    const modelIds = imageList(r[4], 'model call identities');
    const toolIds = imageList(r[5], 'tool call identities');
    const purposes = imageList(r[6], 'stream purposes');
    if (modelIds.length > 0) tally.#model = identitySet(modelIds, 'model call identity');
    if (toolIds.length > 0) tally.#tool = identitySet(toolIds, 'tool call identity');
    if (purposes.length > 0) tally.#purposes = purposeMap(purposes);
    const models = BigInt(modelIds.length);
    const tools = BigInt(toolIds.length);
    if (models > modelCalls || tools > toolCalls) throw badImage('holds more identities than calls');
    tally.#modelBase = modelCalls - models;
    tally.#toolBase = toolCalls - tools;
    return tally;
  }
}
