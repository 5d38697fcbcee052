/**
 * fast-check generators of VALID envelopes (every kind, every optional field the matrix allows),
 * used by the property, differential and fuzz runs.
 */
import {
  AgentEnvelope,
  AgentId,
  ChannelId,
  ConversationId,
  CorrelationId,
  IdempotencyKey,
  LogPosition,
  RecordId,
  type AgentKind,
  type EnvelopeFields,
  type MetadataValue,
  type Signature,
  type TokenUsage,
} from '@agdx/wire';
import fc from 'fast-check';

const U64_MAX = (1n << 64n) - 1n;
const u64 = (): fc.Arbitrary<bigint> =>
  fc.oneof(fc.bigInt({ min: 0n, max: 30n }), fc.bigInt({ min: 0n, max: 0xffffffffn }), fc.bigInt({ min: 0n, max: U64_MAX }));
const bytes16 = (): fc.Arbitrary<Uint8Array> => fc.uint8Array({ minLength: 16, maxLength: 16 });
const textNoControl = (min: number, max: number): fc.Arbitrary<string> =>
  fc
    .string({ unit: fc.oneof(fc.constantFrom('a', 'b', 'z', '-', '.', '*'), fc.constantFrom('é', 'ß', 'λ', '中', '🤖'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), minLength: min, maxLength: max })
    .filter((s) => !/[\u0000-\u001f\u007f-\u009f]/.test(s) && s.length >= min);
const anyText = (max: number): fc.Arbitrary<string> => fc.string({ unit: 'binary', maxLength: max });

const id = <T>(make: (b: Uint8Array) => T): fc.Arbitrary<T> => bytes16().map(make);
const recordId = id((b) => RecordId.fromBytes(b));
const conversationId = id((b) => ConversationId.fromBytes(b));
const correlationId = id((b) => CorrelationId.fromBytes(b));
const channelId = id((b) => ChannelId.fromBytes(b));
const agentId = textNoControl(1, 24).map((s) => AgentId.parse(s));
const body = fc.uint8Array({ minLength: 1, maxLength: 96 });
const logPosition = fc
  .tuple(fc.nat({ max: 0xffffffff }), fc.nat({ max: 0xffffffff }), fc.nat({ max: 0xffffffff }), u64())
  .map(([s, t, p, o]) => new LogPosition(s, t, p, o));

const scalar: fc.Arbitrary<MetadataValue> = fc.oneof(
  anyText(24),
  fc.bigInt({ min: -(1n << 63n), max: U64_MAX }),
  fc.double({ noNaN: true }),
  fc.constant(Number.NaN),
  fc.constantFrom(0.5, 1.5, 2, -0, 65504, 1e-7, 3.4e38, 0.1),
  fc.boolean(),
  fc.constant(null),
);
const metadataValue: fc.Arbitrary<MetadataValue> = fc.oneof(
  { weight: 4, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(fc.oneof(scalar, fc.array(scalar, { maxLength: 3 })), { maxLength: 4 }) },
);
const metadata = fc
  .uniqueArray(fc.tuple(anyText(16), metadataValue), { maxLength: 8, selector: ([k]) => k })
  .map((entries) => new Map(entries));

const usage: fc.Arbitrary<TokenUsage> = fc
  .record(
    {
      inputTokens: u64(),
      outputTokens: u64(),
      reasoningOutputTokens: u64(),
      cacheReadInputTokens: u64(),
      cacheCreationInputTokens: u64(),
      costMicros: u64(),
    },
    { requiredKeys: ['inputTokens', 'outputTokens'] },
  );

const signature: fc.Arbitrary<Signature> = fc.oneof(
  fc.record(
    {
      scheme: fc.constant(1),
      keyId: fc.uint8Array({ minLength: 8, maxLength: 8 }),
      bytes: fc.uint8Array({ minLength: 64, maxLength: 64 }),
      context: fc.record({ contentType: fc.nat({ max: 255 }), agentVersion: fc.nat({ max: 0xffffffff }) }, { requiredKeys: [] }),
    },
    { requiredKeys: ['scheme', 'keyId', 'bytes'] },
  ),
  fc.record({ scheme: fc.integer({ min: 2, max: 255 }), keyId: fc.uint8Array({ maxLength: 12 }), bytes: fc.uint8Array({ maxLength: 80 }) }),
);

const opt = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(a, { nil: undefined, freq: 2 });
const shortText = textNoControl(1, 20);

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A valid envelope of any kind. */
export const validEnvelope: fc.Arbitrary<AgentEnvelope> = fc
  .record({
    kind: fc.constantFrom<AgentKind>('command', 'response', 'event', 'chunk', 'status', 'error'),
    record: recordId,
    conversation: conversationId,
    parent: opt(conversationId),
    root: opt(conversationId),
    source: agentId,
    target: opt(agentId),
    cause: opt(recordId),
    causeAt: opt(logPosition),
    correlation: correlationId,
    maybeCorrelation: opt(correlationId),
    channel: channelId,
    errorChannel: opt(fc.tuple(channelId, opt(u64()))),
    idempotencyKey: opt(textNoControl(1, 16).map((s) => IdempotencyKey.new(s))),
    deadline: opt(u64()),
    sequence: fc.oneof(fc.constant(0n), u64()),
    last: fc.boolean(),
    finishReason: opt(shortText),
    taskState: opt(fc.nat({ max: 255 })),
    operation: opt(shortText),
    statusOperation: fc.constantFrom('task', 'card', 'progress', 'quarantine', 'unquarantine'),
    purpose: fc.constantFrom('chat', 'reasoning', 'tool_args'),
    tool: opt(shortText),
    usage: opt(usage),
    metadata: opt(metadata),
    mustUnderstand: fc.oneof(fc.constant(0n), u64()),
    body,
    optionalBody: fc.uint8Array({ maxLength: 40 }),
    chunkRecord: fc.boolean(),
    signature: opt(signature),
  })
  .map((r) => {
    const f: Mutable<EnvelopeFields> = {
      kind: r.kind,
      record: r.record,
      conversation: r.conversation,
      source: r.source,
      target: r.target,
      cause: r.cause,
      causeAt: r.causeAt,
      metadata: r.metadata,
      mustUnderstand: r.mustUnderstand,
      signature: r.signature,
      body: r.body,
    };
    if (r.parent !== undefined && !r.parent.equals(r.conversation)) {
      f.parent = r.parent;
      if (r.root !== undefined && !r.root.equals(r.conversation)) f.root = r.root;
    }
    switch (r.kind) {
      case 'command':
        Object.assign(f, { correlation: r.correlation, idempotencyKey: r.idempotencyKey, deadlineMicros: r.deadline, operation: r.operation, tool: r.tool });
        break;
      case 'response':
        Object.assign(f, {
          correlation: r.correlation,
          idempotencyKey: r.idempotencyKey,
          finishReason: r.finishReason,
          taskState: r.taskState,
          operation: r.operation,
          tool: r.tool,
          usage: r.usage,
        });
        break;
      case 'event':
        Object.assign(f, { correlation: r.maybeCorrelation, idempotencyKey: r.idempotencyKey, operation: r.operation, tool: r.tool, usage: r.usage });
        break;
      case 'chunk': {
        const opening = r.sequence === 0n;
        Object.assign(f, {
          record: r.chunkRecord ? r.record : undefined,
          correlation: r.correlation,
          channel: r.channel,
          sequence: r.sequence,
          last: r.last,
          operation: opening ? r.purpose : undefined,
          deadlineMicros: opening ? r.deadline : undefined,
          finishReason: r.last ? r.finishReason : undefined,
          usage: r.last ? r.usage : undefined,
          tool: r.tool,
          body: r.last ? r.optionalBody : r.body,
        });
        break;
      }
      case 'status': {
        const task = r.statusOperation === 'task';
        Object.assign(f, {
          correlation: task ? r.correlation : r.maybeCorrelation,
          operation: r.statusOperation,
          taskState: task ? (r.taskState ?? 2) : r.taskState,
          last: r.last,
          usage: r.usage,
          body: r.optionalBody,
        });
        break;
      }
      case 'error':
        Object.assign(f, {
          correlation: r.correlation,
          channel: r.errorChannel?.[0],
          sequence: r.errorChannel?.[1],
          taskState: r.taskState,
          operation: r.operation,
          tool: r.tool,
          usage: r.usage,
        });
        break;
    }
    return AgentEnvelope.fromFields(f);
  });
