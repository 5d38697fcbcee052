// Seed 002 (Interop), "Sign and verify the Agent Card", TypeScript.
// Imports, the client construction, a `bridge` and a 32-byte `secret` are added. Divergences from
// the seed text (listed in examples/README.md): in @agdx/bridge-a2a and @agdx/sign, signedCard
// and verifyCard are async (WebCrypto signs asynchronously), so they are awaited, and
// `verifyingKey` is a getter, so `key.verifyingKey()` is written `key.verifyingKey`.
import { AgdxClient, AgentTopic } from '@agdx/agents';
import { A2aBridge, verifyCard } from '@agdx/bridge-a2a';
import { SigningKey } from '@agdx/sign';
import { MemoryLog } from '@agdx/transport';
import { AgentId } from '@agdx/wire';

const laser = AgdxClient.from(new MemoryLog(), { stream: 'demo' });
await laser.bootstrap(4);
const bridge = new A2aBridge(laser, AgentId.new('a2a-gateway'), AgentTopic.Sessions, AgentTopic.Sessions);
const secret = crypto.getRandomValues(new Uint8Array(32));

// --- seed text ---
const key = SigningKey.fromBytes(secret)
const signed = await bridge.signedCard(key)
const [signature] = signed.signatures ?? []
if (signature !== undefined) {
  await verifyCard(signed, signature, key.verifyingKey)
}
// --- end of seed text ---

if (signature === undefined) throw new Error('the signed card carries no signature');
console.log(`card signed and verified (protected header ${signature.protected.slice(0, 24)}…)`);
await laser.close();
