/**
 * The ordered appender (src/send/ordered-appender.ts) keeps state only for places with an append
 * in flight or queued: a long-lived client talking to thousands of conversations, topics or
 * streams keeps a bounded footprint, and every conversation's appends still land in call order.
 */
import { afterBurst } from '../src/clock/after-burst.js';
import type { BatchPosition, ClientCore } from '../src/client/client-core.js';
import type { PreparedAppend } from '../src/send/append-issuer.js';
import { MAP_SWEEP, OrderedAppender } from '../src/send/ordered-appender.js';
import { describe, expect, it } from 'vitest';

/**
 * A client core whose appends wait until `release()`, and which logs every record it stores by
 * stream, topic and routing key, in storage order.
 */
function heldCore() {
  const stored = new Map<string, string[]>();
  let held: (() => void)[] = [];
  let holding = true;
  let appends = 0;
  const store = (stream: string, topic: string, key: string, records: readonly { payload: Uint8Array }[]): BatchPosition => {
    const at = `${stream}/${topic}/${key}`;
    const list = stored.get(at) ?? [];
    const offset = BigInt(list.length);
    for (const r of records) list.push(new TextDecoder().decode(r.payload));
    stored.set(at, list);
    appends++;
    return { stream, topic, partition: 0, offset, count: records.length };
  };
  const core = {
    layout: { kind: 'shared' },
    append: (stream: string, topic: string, _kind: string, _target: unknown, key: string, records: readonly { payload: Uint8Array }[]): Promise<BatchPosition> => {
      if (!holding) return Promise.resolve(store(stream, topic, key, records));
      return new Promise((resolve) => held.push(() => resolve(store(stream, topic, key, records))));
    },
  } as unknown as ClientCore;
  return {
    core,
    stored,
    appends: () => appends,
    release(): void {
      holding = false;
      const now = held;
      held = [];
      for (const go of now) go();
    },
  };
}

function prepared(core: ClientCore, stream: string, topic: string, conversation: string, body: string): PreparedAppend {
  return { core, stream, topic, kind: 'command', target: undefined, conversationKey: conversation, records: [{ payload: new TextEncoder().encode(body) }] };
}

const CONVERSATIONS = 3000;
const PER_CONVERSATION = 3;

describe.each([
  ['sending at once', {}],
  ['holding for the burst', { holdWhile: () => true, hop: afterBurst }],
] as const)('the ordered appender %s', (_mode, options) => {
  it(`drops every conversation's place once its appends are in, over ${CONVERSATIONS} conversations, and keeps each one's order`, async () => {
    const log = heldCore();
    const appender = new OrderedAppender(options);
    const sends: Promise<BatchPosition>[] = [];
    for (let c = 0; c < CONVERSATIONS; c++) {
      for (let i = 0; i < PER_CONVERSATION; i++) sends.push(appender.append(prepared(log.core, 's', `t${c % 4}`, `conv-${c}`, `${c}:${i}`)));
    }
    // Every conversation holds one place while its appends are held.
    expect(appender.footprint()).toEqual({ streams: 1, topics: 4, places: CONVERSATIONS });
    // Let a held first append go out (for the holding mode: the drains run after the hop).
    await new Promise<void>((resolve) => afterBurst(resolve));
    log.release();
    await Promise.all(sends);
    // Nothing queued or in flight: no place is left, only the four (empty) topic maps.
    expect(appender.footprint()).toEqual({ streams: 1, topics: 4, places: 0 });
    for (let c = 0; c < CONVERSATIONS; c++) {
      expect(log.stored.get(`s/t${c % 4}/conv-${c}`)).toEqual(Array.from({ length: PER_CONVERSATION }, (_, i) => `${c}:${i}`));
    }
    // The queued appends of a conversation left together: fewer appends than sends.
    expect(log.appends()).toBeLessThan(CONVERSATIONS * PER_CONVERSATION);
  });
});

describe('the ordered appender over ever new streams and topics', () => {
  it(`keeps at most ${MAP_SWEEP} empty maps beyond the ones in use, and order on the ones in use`, async () => {
    const log = heldCore();
    log.release();
    const appender = new OrderedAppender();
    let most = 0;
    for (let n = 0; n < 2000; n++) {
      // Half the sends go to a new stream, half to a new topic of one long-lived stream.
      const [stream, topic] = n % 2 === 0 ? [`stream-${n}`, 'agent.sessions'] : ['main', `topic-${n}`];
      await appender.append(prepared(log.core, stream, topic, `conv-${n}`, `${n}`));
      const { streams, topics, places } = appender.footprint();
      expect(places).toBe(0);
      most = Math.max(most, streams + topics);
    }
    expect(most).toBeLessThanOrEqual(2 * (MAP_SWEEP + 1));
    // A conversation on a stream whose maps were swept still gets its appends in call order.
    const again = Array.from({ length: 20 }, (_, i) => appender.append(prepared(log.core, 'stream-0', 'agent.sessions', 'conv-0', `again ${i}`)));
    await Promise.all(again);
    expect(log.stored.get('stream-0/agent.sessions/conv-0')).toEqual(['0', ...Array.from({ length: 20 }, (_, i) => `again ${i}`)]);
  });
});
