import { readAgentMessage } from '@agdx/agents';
import {
  A2aBridge,
  a2aSignableCard,
  buildAgentCard,
  CARD_JWS_TYPE,
  canonicalCardJson,
  cardSigningInput,
  contentRefMode,
  signedCard,
  taskFromEnvelope,
  verifyCard,
  type A2aTask,
  type CardSignature,
} from '@agdx/bridge-a2a';
import { SigningKey } from '@agdx/sign';
import { AgdxError, ContentType, readBridgeHops, taskStateDisplay, type AgentEnvelope, type CapabilityDescriptor, type ContentRef } from '@agdx/wire';
import { afterAll, describe, expect, it } from 'vitest';
import { contentTypeOf, Divergences, envelopeOf, hex, memoryClient, oracle, publishedEnvelopes, STREAM, type LogicalEnvelope, type PublishedBatch } from '@agdx/bridge-testing';

type Case = Record<string, unknown> & { readonly id: string };
const a2a = oracle<{ sections: Record<string, Case[]> }>('a2a.json');
const divergences = new Divergences(new URL('./expectations/a2a.json', import.meta.url));
const handled = new Set(['cards', 'card_signatures', 'card_verify', 'content_ref_modes', 'tasks', 'rpc']);
const allIds = new Set(Object.values(a2a.sections).flatMap((cases) => cases.map((c) => c.id)));

interface FixtureRef {
  readonly kind: 'contentType' | 'schemaId';
  readonly value: string;
}

function contentRef(ref: FixtureRef): ContentRef {
  if (ref.kind === 'schemaId') return { kind: 'schemaId', schemaId: ref.value };
  const code = (ContentType as Record<string, number>)[ref.value];
  if (code === undefined) throw new Error(`unknown content type ${ref.value} in fixture`);
  return { kind: 'contentType', contentType: code };
}

function capability(raw: { skillId: string; input?: FixtureRef; output?: FixtureRef }): CapabilityDescriptor {
  return {
    skillId: raw.skillId,
    ...(raw.input !== undefined ? { input: contentRef(raw.input) } : {}),
    ...(raw.output !== undefined ? { output: contentRef(raw.output) } : {}),
  };
}

/** Our task model in the reference's JSON form: it checks the state and artifact mapping, not the A2A JSON. */
function referenceTaskForm(task: A2aTask): unknown {
  const code = task.state.kind === 'known' ? undefined : task.state.code;
  const display = task.state.kind === 'known' ? taskStateDisplay(stateCode(task.state.name)) : taskStateDisplay(code ?? 0);
  return { id: task.id, status: { state: display }, ...(task.artifacts.length > 0 ? { artifacts: task.artifacts } : {}) };
}

const STATE_CODES: Record<string, number> = { Submitted: 1, Working: 2, InputRequired: 3, Completed: 4, Canceled: 5, Failed: 6, Rejected: 7, AuthRequired: 8, Unknown: 9, Paused: 10 };
function stateCode(name: string): number {
  const code = STATE_CODES[name];
  if (code === undefined) throw new Error(`no code for ${name}`);
  return code;
}

function headerJson(signature: CardSignature): unknown {
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(signature.protected.replace(/-/g, '+').replace(/_/g, '/')), (ch) => ch.charCodeAt(0))));
}

const cardKeySeed = (a2a.sections['cards'] ?? [])[0]?.['signer_seed_hex'] as string;

describe('oracle a2a.json', () => {
  it('has no section this test does not handle', () => {
    expect(Object.keys(a2a.sections).filter((s) => !handled.has(s))).toEqual([]);
  });

  describe('cards', () => {
    it.each((a2a.sections['cards'] ?? []).map((c) => [c.id, c] as const))('%s', async (id, c) => {
      const caps = (c['capabilities'] as Parameters<typeof capability>[0][]).map(capability);
      const { laser } = await memoryClient(1);
      const bridge = new A2aBridge(laser, c['bridge_name'] as string, 'agent.commands', 'agent.responses').withCapabilities(caps);
      expect(bridge.card()).toEqual(buildAgentCard(c['bridge_name'] as string, caps));
      divergences.compare(id, bridge.card(), c['card']);
      // Signing the reference's own card reproduces its signed card byte for byte.
      const key = SigningKey.fromBytes(hex(c['signer_seed_hex'] as string));
      expect(cardSigningInput(c['card'])).toBe(c['jws_signing_input']);
      expect(await signedCard(c['card'] as object, key)).toEqual(c['signed_card']);
      // And our card, signed by the bridge, verifies.
      const ours = await bridge.signedCard(key);
      const [signature] = ours.signatures;
      await verifyCard(ours, signature!, key.verifyingKey);
      // The bridge signs in A2A's form (recorded per case as `<id>/signed_card`): a header naming
      // the key with typ, over the card without its empty members, where the reference signed
      // with the seed's bare header.
      const reference = c['signed_card'] as { signatures: CardSignature[] };
      divergences.markChecked(`${id}/signed_card`);
      expect(JSON.parse(JSON.stringify(ours))).not.toEqual(reference);
      expect(headerJson(reference.signatures[0]!)).toEqual({ alg: 'EdDSA' });
      expect(headerJson(signature!)).toEqual({ alg: 'EdDSA', kid: key.registryKey, typ: CARD_JWS_TYPE });
      expect({ ...ours, signatures: undefined }).toEqual({ ...a2aSignableCard(bridge.card()), signatures: undefined });
    });
  });

  describe('card_signatures', () => {
    it.each((a2a.sections['card_signatures'] ?? []).map((c) => [c.id, c] as const))('%s', async (id, c) => {
      const key = SigningKey.fromBytes(hex(cardKeySeed));
      if (c['ok'] !== true) {
        const error = await Promise.resolve()
          .then(() => signedCard(c['card'] as object, key))
          .then(() => undefined, (e: unknown) => e);
        const expected = c['error'] as { kind: string; message: string };
        expect(AgdxError.is(error, expected.kind as never)).toBe(true);
        expect((error as Error).message).toBe(expected.message);
        return;
      }
      const signed = await signedCard(c['card'] as object, key);
      const signature = signed.signatures.at(-1)!;
      await verifyCard(signed, signature, key.verifyingKey);
      if (!divergences.has(id)) {
        expect(canonicalCardJson(c['card'])).toBe(c['payload_json']);
        expect(cardSigningInput(c['card'])).toBe(c['signing_input']);
        expect(signature).toEqual(c['jws']);
        return;
      }
      // The recorded quirk: 0.1.1 sorted keys by locale collation; we sort by UTF-16 code unit.
      divergences.markChecked(id);
      expect(canonicalCardJson(c['card'])).not.toBe(c['payload_json']);
      await expect(verifyCard(c['card'], c['jws'] as CardSignature, key.verifyingKey)).rejects.toThrow('card signature does not verify');
    });
  });

  describe('card_verify', () => {
    it.each((a2a.sections['card_verify'] ?? []).map((c) => [c.id, c] as const))('%s', async (_id, c) => {
      const outcome = await verifyCard(c['card'], c['signature'] as CardSignature, hex(c['verifying_key_hex'] as string)).then(
        () => undefined,
        (e: unknown) => e,
      );
      if (c['ok'] === true) {
        expect(outcome).toBeUndefined();
        return;
      }
      const expected = c['error'] as { kind: string; message: string };
      expect(AgdxError.is(outcome, expected.kind as never)).toBe(true);
      expect((outcome as Error).message).toBe(expected.message);
    });
  });

  describe('content_ref_modes', () => {
    it.each((a2a.sections['content_ref_modes'] ?? []).map((c) => [c.id, c] as const))('%s', (id, c) => {
      divergences.compare(id, contentRefMode(contentRef(c['ref'] as FixtureRef)), c['mode']);
    });
  });

  describe('tasks', () => {
    it.each((a2a.sections['tasks'] ?? []).map((c) => [c.id, c] as const))('%s', (id, c) => {
      const task = taskFromEnvelope(c['task_id'] as string, envelopeOf(c['envelope'] as LogicalEnvelope));
      divergences.compare(id, referenceTaskForm(task), c['task_json']);
    });
  });

  describe('rpc', () => {
    it.each((a2a.sections['rpc'] ?? []).map((c) => [c.id, c] as const))('%s', async (id, c) => {
      const { log, laser } = await memoryClient(1);
      const makeBridge = () => new A2aBridge(laser, 'a2a-bridge', 'agent.commands', 'agent.responses');
      if (c['construction_error'] !== undefined) {
        const expected = c['construction_error'] as { message: string };
        const bridge = makeBridge();
        expect(() => bridge.withBridgeHops([bridge.id.value])).toThrow(expected.message);
        return;
      }
      const bridge = makeBridge();
      if (c['bridge_hops_previous'] !== undefined) bridge.withBridgeHops(c['bridge_hops_previous'] as string[]);
      let key: SigningKey | undefined;
      if (c['signing_key_seed_hex'] !== undefined) {
        key = SigningKey.fromBytes(hex(c['signing_key_seed_hex'] as string));
        bridge.withSigningKey(key);
      }
      for (const reply of (c['context_replies'] as LogicalEnvelope[] | undefined) ?? []) {
        await laser.publish('agent.responses', envelopeOf(reply), contentTypeOf(reply));
      }
      const before = await recordsOn(log, ['agent.commands', 'agent.responses']);
      const response = (await bridge.handleRpc(c['request'])) as { result?: unknown };
      const published = (await recordsOn(log, ['agent.commands', 'agent.responses'])).slice(before.length);
      const expected = c['response'] as { result?: { id?: string } };

      // Task ids are random; the reference's ids are data. Put its id in place of ours.
      let ours: unknown = response;
      const ourId = (response.result as { task?: { id?: string } } | undefined)?.task?.id;
      if (ourId !== undefined && expected.result?.id !== undefined) ours = JSON.parse(JSON.stringify(response).replaceAll(ourId, expected.result.id));
      divergences.compare(id, ours, expected);

      const reference = publishedEnvelopes((c['published'] as PublishedBatch[] | undefined) ?? []);
      expect(published.map((p) => p.topic)).toEqual(reference.map((r) => r.topic));
      reference.forEach((ref, i) => {
        const mine = published[i]!;
        expect(mine.contentType).toBe(ref.contentType);
        expect(sameShape(mine.envelope, key)).toEqual(sameShape(ref.envelope, key));
      });
    });
  });

  afterAll(() => divergences.expectNoStaleEntries(new Set([...allIds, ...(a2a.sections['cards'] ?? []).map((c) => `${c.id}/signed_card`)])));
});

function sameShape(envelope: AgentEnvelope, key: SigningKey | undefined): unknown {
  return {
    kind: envelope.kind,
    source: envelope.source.value,
    target: envelope.target?.value,
    operation: envelope.operation,
    tool: envelope.tool,
    taskState: envelope.taskState,
    hops: readBridgeHops(envelope.metadata),
    body: Array.from(envelope.body ?? []),
    correlationIsConversation: envelope.correlation?.equals(envelope.conversation) ?? false,
    signed: envelope.signature !== undefined,
    keyId: key !== undefined && envelope.signature !== undefined ? Array.from(envelope.signature.keyId ?? []) : undefined,
  };
}

async function recordsOn(log: Awaited<ReturnType<typeof memoryClient>>['log'], topics: string[]): Promise<{ topic: string; envelope: AgentEnvelope; contentType: number | undefined }[]> {
  const out: { topic: string; envelope: AgentEnvelope; contentType: number | undefined }[] = [];
  for (const topic of topics) {
    const description = await log.describeTopic({ stream: STREAM, topic });
    for (const p of description.partitions) {
      for (const record of await log.read({ stream: STREAM, topic, partition: p.partition, offset: 0n, maxCount: 10_000 })) {
        const message = readAgentMessage(record, { stream: STREAM, topic });
        if (message.envelope !== undefined) out.push({ topic, envelope: message.envelope, contentType: message.contentType });
      }
    }
  }
  return out;
}
