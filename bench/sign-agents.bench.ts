// Signed agent round trips on MemoryLog, one in flight, per Ed25519 back end: the requester signs
// its command, the agent verifies it (a KeyRegistry as its verifier) and signs its answer, the
// requester's client verifies the answer (a KeyRegistry as the client's verifier). So each round
// trip is two signatures and two verifications through @agdx/agents' Signer / Verifier seams,
// with no change to @agdx/agents. Ours: the default back end (`auto`: node-crypto on Node);
// baseline: the same world with `webcrypto` forced (the default before the node-crypto back end);
// both worlds live in the same process and run in alternating rounds, rates per CPU second.
// Run: pnpm bench sign-agents  → one JSON object on stdout.
import { AgdxClient, Agent, AgentTopic } from '@agdx/agents';
import type { Ed25519BackendChoice } from '@agdx/sign';
import { KeyKind, KeyRegistry, resolveEd25519Backend, SigningKey } from '@agdx/sign';
import { MemoryLog } from '@agdx/transport';
import { AgentId, ConversationId, CorrelationId, MintUlid } from '@agdx/wire';
import { compareAlternating, sinkBit } from './support/alternating.js';
import type { Contender } from './support/alternating.js';
import { machine } from './support/machine.js';

const ROUNDS = 11;
const BODY = new TextEncoder().encode('summarize incident 42');

async function world(backend: Ed25519BackendChoice) {
  const plannerKey = SigningKey.fromBytes(new Uint8Array(32).fill(3), { backend });
  const echoKey = SigningKey.fromBytes(new Uint8Array(32).fill(4), { backend });
  const registry = new KeyRegistry({ backend });
  registry.enroll('planner', plannerKey, KeyKind.Agent);
  registry.enroll('echo', echoKey, KeyKind.Agent);
  const laser = AgdxClient.from(new MemoryLog(), { stream: `signed-${backend}`, verifier: registry });
  await laser.bootstrap(4);
  const agent = Agent.builder()
    .id('echo')
    .listenOn(AgentTopic.Commands)
    .respondOn(AgentTopic.Responses)
    .followControl(false)
    .heartbeats(false)
    .verifier(registry)
    .signingKey(echoKey)
    .handler((message, ctx) => ctx.respond(message.envelope?.body ?? BODY))
    .spawn(laser);
  await agent.ready();
  const planner = AgentId.new('planner');
  const conversation = ConversationId.new();
  const once = async (): Promise<void> => {
    const request = laser.agdx(AgentTopic.Commands, planner, conversation).command(MintUlid.mint(CorrelationId), BODY).withTarget('echo').signedBy(plannerKey);
    await laser.request(request, { replyTopic: AgentTopic.Responses, timeoutMs: 10_000 });
  };
  // Warm-up, and a check that the signed path really answers.
  for (let i = 0; i < 200; i++) await once();
  if (agent.stats.handled < 200) throw new Error(`${backend}: the agent handled ${agent.stats.handled} of 200 signed requests`);
  return {
    resolved: await resolveEd25519Backend(backend),
    contender: { run: () => once(), async: true } satisfies Contender,
    close: async () => {
      await agent.shutdown();
      await laser.close();
    },
  };
}

const before = machine();
const ours = await world('auto');
const baseline = await world('webcrypto');
const roundTrips = await compareAlternating(ours.contender, baseline.contender, { rounds: ROUNDS });
await ours.close();
await baseline.close();

console.log(
  JSON.stringify(
    {
      name: 'sign-agents',
      machineBefore: before,
      machineAfter: machine(),
      method: {
        rounds: ROUNDS,
        workload: 'one signed command and one signed answer per round trip, each verified (agent verifier and client verifier), MemoryLog, 1 in flight',
        rate: 'round trips per CPU second of this process (user + system, all threads)',
        ratio: `ours (${ours.resolved}) / baseline (${baseline.resolved}) of the CPU-second rates within each round`,
      },
      ours: ours.resolved,
      baseline: baseline.resolved,
      roundTrips,
      sink: sinkBit(),
    },
    null,
    2,
  ),
);
