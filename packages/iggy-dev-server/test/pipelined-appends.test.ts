// Replies of one event-loop turn leave the server in one write, and a stored batch builds its
// frame table only when a read needs part of it. Both must be invisible to clients: pipelined
// requests get every reply, in order, and partial reads of big batches return the right records.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CommandCode,
  decodePollMessagesResponse,
  decodeSendMessagesResponse,
  encodeCreateStreamRequest,
  encodeCreateTopicRequest,
  encodePollMessagesRequest,
  encodeSendMessagesRequest,
  encodeTopicTarget,
  initChecksums,
  partitioning,
} from '@agdx/iggy-protocol';
import type { IggyProtocol } from '@agdx/iggy-protocol';
import { startDevServer } from '@agdx/iggy-dev-server';
import type { DevServer } from '@agdx/iggy-dev-server';
import { PROTOCOLS, RawClient } from './helpers/raw-client.js';

const enc = new TextEncoder();
const dec = new TextDecoder();
let server: DevServer;

beforeAll(async () => {
  await initChecksums();
  server = await startDevServer({ port: 0 });
});
afterAll(async () => {
  await server.close();
});

async function loggedIn(protocol: IggyProtocol, stream: string): Promise<RawClient> {
  const c = await RawClient.connect(server.port, protocol);
  expect((await c.login()).ok).toBe(true);
  await c.ok(CommandCode.CreateStream, encodeCreateStreamRequest({ name: stream }, protocol));
  await c.ok(CommandCode.CreateTopic, encodeCreateTopicRequest({ stream, name: 't', partitionsCount: 1 }, protocol));
  return c;
}

function sendBody(protocol: IggyProtocol, stream: string, payloads: readonly string[]): Uint8Array {
  return encodeSendMessagesRequest({ stream, topic: 't', partitioning: partitioning.partitionId(0), messages: payloads.map((p) => ({ payload: enc.encode(p) })) }, protocol);
}

async function poll(c: RawClient, stream: string, offset: bigint, count: number): Promise<string[]> {
  const body = encodePollMessagesRequest({ consumer: { kind: 'consumer', id: 1 }, stream, topic: 't', partitionId: 0, strategy: { kind: 'offset', value: offset }, count, autoCommit: false });
  const reply = decodePollMessagesResponse(await c.ok(CommandCode.PollMessages, body), c.protocol, { verifyChecksums: true });
  return reply.messages.map((m) => dec.decode(m.payload));
}

describe.each(PROTOCOLS)('%s', (protocol) => {
  it('answers every request of a pipelined burst, in order, and appends them in order', async () => {
    const stream = `pipelined-${protocol}`;
    const c = await loggedIn(protocol, stream);
    const requests = 24;
    const frames = Array.from({ length: requests }, (_, i) => {
      const body = sendBody(protocol, stream, [`r${i}-a`, `r${i}-b`]);
      return protocol === 'vsr' ? c.vsr.command(CommandCode.SendMessages, body).frame : c.classic.command(CommandCode.SendMessages, body).frame;
    });
    // One write: the server reads the whole burst in one turn and answers it in one turn.
    const burst = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
    let at = 0;
    for (const f of frames) {
      burst.set(f, at);
      at += f.length;
    }
    c.write(burst);
    const bases: bigint[] = [];
    for (let i = 0; i < requests; i++) {
      const reply = await c.nextFrame();
      if (typeof reply === 'string') throw new Error(`reply ${i}: ${reply}`);
      const outcome = protocol === 'vsr' ? c.vsr.handleFrame(reply) : c.classic.handleFrame(reply);
      expect(outcome.ok).toBe(true);
      if (outcome.ok && protocol === 'vsr') bases.push(decodeSendMessagesResponse(outcome.payload)[0]?.baseOffset ?? -1n);
    }
    if (protocol === 'vsr') expect(bases).toEqual(Array.from({ length: requests }, (_, i) => BigInt(2 * i)));
    const all = await poll(c, stream, 0n, 1000);
    expect(all).toEqual(Array.from({ length: requests }, (_, i) => [`r${i}-a`, `r${i}-b`]).flat());
    c.close();
  });

  it('a lone request after a burst is answered without further traffic', async () => {
    const stream = `lone-${protocol}`;
    const c = await loggedIn(protocol, stream);
    await c.ok(CommandCode.SendMessages, sendBody(protocol, stream, ['x']));
    expect(await poll(c, stream, 0n, 10)).toEqual(['x']);
    c.close();
  });

  it('reads parts of large batches (frame tables built on demand) and whole ones alike', async () => {
    const stream = `partial-${protocol}`;
    const c = await loggedIn(protocol, stream);
    // 200 messages of about 60 bytes: past the size the server keeps in the request frame.
    const batch = (b: number) => Array.from({ length: 200 }, (_, i) => `b${b}-m${i}-`.padEnd(60, '.'));
    await c.ok(CommandCode.SendMessages, sendBody(protocol, stream, batch(0)));
    await c.ok(CommandCode.SendMessages, sendBody(protocol, stream, batch(1)));
    expect(await poll(c, stream, 150n, 100)).toEqual([...batch(0).slice(150), ...batch(1).slice(0, 50)]);
    expect(await poll(c, stream, 203n, 3)).toEqual(batch(1).slice(3, 6));
    expect(await poll(c, stream, 0n, 400)).toEqual([...batch(0), ...batch(1)]);
    c.close();
  });

  it('small appends (copied into shared slabs) read back intact across slabs, whole and in part, and after a purge', async () => {
    const stream = `slabs-${protocol}`;
    const c = await loggedIn(protocol, stream);
    // 300 batches of 3 short messages, each batch well under the in-place size: several slabs.
    const batch = (b: number) => [`s${b}-0`, `s${b}-1`, `s${b}-2`.padEnd(40 + (b % 13), '~')];
    for (let b = 0; b < 300; b++) await c.ok(CommandCode.SendMessages, sendBody(protocol, stream, batch(b)));
    const all = Array.from({ length: 300 }, (_, b) => batch(b)).flat();
    expect(await poll(c, stream, 0n, 1000)).toEqual(all);
    expect(await poll(c, stream, 451n, 2)).toEqual(all.slice(451, 453));
    expect(await poll(c, stream, 898n, 10)).toEqual(all.slice(898));
    await c.ok(CommandCode.PurgeTopic, encodeTopicTarget({ stream, topic: 't' }));
    expect(await poll(c, stream, 0n, 10)).toEqual([]);
    await c.ok(CommandCode.SendMessages, sendBody(protocol, stream, ['after-purge']));
    expect(await poll(c, stream, 0n, 10)).toEqual(['after-purge']);
    c.close();
  });
});
