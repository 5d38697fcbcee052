/**
 * A body too large for one record is the caller's InvalidError, raised before the body is
 * signed or encoded and before anything reaches the log; a record exactly at the log's bound
 * still goes out.
 */
import { describe, expect, it } from 'vitest';
import { AgdxClient, AgentTopic, type Signer } from '@agdx/agents';
import { MAX_PAYLOAD_BYTES } from '@agdx/transport';
import { AgdxError, AgentEnvelope, AgentId, ContentType, ConversationId, CorrelationId, MintUlid, RecordId, type SignatureContext } from '@agdx/wire';
import { recordingTransport } from './support-client/recording-transport.js';

async function setup() {
  const transport = recordingTransport();
  const laser = AgdxClient.from(transport, { stream: 'demo' });
  await laser.bootstrap(1);
  return { laser, transport };
}

/** A signer that only counts: the tests need to know whether signing (which encodes the body) began. */
function countingSigner(): Signer & { calls: number } {
  const signer = {
    keyId: new Uint8Array(8),
    calls: 0,
    sign(envelope: AgentEnvelope, _context: SignatureContext): Promise<AgentEnvelope> {
      signer.calls++;
      return Promise.resolve(envelope);
    },
  };
  return signer;
}

async function refusal(sending: Promise<unknown>): Promise<AgdxError> {
  const error = await sending.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!AgdxError.is(error)) throw new Error(`expected a typed refusal, got ${String(error)}`);
  return error;
}

describe('bodies and the log\'s record bound', () => {
  it('refuses a body of the bound or more before signing, encoding or appending it, through send() and publish()', async () => {
    const { laser, transport } = await setup();
    const before = transport.appends.length;
    const body = new Uint8Array(MAX_PAYLOAD_BYTES);
    const send = laser.agdx(AgentTopic.Sessions, 'planner', ConversationId.new());
    const signer = countingSigner();
    const refused = await refusal(send.command(MintUlid.mint(CorrelationId), body).signedBy(signer).send());
    expect(refused.kind).toBe('invalid');
    expect(refused.context).toMatchObject({ field: 'body', bytes: MAX_PAYLOAD_BYTES, cap: MAX_PAYLOAD_BYTES });
    expect(signer.calls).toBe(0);
    expect((await refusal(send.emit(new Uint8Array(MAX_PAYLOAD_BYTES + 1)).send())).kind).toBe('invalid');
    const envelope = AgentEnvelope.fromFields({ kind: 'event', record: MintUlid.mint(RecordId), conversation: ConversationId.new(), source: AgentId.new('planner'), body });
    const published = await refusal(laser.publish(AgentTopic.Sessions, envelope, ContentType.raw, { signer }));
    expect(published.kind).toBe('invalid');
    expect(signer.calls).toBe(0);
    expect(transport.appends.length).toBe(before);
  });

  it('sends an envelope whose encoding is exactly the bound, and refuses one byte more as the caller\'s error', async () => {
    const { laser, transport } = await setup();
    const send = laser.agdx(AgentTopic.Sessions, 'planner', ConversationId.new());
    // The envelope's own bytes around a body whose CBOR length prefix is as wide as the big one's.
    const probe = await send.emit(new Uint8Array(100_000)).sendReceipt();
    const overhead = transport.appends.at(-1)!.request.records[0]!.payload.length - 100_000;
    const before = transport.appends.length;
    const over = await refusal(send.emit(new Uint8Array(MAX_PAYLOAD_BYTES - overhead + 1)).send());
    expect(over.kind).toBe('invalid');
    expect(over.context).toMatchObject({ field: 'payload', bytes: MAX_PAYLOAD_BYTES + 1 });
    expect(transport.appends.length).toBe(before);
    const at = await send.emit(new Uint8Array(MAX_PAYLOAD_BYTES - overhead)).sendReceipt();
    expect(transport.appends.at(-1)!.request.records[0]!.payload.length).toBe(MAX_PAYLOAD_BYTES);
    expect(at.position.offset).toBe(probe.position.offset + 1n);
  });
});
