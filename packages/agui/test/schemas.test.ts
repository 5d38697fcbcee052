import { AguiConverter, AguiEventType, envelopesToAgUi, parseEventId, formatEventId, formatEventIds, MAX_EVENT_ID_POSITIONS, parseEventIds, type AguiEvent } from '@agdx/agui';
import {
  AgdxError,
  AgentEnvelope,
  AgentId,
  ChannelId,
  ConversationId,
  CorrelationId,
  MintUlid,
  RecordId,
  STATE_DELTA_OPERATION,
  STATE_SNAPSHOT_OPERATION,
  encodeAgentErrorBody,
  encodeStateDelta,
  encodeStateSnapshot,
} from '@agdx/wire';
import { EventSchema } from '@ag-ui/core/schemas';
import { describe, expect, it } from 'vitest';
import { newLog, writeAnswer } from './support/scenario.js';

const text = new TextEncoder();

/** A small seeded PRNG (mulberry32) so failures reproduce. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The AG-UI pairing rules HttpAgent enforces, per message / tool call id. */
function checkPairing(events: readonly AguiEvent[]): void {
  const open = new Map<string, string>();
  const key = (e: AguiEvent): string => ('messageId' in e ? `m:${e.messageId}` : 'toolCallId' in e ? `t:${e.toolCallId}` : '');
  for (const e of events) {
    if (e.type.endsWith('_START') && e.type !== 'RUN_STARTED') {
      expect(open.has(key(e)), `${e.type} twice for ${key(e)}`).toBe(false);
      open.set(key(e), e.type);
    } else if (e.type.endsWith('_CONTENT') || e.type === 'TOOL_CALL_ARGS') {
      expect(open.has(key(e)), `${e.type} without START`).toBe(true);
    } else if (e.type.endsWith('_END')) {
      expect(open.delete(key(e)), `${e.type} without START`).toBe(true);
    }
  }
}

describe('every produced event validates against the official @ag-ui/core schemas', () => {
  it('covers every event type the package can produce', async () => {
    const { laser, bridge } = await newLog();
    const done = await writeAnswer(laser, bridge);
    const failed = await writeAnswer(laser, bridge, ConversationId.new(), async () => undefined, 'Failed');
    const events = [...(await bridge.aguiEvents(done.conversation)), ...(await bridge.aguiEvents(failed.conversation))];
    const types = new Set(events.map((e) => e.type));
    // CUSTOM comes only with the opt-in agdxEvents (agdx-events.test.ts); the reference mapping covers the rest.
    expect([...types].sort()).toEqual(Object.values(AguiEventType).filter((type) => type !== 'CUSTOM').sort());
    for (const event of events) {
      const parsed = EventSchema.safeParse(event);
      expect(parsed.success, JSON.stringify(event)).toBe(true);
    }
  });

  it('hostile and random records never throw, always validate and keep START/END pairing', () => {
    const next = rng(0xa9e1);
    const pick = <T,>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const bytes = (n: number): Uint8Array => Uint8Array.from({ length: n }, () => Math.floor(next() * 256));
    const conversation = ConversationId.new();
    const source = AgentId.new('fuzz');
    const channels = Array.from({ length: 5 }, () => MintUlid.mint(ChannelId));
    const correlation = MintUlid.mint(CorrelationId);
    const bodies = [
      () => bytes(Math.floor(next() * 12)),
      () => text.encode('{"a":1e400,"b":[1,2,{"c":null}]}'),
      () => text.encode('[{"op":"add","path":"/x","value":1}]'),
      () => text.encode('[{"op":"bogus"}]'),
      () => encodeStateSnapshot({ baseRevision: BigInt(Math.floor(next() * 3)), document: { n: Math.floor(next() * 9) } }),
      () => encodeStateDelta({ baseRevision: 0n, patch: [{ op: 'add', path: `/k${Math.floor(next() * 3)}`, value: 'v' }], opId: pick(['a', 'b', 'c']) }),
      () => encodeAgentErrorBody({ code: 1, message: 'boom', retryable: false }),
      () => Uint8Array.of(0xf0, 0x9f, 0xa4),
      () => Uint8Array.of(0x96),
    ];
    for (let round = 0; round < 40; round++) {
      const envelopes: AgentEnvelope[] = [];
      for (let i = 0; i < 40; i++) {
        const body = pick(bodies)();
        const kind = pick(['chunk', 'chunk', 'chunk', 'status', 'event', 'error', 'response'] as const);
        let e: AgentEnvelope;
        if (kind === 'chunk') {
          e = AgentEnvelope.chunk(conversation, source, correlation, pick(channels), Math.floor(next() * 4), body);
          if (e.sequence === 0n) e = e.withOperation(pick(['chat', 'reasoning', 'tool_args']));
          if (next() < 0.25) e = e.with({ last: true });
          if (next() < 0.3) e = e.withTool(pick(['search', 'weather']));
        } else if (kind === 'status') {
          e = AgentEnvelope.status(MintUlid.mint(RecordId), conversation, source, pick(['task', 'progress'])).withCorrelation(correlation).withTaskState(Math.floor(next() * 11)).withBody(body);
        } else if (kind === 'event') {
          e = AgentEnvelope.event(MintUlid.mint(RecordId), conversation, source, body).withOperation(pick([STATE_SNAPSHOT_OPERATION, STATE_DELTA_OPERATION, 'other']));
        } else {
          e = AgentEnvelope.fromFields({ kind, record: MintUlid.mint(RecordId), conversation, source, correlation, body, ...(next() < 0.5 ? { tool: 'search' } : {}) });
        }
        envelopes.push(e);
      }
      const converter = new AguiConverter();
      const converted = envelopes.flatMap((e) => converter.convert(e));
      const events = [...converted, ...converter.closeOpen()];
      expect(converter.closeOpen()).toEqual([]);
      for (const event of events) expect(EventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);
      checkPairing(events);
      expect(envelopesToAgUi(envelopes)).toEqual(converted);
    }
  });
});

describe('SSE event ids', () => {
  it('round-trip a position and refuse anything else with a typed error', () => {
    expect(parseEventId(formatEventId({ partition: 3, offset: 18446744073709551615n }))).toEqual({ partition: 3, offset: 18446744073709551615n });
    for (const bad of ['', '1', '1:', ':1', '-1:2', '1:-2', '4294967296:1', '1:18446744073709551616', '1:2:3', 'a:b', `1:${'9'.repeat(400)}`]) {
      let thrown: unknown;
      try {
        parseEventId(bad);
      } catch (error) {
        thrown = error;
      }
      expect(AgdxError.is(thrown, 'invalid'), bad).toBe(true);
    }
  });

  it('carry one position per place of a conversation spread by its layout', () => {
    const positions = [
      { partition: 1, offset: 7n },
      { partition: 3, offset: -1n },
      { partition: 0, offset: 18446744073709551615n },
    ];
    expect(formatEventIds(positions)).toBe('1:7,3:-,0:18446744073709551615');
    expect(parseEventIds(formatEventIds(positions))).toEqual(positions);
    // one place keeps the single form
    expect(formatEventIds([{ partition: 2, offset: 5n }])).toBe(formatEventId({ partition: 2, offset: 5n }));
    const tooMany = Array.from({ length: MAX_EVENT_ID_POSITIONS + 1 }, () => '0:1').join(',');
    for (const bad of ['3:-', '1:2,', ',1:2', '1:2,,3:4', '1:2,x', '1:2,3:--', tooMany]) {
      let thrown: unknown;
      try {
        parseEventIds(bad);
      } catch (error) {
        thrown = error;
      }
      expect(AgdxError.is(thrown, 'invalid'), bad.slice(0, 20)).toBe(true);
    }
  });
});
