// Seed 000 (AGDX reference), "Enroll and verify signing keys", TypeScript.
// Imports and the names the snippet assumes (a 32-byte `secret`, a signed `envelope`) are added.
// One divergence from the seed text: `verifyingKey` is a getter in @agdx/sign, so the seed's
// `key.verifyingKey()` is written `key.verifyingKey` (listed in examples/README.md).
import { KeyKind, KeyRecord, KeyRegistry, SigningKey } from '@agdx/sign';
import { AgentEnvelope, AgentId, ConversationId, CorrelationId, MintUlid, RecordId } from '@agdx/wire';

const secret = crypto.getRandomValues(new Uint8Array(32));
const unsigned = AgentEnvelope.command(MintUlid.mint(RecordId), ConversationId.new(), AgentId.new('planner'), MintUlid.mint(CorrelationId), new TextEncoder().encode('summarize incident 42'));
const envelope = await SigningKey.fromBytes(secret).sign(unsigned);

// --- seed text ---
const key = SigningKey.fromBytes(secret)
const registry = new KeyRegistry()
registry.enrollRecord(KeyRecord.fromVerifyingBytes("planner", key.verifyingKey, KeyKind.Agent))
const principal = registry.verify(envelope)
// --- end of seed text ---

console.log(`signed by ${await principal}`);
