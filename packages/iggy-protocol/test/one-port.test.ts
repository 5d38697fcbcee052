// A dev-server-shaped composition: detect the generation from the first bytes, then split and
// answer frames with the matching session; both client generations share one "port".
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ClassicClientSession,
  ClassicRequestSplitter,
  ClassicResponseSplitter,
  ClassicServerSession,
  CommandCode,
  VsrClientSession,
  VsrFrameSplitter,
  VsrServerSession,
  decodeClassicRequest,
  decodeLoginUserRequest,
  decodePollMessagesResponse,
  decodeRegisterRequest,
  decodeSendMessagesRequest,
  decodeVsrRequestFrame,
  detectProtocolGeneration,
  encodeClassicResponse,
  encodeIdentityResponse,
  encodePollMessagesRequest,
  encodePollResponseClassic,
  encodePollResponseVsr,
  encodeRegisterReply,
  encodeSendMessagesRequest,
  encodeSendMessagesResponse,
  initChecksums,
  partitioning,
  stampMessageBatch,
} from '@agdx/iggy-protocol';
import type { DecodedSendMessages, IggyProtocol, PolledMessage } from '@agdx/iggy-protocol';
import { text, utf8 } from './helpers.js';

beforeAll(async () => {
  await initChecksums();
});

/** One connection of a toy server that stores one partition in memory. */
class Connection {
  #pending = new Uint8Array(0);
  #protocol: IggyProtocol | undefined;
  #split: VsrFrameSplitter | ClassicRequestSplitter | undefined;
  readonly #vsr = new VsrServerSession();
  readonly #classic = new ClassicServerSession();
  readonly log: { batches: Uint8Array[]; messages: PolledMessage[] };
  constructor(log: { batches: Uint8Array[]; messages: PolledMessage[] }) {
    this.log = log;
  }

  receive(chunk: Uint8Array): Uint8Array[] {
    if (this.#split === undefined) {
      const joined = new Uint8Array(this.#pending.length + chunk.length);
      joined.set(this.#pending);
      joined.set(chunk, this.#pending.length);
      const kind = detectProtocolGeneration(joined);
      if (kind === 'need-more') {
        this.#pending = joined;
        return [];
      }
      if (kind === 'unknown') throw new Error('unknown protocol');
      this.#protocol = kind;
      this.#split = kind === 'vsr' ? new VsrFrameSplitter() : new ClassicRequestSplitter();
      chunk = joined;
    }
    return this.#split.push(chunk).map((f) => (this.#protocol === 'vsr' ? this.#vsrFrame(f) : this.#classicFrame(f)));
  }

  #store(d: DecodedSendMessages): bigint {
    const base = BigInt(this.log.messages.length);
    d.messages.forEach((m, i) => this.log.messages.push({ ...m, offset: base + BigInt(i), timestamp: 1000n }));
    if (d.batch) this.log.batches.push(stampMessageBatch(d.batch.bytes, { partitionId: 0, baseOffset: base, baseTimestamp: 1000n }));
    return base;
  }

  #vsrFrame(frame: Uint8Array): Uint8Array {
    const { header, body } = decodeVsrRequestFrame(frame);
    const a = this.#vsr.admit(header);
    if (a.action === 'respond') return a.frame;
    if (a.action === 'drop') throw new Error(a.reason);
    if (a.action === 'register') {
      decodeRegisterRequest(body);
      return this.#vsr.bind(header, 0, 77n, encodeRegisterReply({ userId: 0, session: 77n, serverProtocolVersion: 11264, serverVersion: 'toy' }));
    }
    if (a.code === CommandCode.SendMessages) {
      const base = this.#store(decodeSendMessagesRequest(body, 'vsr', { verifyChecksums: true }));
      return this.#vsr.reply(header, { payload: encodeSendMessagesResponse([{ streamId: 0, topicId: 0, partitionId: 0, baseOffset: base }]) });
    }
    if (a.code === CommandCode.PollMessages) {
      return this.#vsr.reply(header, { payload: encodePollResponseVsr(0, BigInt(this.log.messages.length - 1), this.log.batches) });
    }
    return this.#vsr.reply(header);
  }

  #classicFrame(frame: Uint8Array): Uint8Array {
    const { code, payload } = decodeClassicRequest(frame);
    const a = this.#classic.admit(code);
    if (a.action === 'deny') return encodeClassicResponse(a.status);
    if (code === CommandCode.LoginUser) {
      decodeLoginUserRequest(payload);
      this.#classic.login(0);
      return encodeClassicResponse(0, encodeIdentityResponse(0));
    }
    if (code === CommandCode.SendMessages) {
      this.#store(decodeSendMessagesRequest(payload, 'classic'));
      return encodeClassicResponse(0);
    }
    if (code === CommandCode.PollMessages) {
      const stored = this.log.messages.map((m) => ({ ...m, checksum: undefined }));
      return encodeClassicResponse(0, encodePollResponseClassic(0, BigInt(stored.length - 1), stored));
    }
    return encodeClassicResponse(0);
  }
}

function trickle(conn: Connection, frame: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < frame.length; i += 5) out.push(...conn.receive(frame.subarray(i, i + 5)));
  return out;
}

describe('one port, both generations', () => {
  it('a VSR client sends and polls', () => {
    const conn = new Connection({ batches: [], messages: [] });
    const client = new VsrClientSession();
    const split = new VsrFrameSplitter();
    const roundTrip = (frame: Uint8Array) => trickle(conn, frame).flatMap((f) => split.push(f)).map((f) => client.handleFrame(f));
    roundTrip(client.register({ username: 'iggy', password: 'iggy' }).frame);
    const send = encodeSendMessagesRequest({ stream: 0, topic: 0, partitioning: partitioning.balanced(), messages: [{ payload: utf8('v1') }, { payload: utf8('v2') }] }, 'vsr');
    expect(roundTrip(client.command(CommandCode.SendMessages, send).frame)[0]?.ok).toBe(true);
    const poll = encodePollMessagesRequest({ consumer: { kind: 'consumer', id: 1 }, stream: 0, topic: 0, partitionId: 0, strategy: { kind: 'first' }, count: 10, autoCommit: false });
    const [outcome] = roundTrip(client.command(CommandCode.PollMessages, poll).frame);
    if (!outcome?.ok) throw new Error('poll failed');
    expect(decodePollMessagesResponse(outcome.payload, 'vsr', { verifyChecksums: true }).messages.map((m) => [m.offset, text(m.payload)])).toEqual([[0n, 'v1'], [1n, 'v2']]);
  });

  it('a classic client sends and polls', () => {
    const conn = new Connection({ batches: [], messages: [] });
    const client = new ClassicClientSession();
    const split = new ClassicResponseSplitter();
    const roundTrip = (frame: Uint8Array) => trickle(conn, frame).flatMap((f) => split.push(f)).map((f) => client.handleFrame(f));
    roundTrip(client.login({ username: 'iggy', password: 'iggy' }).frame);
    expect(client.state).toBe('authenticated');
    const send = encodeSendMessagesRequest({ stream: 0, topic: 0, partitioning: partitioning.balanced(), messages: [{ payload: utf8('c1') }] }, 'classic');
    expect(roundTrip(client.command(CommandCode.SendMessages, send).frame)[0]?.ok).toBe(true);
    const poll = encodePollMessagesRequest({ consumer: { kind: 'consumer', id: 1 }, stream: 0, topic: 0, strategy: { kind: 'first' }, count: 10, autoCommit: false });
    const [outcome] = roundTrip(client.command(CommandCode.PollMessages, poll).frame);
    if (!outcome?.ok) throw new Error('poll failed');
    expect(decodePollMessagesResponse(outcome.payload, 'classic', { verifyChecksums: true }).messages.map((m) => [m.offset, text(m.payload)])).toEqual([[0n, 'c1']]);
  });
});
