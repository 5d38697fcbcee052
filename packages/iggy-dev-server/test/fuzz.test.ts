import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CommandCode,
  Operation,
  encodeClassicRequest,
  encodeVsrRequestFrame,
  operationForCode,
  encodeCreateConsumerGroupRequest,
  encodeCreateStreamRequest,
  encodeCreateTopicRequest,
  encodeGroupTarget,
  encodePollMessagesRequest,
  encodeSendMessagesRequest,
  encodeStoreConsumerOffsetRequest,
  headerValue,
  initChecksums,
  partitioning,
} from '@agdx/iggy-protocol';
import type { IggyProtocol } from '@agdx/iggy-protocol';
import { startDevServer } from '@agdx/iggy-dev-server';
import type { DevServer } from '@agdx/iggy-dev-server';
import { RawClient } from './helpers/raw-client.js';
import { createTopic, pollFrom, sendTexts, textsOf } from './helpers/ops.js';

/** A small deterministic PRNG (mulberry32), so every run sends the same frames. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEED = 0x1661;
const CONNECTIONS = 200;
const FRAMES_PER_CONNECTION = 20;
const internalErrors: unknown[] = [];
let server: DevServer;

beforeAll(async () => {
  await initChecksums();
  server = await startDevServer({ port: 0, maxFrameSize: 256 * 1024, onInternalError: (e) => internalErrors.push(e) });
  const c = await RawClient.connect(server.port, 'vsr');
  await c.login();
  await createTopic(c, 'fuzz', 't', 2);
  await sendTexts(c, 'fuzz', 't', 0, ['seed']);
  c.close();
});
afterAll(async () => {
  await server.close();
});

/** Valid bodies of many commands, the raw material for mutations. */
function validFrames(protocol: IggyProtocol, rand: () => number): Uint8Array[] {
  let request = 1n;
  const frame = (code: number, body: Uint8Array): Uint8Array => {
    if (protocol === 'classic') return encodeClassicRequest(code, body);
    const operation = operationForCode(code);
    return encodeVsrRequestFrame({ client: 7n, request: request++, session: 1n, operation, code: operation === Operation.NonReplicated ? code : 0 }, body);
  };
  const name = `f${Math.floor(rand() * 1e6)}`;
  return [
    frame(CommandCode.Ping, new Uint8Array(0)),
    frame(CommandCode.CreateStream, encodeCreateStreamRequest({ name }, protocol)),
    frame(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream: 'fuzz', name, partitionsCount: 1 + Math.floor(rand() * 3) }, protocol)),
    frame(CommandCode.SendMessages, encodeSendMessagesRequest({ stream: 'fuzz', topic: 't', partitioning: partitioning.key(name), messages: [{ payload: Uint8Array.of(1, 2, 3), headers: new Map([['k', headerValue.uint32(7)]]) }] }, protocol)),
    frame(CommandCode.PollMessages, encodePollMessagesRequest({ consumer: { kind: 'consumer', id: 1 }, stream: 'fuzz', topic: 't', partitionId: 0, strategy: { kind: 'first' }, count: 10, autoCommit: rand() < 0.5 })),
    frame(CommandCode.StoreConsumerOffset, encodeStoreConsumerOffsetRequest({ consumer: { kind: 'consumer', id: 2 }, stream: 'fuzz', topic: 't', partitionId: 0, offset: 0n }, protocol)),
    frame(CommandCode.CreateConsumerGroup, encodeCreateConsumerGroupRequest({ stream: 'fuzz', topic: 't', name })),
    frame(CommandCode.JoinConsumerGroup, encodeGroupTarget({ stream: 'fuzz', topic: 't', group: name })),
  ];
}

function mutate(frame: Uint8Array, rand: () => number): Uint8Array {
  const kind = Math.floor(rand() * 5);
  if (kind === 0) return Uint8Array.from({ length: Math.floor(rand() * 600) }, () => Math.floor(rand() * 256));
  if (kind === 1) return frame.subarray(0, Math.floor(rand() * frame.length));
  if (kind === 2) {
    const out = new Uint8Array(frame.length + Math.floor(rand() * 64));
    out.set(frame);
    for (let i = frame.length; i < out.length; i++) out[i] = Math.floor(rand() * 256);
    return out;
  }
  const out = frame.slice();
  const flips = 1 + Math.floor(rand() * 8);
  for (let i = 0; i < flips; i++) {
    const at = Math.floor(rand() * out.length);
    out[at] = kind === 3 ? Math.floor(rand() * 256) : (out[at] ?? 0) ^ (1 << Math.floor(rand() * 8));
  }
  return out;
}

describe('fuzz', () => {
  it(`survives ${CONNECTIONS * FRAMES_PER_CONNECTION} random and mutated frames (seed ${SEED}) and keeps serving a correct client`, async () => {
    const rand = prng(SEED);
    for (let i = 0; i < CONNECTIONS; i++) {
      const protocol: IggyProtocol = rand() < 0.5 ? 'vsr' : 'classic';
      const c = await RawClient.connect(server.port, protocol);
      if (rand() < 0.7) {
        // Most fuzz connections log in first so mutations reach the command handlers.
        const login = await c.login();
        expect(login.ok).toBe(true);
      }
      const valid = validFrames(protocol, rand);
      for (let j = 0; j < FRAMES_PER_CONNECTION && !c.closed; j++) {
        const base = valid[Math.floor(rand() * valid.length)] as Uint8Array;
        c.write(rand() < 0.15 ? base : mutate(base, rand));
      }
      // Whatever the server answers (or not), it must not crash: give it a moment, then hang up.
      await c.nextFrame(20);
      c.close();
    }
    await expect.poll(() => server.connectionCount(), { timeout: 10_000 }).toBe(0);
    expect(internalErrors).toEqual([]);

    for (const protocol of ['vsr', 'classic'] as const) {
      const c = await RawClient.connect(server.port, protocol);
      expect((await c.login()).ok).toBe(true);
      await sendTexts(c, 'fuzz', 't', 1, [`after-fuzz-${protocol}`]);
      const polled = await pollFrom(c, 'fuzz', 't', 1, 0n);
      expect(textsOf(polled)).toContain(`after-fuzz-${protocol}`);
      expect(polled.messages.map((m) => m.offset)).toEqual(polled.messages.map((_, i) => BigInt(i)));
      c.close();
    }
    await expect.poll(() => server.connectionCount(), { timeout: 10_000 }).toBe(0);
  }, 60_000);
});
