import {
  AgdxError,
  AgentEnvelope,
  AgentId,
  ChannelId,
  ConversationId,
  CorrelationId,
  encodeSessionEnd,
  encodeSessionStart,
  encodeSessionTransition,
  decodeSessionStart,
  decodeSessionEnd,
  decodeSessionTransition,
  IdempotencyKey,
  LogPosition,
  MintUlid,
  RecordId,
  TaskState,
  validateEnvelope,
  type SessionStart,
} from '@agdx/wire';
import { describe, expect, it } from 'vitest';

const rec = MintUlid.mint(RecordId);
const conv = ConversationId.derive('conv');
const other = ConversationId.derive('other');
const third = ConversationId.derive('third');
const src = AgentId.new('planner');
const corr = MintUlid.mint(CorrelationId);
const chan = MintUlid.mint(ChannelId);
const body = new TextEncoder().encode('{"x":1}');

function invalid(env: AgentEnvelope): { message: string; field: unknown } {
  try {
    validateEnvelope(env);
  } catch (e) {
    if (!AgdxError.is(e, 'invalid')) throw e;
    return { message: e.message, field: e.context?.field };
  }
  throw new Error('expected an InvalidError');
}

const start: SessionStart = { agent: src, sdk: { language: 'typescript', version: '0.1.0' }, label: 'demo', tags: ['a'] };

describe('seed fields and extra rules', () => {
  it('root needs parent; neither may equal the conversation', () => {
    const cmd = AgentEnvelope.command(rec, conv, src, corr, body);
    expect(() => cmd.withParent(other, third).validate()).not.toThrow();
    expect(invalid(cmd.with({ root: other }))).toEqual({ message: '`root`: root requires parent', field: 'root' });
    expect(invalid(cmd.withParent(conv))).toEqual({ message: '`parent`: parent and root must differ from conversation', field: 'parent' });
    expect(invalid(cmd.withParent(other, conv)).field).toBe('parent');
  });

  it('parent/root are encoded after conversation and survive a round trip', () => {
    const env = AgentEnvelope.event(rec, conv, src, body).withParent(other, third);
    const back = AgentEnvelope.decode(env.encode());
    expect(back.parent?.equals(other)).toBe(true);
    expect(back.root?.equals(third)).toBe(true);
    const keys = [...new TextDecoder('latin1').decode(env.encode()).matchAll(/(conversation|parent|root|source)/g)].map((m) => m[1]);
    expect(keys).toEqual(['conversation', 'parent', 'root', 'source']);
  });

  it('usage.cost_micros is written last and kept', () => {
    const env = AgentEnvelope.response(rec, conv, src, corr, body).withUsage({ inputTokens: 1n, outputTokens: 2n, cacheReadInputTokens: 3n, costMicros: 12_500n });
    const back = AgentEnvelope.decode(env.encode());
    expect(back.usage).toEqual({ inputTokens: 1n, outputTokens: 2n, cacheReadInputTokens: 3n, costMicros: 12_500n });
    const text = new TextDecoder('latin1').decode(env.encode());
    expect(text.indexOf('cost_micros')).toBeGreaterThan(text.indexOf('cache_read_input_tokens'));
  });

  it('idempotency key only on command/response/event', () => {
    const key = IdempotencyKey.new('k-1');
    expect(() => AgentEnvelope.event(rec, conv, src, body).withIdempotencyKey(key).validate()).not.toThrow();
    expect(invalid(AgentEnvelope.error(rec, conv, src, corr, body).withIdempotencyKey(key))).toEqual({
      message: '`idempotency_key` is invalid on error',
      field: 'idempotency_key',
    });
  });

  it('error: sequence only with channel; channel alone is fine', () => {
    const err = AgentEnvelope.error(rec, conv, src, corr, body);
    expect(() => err.withChannel(chan).validate()).not.toThrow();
    expect(() => err.withChannel(chan).with({ sequence: 3n }).validate()).not.toThrow();
    expect(invalid(err.with({ sequence: 3n }))).toEqual({ message: '`sequence`: sequence requires channel', field: 'sequence' });
  });

  it('chunks: purpose and deadline on the opening chunk, finish_reason/usage/empty body only on the terminal one', () => {
    const open = AgentEnvelope.chunk(conv, src, corr, chan, 0, body).withOperation('chat').withDeadlineMicros(10n);
    expect(() => open.validate()).not.toThrow();
    expect(invalid(AgentEnvelope.chunk(conv, src, corr, chan, 0, body)).message).toBe('chunk requires `operation`');
    const mid = AgentEnvelope.chunk(conv, src, corr, chan, 1, body);
    expect(invalid(mid.withOperation('chat')).message).toBe('`operation`: the stream purpose rides the opening chunk (sequence 0)');
    expect(invalid(mid.withDeadlineMicros(1n)).field).toBe('deadline_micros');
    expect(invalid(mid.with({ finishReason: 'stop' })).field).toBe('finish_reason');
    expect(invalid(mid.withUsage({ inputTokens: 1n, outputTokens: 1n })).field).toBe('usage');
    expect(invalid(mid.withBody(new Uint8Array())).message).toBe('chunk requires `body`');
    const end = mid.withBody(new Uint8Array()).terminal('stop').withUsage({ inputTokens: 1n, outputTokens: 1n });
    expect(() => end.validate()).not.toThrow();
    expect(AgentEnvelope.decode(end.encode()).last).toBe(true);
  });

  it('status task needs correlation and task state; closed operation set includes session', () => {
    const st = AgentEnvelope.status(rec, conv, src, 'task');
    expect(invalid(st).message).toBe('status requires `correlation`');
    expect(invalid(st.withCorrelation(corr)).message).toBe('status requires `task_state`');
    expect(() => st.withCorrelation(corr).withTaskState(TaskState.Paused).validate()).not.toThrow();
    expect(invalid(AgentEnvelope.status(rec, conv, src, 'telemetry')).message).toBe(
      '`operation`: status operation must be `task`, `session`, `card`, `progress`, `quarantine`, or `unquarantine`, got `telemetry`',
    );
    expect(invalid(AgentEnvelope.status(rec, conv, src, 'card').withTool('x')).field).toBe('tool');
  });

  it('caps use the seed wording with backticks and carry the field', () => {
    const long = 'x'.repeat(300);
    const cmd = AgentEnvelope.command(rec, conv, src, corr, body);
    expect(invalid(cmd.withOperation(long))).toEqual({ message: '`operation` is 300B, exceeds cap 256B', field: 'operation' });
    expect(invalid(cmd.withTool(long)).message).toBe('`tool` is 300B, exceeds cap 256B');
    const meta = new Map(Array.from({ length: 33 }, (_, i) => [`k${i}`, BigInt(i)] as const));
    expect(invalid(cmd.withMetadata(meta)).message).toBe('`metadata` is 33 entries, exceeds cap 32');
    expect(invalid(cmd.withMetadata('k', 'v'.repeat(1025))).message).toBe('`metadata value` is 1025B, exceeds cap 1024B');
    expect(invalid(cmd.withMetadata(long, 1n)).message).toBe('`metadata key` is 300B, exceeds cap 256B');
    const big = new Map(Array.from({ length: 9 }, (_, i) => [`k${i}`, 'v'.repeat(1000)] as const));
    expect(invalid(cmd.withMetadata(big)).message).toBe('`metadata` is 9018B, exceeds cap 8192B');
  });

  it('metadata caps count exact UTF-8 bytes, at and around each cap, with text of 1 to 4 bytes per character', () => {
    // Validation first bounds text at 3 bytes per UTF-16 unit and measures only what the bound
    // cannot decide: every verdict and every reported size must still be the exact one.
    const cmd = AgentEnvelope.command(rec, conv, src, corr, body);
    const ok = (e: AgentEnvelope): boolean => {
      try {
        e.validate();
        return true;
      } catch {
        return false;
      }
    };
    // Keys: 128 two-byte characters are exactly 256 B (the cap); one more is 258 B.
    expect(ok(cmd.withMetadata('é'.repeat(128), 1n))).toBe(true);
    expect(invalid(cmd.withMetadata('é'.repeat(129), 1n)).message).toBe('`metadata key` is 258B, exceeds cap 256B');
    // Astral characters: 2 units, 4 bytes each; 64 of them are 256 B.
    expect(ok(cmd.withMetadata('𝄞'.repeat(64), 1n))).toBe(true);
    expect(invalid(cmd.withMetadata('𝄞'.repeat(65), 1n)).message).toBe('`metadata key` is 260B, exceeds cap 256B');
    // Values: 1,024 B exactly passes whether the text is ASCII, two- or three-byte characters.
    expect(ok(cmd.withMetadata('k', 'v'.repeat(1024)))).toBe(true);
    expect(ok(cmd.withMetadata('k', 'é'.repeat(512)))).toBe(true);
    expect(invalid(cmd.withMetadata('k', `${'€'.repeat(341)}ab`)).message).toBe('`metadata value` is 1025B, exceeds cap 1024B');
    // A list counts 1 per item plus each item's size.
    expect(ok(cmd.withMetadata('k', ['a'.repeat(1021), 'b']))).toBe(true);
    expect(invalid(cmd.withMetadata('k', ['a'.repeat(1021), 'bc'])).message).toBe('`metadata value` is 1025B, exceeds cap 1024B');
    // The total: 8 values of 1,000 ASCII bytes (bounded at 24,000) are 8,016 B with their keys: valid.
    const under = new Map(Array.from({ length: 8 }, (_, i) => [`k${i}`, 'v'.repeat(1000)] as const));
    expect(ok(cmd.withMetadata(under))).toBe(true);
    const over = new Map([...under, ['z'.repeat(170), 'é'.repeat(4)] as const]);
    expect(invalid(cmd.withMetadata(over)).message).toBe('`metadata` is 8194B, exceeds cap 8192B');
    // A value of the wrong kind after an over-long key: the key is reported (entry order, key first).
    expect(invalid(cmd.withMetadata('é'.repeat(200), { x: 1 } as never)).field).toBe('metadata key');
    // A bad value inside a list is refused even when the list's text alone would be over its cap.
    expect(invalid(cmd.withMetadata('k', ['v'.repeat(2000), { x: 1 } as never])).message).toBe(
      '`metadata value`: must be a string, integer, float, boolean, null or list',
    );
  });

  it('metadata values must be metadata types; integers fit i64 or u64', () => {
    const cmd = AgentEnvelope.command(rec, conv, src, corr, body);
    expect(() => cmd.withMetadata('u', (1n << 64n) - 1n).withMetadata('i', -(1n << 63n)).validate()).not.toThrow();
    expect(invalid(cmd.withMetadata('u', 1n << 64n))).toEqual({ message: '`metadata value`: integers must fit i64 or u64', field: 'metadata value' });
    expect(invalid(cmd.withMetadata('i', -(1n << 63n) - 1n)).field).toBe('metadata value');
    expect(invalid(cmd.withMetadata('o', { x: 1 } as never)).field).toBe('metadata value');
    expect(invalid(AgentEnvelope.fromFields({ ...cmd.toFields(), kind: 'query' as never })).field).toBe('kind');
  });

  it('signature lengths are checked last and only for scheme 1', () => {
    const cmd = AgentEnvelope.command(rec, conv, src, corr, body);
    const sig = { scheme: 1, keyId: new Uint8Array(7), bytes: new Uint8Array(64) };
    expect(invalid(cmd.withSignature(sig))).toEqual({ message: '`key_id`: Ed25519 key id must be 8 bytes, got 7', field: 'key_id' });
    expect(invalid(cmd.withSignature({ ...sig, keyId: new Uint8Array(8), bytes: new Uint8Array(1) })).field).toBe('bytes');
    expect(() => cmd.withSignature({ scheme: 9, keyId: new Uint8Array(1), bytes: new Uint8Array(0) }).validate()).not.toThrow();
    // An earlier rule wins over the signature check.
    expect(invalid(cmd.withSignature(sig).withOperation('x'.repeat(300))).field).toBe('operation');
  });

  it('requiring / unmetRequirements', () => {
    const env = AgentEnvelope.event(rec, conv, src, body).requiring(0b101n);
    expect(env.unmetRequirements(0n)).toBe(5n);
    expect(env.unmetRequirements(1n)).toBe(4n);
    expect(env.unmetRequirements(5n)).toBe(0n);
    // An envelope that requires nothing still refuses an argument that is not a bigint.
    const plain = AgentEnvelope.event(rec, conv, src, body);
    expect(plain.unmetRequirements(7n)).toBe(0n);
    expect(() => plain.unmetRequirements(7 as unknown as bigint)).toThrow(TypeError);
  });
});

describe('status operation `session` (seed lifecycle bodies)', () => {
  const base = AgentEnvelope.status(rec, conv, src, 'session');

  it('accepts a start (Submitted/Working), transitions and ends with matching `last`', () => {
    expect(() => base.withTaskState(TaskState.Submitted).withBody(encodeSessionStart(start)).validate()).not.toThrow();
    expect(() => base.withTaskState(TaskState.Working).withBody(encodeSessionStart(start)).validate()).not.toThrow();
    const tr = encodeSessionTransition({ actor: src, acknowledges: new LogPosition(1, 2, 3, 4n) });
    expect(() => base.withTaskState(TaskState.Working).withBody(tr).validate()).not.toThrow();
    expect(() => base.withTaskState(TaskState.Paused).withBody(tr).validate()).not.toThrow();
    const end = encodeSessionEnd({ reason: 'budget', error: { code: 7, message: 'over budget', retryable: false } });
    expect(() => base.withTaskState(TaskState.Failed).withBody(end).terminal().validate()).not.toThrow();
  });

  it('needs task_state and a body; last must match the terminal state', () => {
    expect(invalid(base).message).toBe('status requires `task_state`');
    expect(invalid(base.withTaskState(TaskState.Working)).message).toBe('status requires `body`');
    const end = encodeSessionEnd({});
    expect(invalid(base.withTaskState(TaskState.Completed).withBody(end))).toEqual({
      message: '`last`: session last must match terminal task state',
      field: 'last',
    });
    expect(invalid(base.withTaskState(TaskState.Working).withBody(encodeSessionStart(start)).terminal()).field).toBe('last');
  });

  it('a start must pass its own rules and match the envelope ancestry', () => {
    const withParent = encodeSessionStart({ ...start, parent: other });
    expect(invalid(base.withTaskState(TaskState.Submitted).withBody(withParent))).toEqual({
      message: '`body`: session ancestry must match envelope parent and root',
      field: 'body',
    });
    expect(() => base.withTaskState(TaskState.Submitted).withBody(withParent).withParent(other).validate()).not.toThrow();
    const badLabel = encodeSessionStart({ ...start, label: 'a\u0007b' });
    expect(invalid(base.withTaskState(TaskState.Submitted).withBody(badLabel)).message).toBe(
      '`body`: session label exceeds its cap or contains a control character',
    );
    const tooManyTags = encodeSessionStart({ ...start, tags: Array.from({ length: 17 }, (_, i) => `t${i}`) });
    expect(invalid(base.withTaskState(TaskState.Submitted).withBody(tooManyTags)).message).toBe('`body`: session has too many tags');
    expect(invalid(base.withTaskState(TaskState.Submitted).withBody(new Uint8Array([0xa0]))).message).toBe(
      '`body`: missing required field `agent` in session start',
    );
    expect(invalid(base.withTaskState(TaskState.Submitted).withBody(new Uint8Array([0x01]))).field).toBe('body');
  });

  it('session bodies round-trip', () => {
    const full: SessionStart = {
      label: 'l',
      namespace: 'ns',
      agent: src,
      sdk: { language: 'typescript', version: '1' },
      parent: other,
      root: third,
      idleTimeoutMicros: 300_000_000n,
      budget: { tokens: 1000n, costMicros: 5n },
      tags: ['x', 'y'],
    };
    const back = decodeSessionStart(encodeSessionStart(full));
    expect(encodeSessionStart(back)).toEqual(encodeSessionStart(full));
    expect(back.agent.value).toBe('planner');
    expect(decodeSessionTransition(encodeSessionTransition({})).actor).toBeUndefined();
    const end = decodeSessionEnd(encodeSessionEnd({ reason: 'forced', error: { code: 5, retryable: true, detail: new Map([['n', 1n]]) } }));
    expect(end.error?.detail?.get('n')).toBe(1n);
    expect(end.error?.retryable).toBe(true);
  });
});

describe('refinements are immutable', () => {
  it('with… returns a new envelope and leaves the original untouched', () => {
    const a = AgentEnvelope.command(rec, conv, src, corr, body);
    const b = a.withTarget(AgentId.new('worker')).withMetadata('role', 'user').withMetadata('n', 1n);
    expect(a.target).toBeUndefined();
    expect(a.metadata).toBeUndefined();
    expect([...(b.metadata ?? [])]).toEqual([
      ['role', 'user'],
      ['n', 1n],
    ]);
    expect(b.withMetadata('role', 'system').metadata?.get('role')).toBe('system');
    expect(b.withSignature(undefined).signature).toBeUndefined();
  });
});
