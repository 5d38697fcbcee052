/**
 * Seed 000 "Trust boundary": with a verifier, quarantine and unquarantine records count only with
 * a valid operator signature; without one, write access to the registry topic is the only gate.
 */
import { describe, expect, it } from 'vitest';
import { AgdxClient, AgentTopic, quarantine, readQuarantine, unquarantine } from '@agdx/agents';
import { KeyRegistry, SigningKey } from '@agdx/sign';
import { MemoryLog } from '@agdx/transport';
import { AgentEnvelope, AgentId, ContentType, MintUlid, RecordId } from '@agdx/wire';

async function setup(): Promise<{ log: MemoryLog; laser: AgdxClient; operator: SigningKey; agentKey: SigningKey; registry: KeyRegistry }> {
  const log = new MemoryLog();
  const laser = AgdxClient.from(log, { stream: 'trust' });
  await laser.bootstrap(2);
  const operator = SigningKey.fromBytes(new Uint8Array(32).fill(1));
  const agentKey = SigningKey.fromBytes(new Uint8Array(32).fill(2));
  const registry = new KeyRegistry();
  registry.enroll('ops', operator.verifyingKey, 'operator');
  registry.enroll('worker', agentKey.verifyingKey, 'agent');
  return { log, laser, operator, agentKey, registry };
}

describe('quarantine facts', () => {
  it('without a verifier, every well-formed fact counts, in log order', async () => {
    const { laser } = await setup();
    expect((await readQuarantine(laser)).quarantined.size).toBe(0); // no registry topic yet
    await quarantine(laser, 'rogue', { operator: 'ops' });
    await quarantine(laser, AgentId.new('noisy'), { operator: 'ops' });
    await unquarantine(laser, 'noisy', { operator: 'ops' });
    const view = await readQuarantine(laser);
    expect([...view.quarantined]).toEqual(['rogue']);
    expect(view.isQuarantined('rogue')).toBe(true);
    expect(view.isQuarantined(AgentId.new('noisy'))).toBe(false);
    expect(view.applied).toBe(3);
  });

  it('with a verifier, only operator-signed facts count: unsigned, agent-signed, posing and tampered ones are ignored', async () => {
    const { log, laser, operator, agentKey, registry } = await setup();
    await quarantine(laser, 'unsigned-target', { operator: 'ops' });
    await quarantine(laser, 'agent-signed-target', { operator: 'worker', signer: agentKey });
    // The operator's key, but the fact claims to come from another operator.
    await quarantine(laser, 'posing-target', { operator: 'root', signer: operator });
    await quarantine(laser, 'genuine-target', { operator: 'ops', signer: operator });
    // A copy of the signed fact whose body names another target, under a fresh record id, no
    // longer verifies; the genuine record appended again applies once only.
    const partitions = (await log.describeTopic({ stream: 'trust', topic: AgentTopic.Registry })).partitions;
    for (const { partition, nextOffset } of partitions) {
      for (const record of await log.read({ stream: 'trust', topic: AgentTopic.Registry, partition, offset: 0n, maxCount: Number(nextOffset) })) {
        const envelope = AgentEnvelope.decode(record.payload);
        if (new TextDecoder().decode(envelope.body) !== 'genuine-target') continue;
        const forged = envelope.with({ record: MintUlid.mint(RecordId), body: new TextEncoder().encode('forged-target') });
        expect(forged.signature).toBeDefined();
        await log.append({ stream: 'trust', topic: AgentTopic.Registry, records: [{ headers: record.headers, payload: forged.encode() }], routing: { partition } });
        await log.append({ stream: 'trust', topic: AgentTopic.Registry, records: [{ headers: record.headers, payload: record.payload }], routing: { partition } });
      }
    }
    const verified = await readQuarantine(laser, { verifier: registry });
    expect([...verified.quarantined]).toEqual(['genuine-target']);
    expect(verified.applied).toBe(1);
    expect(verified.ignored).toBe(5);
    // The client's own verifier is the default; `null` turns verification off explicitly.
    const verifying = AgdxClient.from(log, { stream: 'trust', verifier: registry });
    expect([...(await readQuarantine(verifying)).quarantined]).toEqual(['genuine-target']);
    expect((await readQuarantine(verifying, { verifier: null })).quarantined.has('unsigned-target')).toBe(true);
  });

  it('an operator-signed unquarantine lifts the quarantine; an agent-signed one does not', async () => {
    const { laser, operator, agentKey, registry } = await setup();
    await quarantine(laser, 'a', { operator: 'ops', signer: operator });
    await quarantine(laser, 'b', { operator: 'ops', signer: operator });
    await unquarantine(laser, 'a', { operator: 'worker', signer: agentKey });
    await unquarantine(laser, 'b', { operator: 'ops', signer: operator });
    const view = await readQuarantine(laser, { verifier: registry });
    expect([...view.quarantined]).toEqual(['a']);
  });

  it('facts are status records on agent.registry with the target id as body', async () => {
    const { log, laser } = await setup();
    await quarantine(laser, 'x', { operator: 'ops' });
    const [p] = (await log.describeTopic({ stream: 'trust', topic: AgentTopic.Registry })).partitions.filter((d) => d.nextOffset > 0n);
    const [record] = await log.read({ stream: 'trust', topic: AgentTopic.Registry, partition: p!.partition, offset: 0n });
    const envelope = AgentEnvelope.decode(record!.payload);
    expect([envelope.kind, envelope.operation, new TextDecoder().decode(envelope.body)]).toEqual(['status', 'quarantine', 'x']);
    expect(record!.headers.get('agdx.ct')?.value[0]).toBe(ContentType.raw);
    await expect(quarantine(laser, 3 as never, { operator: 'ops' })).rejects.toSatisfy((e: unknown) => (e as { kind?: string }).kind === 'invalid');
  });
});
