import { CodecError, InvalidError } from '../errors.js';
import type { ConversationId } from '../ids/machine-id.js';
import {
  float64Header,
  invalidHeader,
  readFloat64Header,
  readStringHeader,
  readUint64Header,
  stringHeader,
  uint64Header,
  type HeaderValue,
  type RecordHeaders,
} from './header-value.js';
import { readConversationHeader } from './header-block.js';
import { checkHeaderValue, checkSoftCap, sortHeaders } from './limits.js';
import { HeaderName } from './names.js';

/** Token usage carried as provenance headers on a generic record. */
export interface ProvenanceUsage {
  /** `gen_ai.usage.input_tokens`. */
  readonly inputTokens?: bigint;
  /** `gen_ai.usage.output_tokens`. */
  readonly outputTokens?: bigint;
  /** `agdx.cost`, USD. */
  readonly costUsd?: number;
}

/** The provenance of a generic (non-envelope) record, as carried by its headers. */
export interface Provenance {
  /** `gen_ai.conversation.id` (required). */
  readonly conversation: ConversationId;
  /** `agdx.parent_conv`. */
  readonly parent?: ConversationId;
  /** `agdx.root_conv`. */
  readonly root?: ConversationId;
  /** `agdx.cause`: the causal parent as a message id `<partition>:<offset>`. */
  readonly cause?: string;
  /** `gen_ai.agent.id`: the author. */
  readonly agent?: string;
  /** `agdx.to`: the addressee. */
  readonly target?: string;
  /** `agdx.idem`. */
  readonly idempotencyKey?: string;
  /** `agdx.corr` (free text on generic records). */
  readonly correlation?: string;
  /** `agdx.fence`. */
  readonly fence?: bigint;
  /** `agdx.deadline`, epoch microseconds. */
  readonly deadlineMicros?: bigint;
  /** Usage headers. */
  readonly usage?: ProvenanceUsage;
}

const U64_MAX = (1n << 64n) - 1n;

/**
 * Encodes provenance as the seed-typed header block ([U]), sorted by key: ids and free text as
 * strings, `agdx.deadline`, `agdx.fence` and the token counts as uint64, `agdx.cost` as float64.
 * Enforces the value limits and the 1,024-byte soft cap with the documented InvalidError messages.
 */
export function encodeProvenanceHeaders(provenance: Provenance): RecordHeaders {
  const entries: [string, HeaderValue][] = [];
  const text = (name: string, value: string | undefined): void => {
    if (value === undefined) return;
    const header = stringHeader(value);
    checkHeaderValue(name, header);
    entries.push([name, header]);
  };
  const u64 = (name: string, value: bigint | undefined): void => {
    if (value === undefined) return;
    if (typeof value !== 'bigint' || value < 0n || value > U64_MAX) {
      throw new InvalidError(`header \`${name}\` value must be an unsigned 64-bit integer`, { context: { header: name } });
    }
    entries.push([name, uint64Header(value)]);
  };
  text(HeaderName.ConversationId, provenance.conversation.toString());
  text(HeaderName.ParentConversation, provenance.parent?.toString());
  text(HeaderName.RootConversation, provenance.root?.toString());
  text(HeaderName.Cause, provenance.cause);
  text(HeaderName.AgentId, provenance.agent);
  text(HeaderName.To, provenance.target);
  text(HeaderName.IdempotencyKey, provenance.idempotencyKey);
  text(HeaderName.Correlation, provenance.correlation);
  u64(HeaderName.Fence, provenance.fence);
  u64(HeaderName.Deadline, provenance.deadlineMicros);
  u64(HeaderName.InputTokens, provenance.usage?.inputTokens);
  u64(HeaderName.OutputTokens, provenance.usage?.outputTokens);
  const cost = provenance.usage?.costUsd;
  if (cost !== undefined) {
    if (typeof cost !== 'number' || !Number.isFinite(cost)) {
      throw new InvalidError(`non-finite floating-point value for header \`${HeaderName.Cost}\``, { context: { header: HeaderName.Cost } });
    }
    entries.push([HeaderName.Cost, float64Header(cost)]);
  }
  const headers = sortHeaders(entries);
  checkSoftCap(headers, 'provenance headers');
  return headers;
}

function readText(headers: RecordHeaders, name: string): string | undefined {
  const value = headers.get(name);
  return value === undefined ? undefined : readStringHeader(value, name);
}

// 0.1.1 peers write numbers as decimal strings; the seeds type them. Readers take both.
function readU64(headers: RecordHeaders, name: string): bigint | undefined {
  const value = headers.get(name);
  if (value === undefined) return undefined;
  if (value.kind === 'uint64') return readUint64Header(value, name);
  const text = readStringHeader(value, name);
  if (text.length === 0 || text.length > 20 || !/^[0-9]+$/.test(text)) throw invalidHeader(name);
  const n = BigInt(text);
  if (n > U64_MAX) throw invalidHeader(name);
  return n;
}

function readCost(headers: RecordHeaders): number | undefined {
  const value = headers.get(HeaderName.Cost);
  if (value === undefined) return undefined;
  const n = value.kind === 'float64' ? readFloat64Header(value, HeaderName.Cost) : Number(readStringHeader(value, HeaderName.Cost));
  if (!Number.isFinite(n)) throw invalidHeader(HeaderName.Cost);
  return n;
}

/**
 * Reads generic-record provenance. Numbers are accepted typed (uint64/float64) or as the decimal
 * strings 0.1.1 writes; the conversation as text or the older uint128. A missing conversation is
 * CodecError `missing required header `gen_ai.conversation.id``; a bad value is CodecError
 * `invalid value for header `name``. Unknown headers are ignored.
 */
export function decodeProvenanceHeaders(headers: RecordHeaders): Provenance {
  const conv = headers.get(HeaderName.ConversationId);
  if (conv === undefined) {
    throw new CodecError(`missing required header \`${HeaderName.ConversationId}\``, {
      context: { surface: 'headers', operation: HeaderName.ConversationId },
    });
  }
  const parent = headers.get(HeaderName.ParentConversation);
  const root = headers.get(HeaderName.RootConversation);
  const inputTokens = readU64(headers, HeaderName.InputTokens);
  const outputTokens = readU64(headers, HeaderName.OutputTokens);
  const costUsd = readCost(headers);
  const out: {
    -readonly [K in keyof Provenance]: Provenance[K];
  } = { conversation: readConversationHeader(conv, HeaderName.ConversationId) };
  if (parent !== undefined) out.parent = readConversationHeader(parent, HeaderName.ParentConversation);
  if (root !== undefined) out.root = readConversationHeader(root, HeaderName.RootConversation);
  const set = <K extends keyof Provenance>(key: K, value: Provenance[K] | undefined): void => {
    if (value !== undefined) out[key] = value;
  };
  set('cause', readText(headers, HeaderName.Cause));
  set('agent', readText(headers, HeaderName.AgentId));
  set('target', readText(headers, HeaderName.To));
  set('idempotencyKey', readText(headers, HeaderName.IdempotencyKey));
  set('correlation', readText(headers, HeaderName.Correlation));
  set('fence', readU64(headers, HeaderName.Fence));
  set('deadlineMicros', readU64(headers, HeaderName.Deadline));
  if (inputTokens !== undefined || outputTokens !== undefined || costUsd !== undefined) {
    const usage: { -readonly [K in keyof ProvenanceUsage]: ProvenanceUsage[K] } = {};
    if (inputTokens !== undefined) usage.inputTokens = inputTokens;
    if (outputTokens !== undefined) usage.outputTokens = outputTokens;
    if (costUsd !== undefined) usage.costUsd = costUsd;
    out.usage = usage;
  }
  return out;
}
