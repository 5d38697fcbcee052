import { CAPSULE_LIMITS } from '../cbor/capsule-limits.js';
import { FieldReader } from '../cbor/fields.js';
import { encodeCbor, type CborValue } from '../cbor/strict.js';
import { contentTypeFromCode, contentTypeName, ContentType, type ContentTypeName } from '../dictionaries/content-type.js';
import { CodecError, InvalidError } from '../errors.js';

/** Most capabilities on one card. */
export const MAX_CARD_CAPABILITIES = 64;
/** Largest card text field (name, version, skill id), in UTF-8 bytes. */
export const MAX_CARD_TEXT_BYTES = 256;

/** What a capability consumes or produces: a content type (by name on the wire) or a schema id. */
export type ContentRef = { readonly kind: 'contentType'; readonly contentType: number } | { readonly kind: 'schemaId'; readonly schemaId: string };

/** One advertised skill. */
export interface CapabilityDescriptor {
  /** Skill id (required). */
  readonly skillId: string;
  /** Input shape. */
  readonly input?: ContentRef | undefined;
  /** Output shape. */
  readonly output?: ContentRef | undefined;
  /** Cost class (u8). */
  readonly costClass?: number | undefined;
  /** Latency class (u8). */
  readonly latencyClass?: number | undefined;
  /** Concurrency limit (u32). */
  readonly maxConcurrency?: number | undefined;
  /** Health code (u8, Health dictionary; unknown codes kept). */
  readonly health?: number | undefined;
  /** Load in per-mille (u16). */
  readonly load?: number | undefined;
}

/** The body of a `status` record with operation `card`. */
export interface AgentCard {
  /** Agent name. */
  readonly name?: string | undefined;
  /** Agent version. */
  readonly version?: string | undefined;
  /** Skills (≤ 64). */
  readonly capabilities: readonly CapabilityDescriptor[];
  /** How long the card stays valid after it is observed, in microseconds. */
  readonly ttlMicros?: bigint | undefined;
}

const encoder = new TextEncoder();

function capText(field: string, text: string | undefined): void {
  if (text === undefined) return;
  const bytes = encoder.encode(text).length;
  if (bytes > MAX_CARD_TEXT_BYTES) throw new InvalidError(`${field} is ${bytes}B, exceeds cap ${MAX_CARD_TEXT_BYTES}B`, { context: { field } });
}

/** Checks the documented card rules (InvalidError with `context.field`). */
export function validateAgentCard(card: AgentCard): void {
  capText('name', card.name);
  capText('version', card.version);
  if (card.capabilities.length > MAX_CARD_CAPABILITIES) {
    throw new InvalidError(`capabilities has ${card.capabilities.length} entries, exceeds cap ${MAX_CARD_CAPABILITIES}`, { context: { field: 'capabilities' } });
  }
  for (const cap of card.capabilities) capText('capability skill_id', cap.skillId);
}

function contentRefToCbor(ref: ContentRef): CborValue {
  if (ref.kind === 'schemaId') return new Map<CborValue, CborValue>([['schema_id', ref.schemaId]]);
  const name = contentTypeName(ref.contentType);
  if (name === undefined) throw new InvalidError(`unknown content type code ${ref.contentType}`, { context: { field: 'content_type' } });
  return new Map<CborValue, CborValue>([['content_type', name]]);
}

function capabilityToCbor(cap: CapabilityDescriptor): CborValue {
  const map = new Map<CborValue, CborValue>([['skill_id', cap.skillId]]);
  if (cap.input !== undefined) map.set('input', contentRefToCbor(cap.input));
  if (cap.output !== undefined) map.set('output', contentRefToCbor(cap.output));
  const ints: [string, number | undefined][] = [
    ['cost_class', cap.costClass],
    ['latency_class', cap.latencyClass],
    ['max_concurrency', cap.maxConcurrency],
    ['health', cap.health],
    ['load', cap.load],
  ];
  for (const [key, value] of ints) if (value !== undefined) map.set(key, BigInt(value));
  return map;
}

/** Encodes a card: `name`, `version`, `capabilities` (omitted when empty), `ttl_micros`. */
export function encodeAgentCard(card: AgentCard): Uint8Array {
  const map = new Map<CborValue, CborValue>();
  if (card.name !== undefined) map.set('name', card.name);
  if (card.version !== undefined) map.set('version', card.version);
  if (card.capabilities.length > 0) map.set('capabilities', card.capabilities.map(capabilityToCbor));
  if (card.ttlMicros !== undefined) map.set('ttl_micros', card.ttlMicros);
  return encodeCbor(map);
}

function readContentRef(r: FieldReader, key: string): ContentRef | undefined {
  const m = r.mapOpt(key);
  if (m === undefined) return undefined;
  const name = m.textOpt('content_type');
  if (name !== undefined) {
    const code = Object.prototype.hasOwnProperty.call(ContentType, name) ? ContentType[name as ContentTypeName] : undefined;
    if (code === undefined || contentTypeFromCode(code) === undefined) {
      throw new CodecError(`unknown content type name \`${name}\` in ${m.surface}`, { context: { surface: m.surface, operation: 'content_type' } });
    }
    return { kind: 'contentType', contentType: code };
  }
  const schemaId = m.textOpt('schema_id');
  if (schemaId !== undefined) return { kind: 'schemaId', schemaId };
  throw new CodecError(`content ref in ${m.surface} must have \`content_type\` or \`schema_id\``, { context: { surface: m.surface, operation: 'content_ref' } });
}

function readCapability(value: CborValue, surface: string): CapabilityDescriptor {
  const r = FieldReader.of(value, surface);
  const cap: { -readonly [K in keyof CapabilityDescriptor]: CapabilityDescriptor[K] } = { skillId: r.text('skill_id') };
  const input = readContentRef(r, 'input');
  const output = readContentRef(r, 'output');
  if (input !== undefined) cap.input = input;
  if (output !== undefined) cap.output = output;
  const set = (key: 'costClass' | 'latencyClass' | 'maxConcurrency' | 'health' | 'load', v: number | undefined): void => {
    if (v !== undefined) cap[key] = v;
  };
  set('costClass', r.u8Opt('cost_class'));
  set('latencyClass', r.u8Opt('latency_class'));
  set('maxConcurrency', r.u32Opt('max_concurrency'));
  set('health', r.u8Opt('health'));
  set('load', r.u16Opt('load'));
  return cap;
}

/**
 * Decodes and validates a card (surface `body`; capabilities at `body.capabilities`). Unknown
 * health codes are kept; an over-cap card is refused with the validation error.
 */
export function decodeAgentCard(bytes: Uint8Array): AgentCard {
  const r = FieldReader.decode(bytes, 'body', CAPSULE_LIMITS.agentCard);
  const card: { -readonly [K in keyof AgentCard]: AgentCard[K] } = {
    capabilities: (r.arrayOpt('capabilities') ?? []).map((item) => readCapability(item, `${r.surface}.capabilities`)),
  };
  const name = r.textOpt('name');
  const version = r.textOpt('version');
  const ttl = r.u64Opt('ttl_micros');
  if (name !== undefined) card.name = name;
  if (version !== undefined) card.version = version;
  if (ttl !== undefined) card.ttlMicros = ttl;
  validateAgentCard(card);
  return card;
}
