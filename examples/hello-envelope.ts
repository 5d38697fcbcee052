// Hello, envelope: build a command, validate it, encode it to canonical CBOR, decode it back and
// print it in a readable form. Run: pnpm demo
import { AgentEnvelope, AgentId, ContentType, ConversationId, CorrelationId, MintUlid, RecordId } from '@agdx/wire';

const planner = AgentId.new('planner');
const conversation = ConversationId.new();
const correlation = MintUlid.mint(CorrelationId);
const body = new TextEncoder().encode(JSON.stringify({ text: 'AGDX carries agent messages on a durable log.', maxWords: 12 }));

const command = AgentEnvelope.command(MintUlid.mint(RecordId), conversation, planner, correlation, body)
  .withTarget(AgentId.new('summarizer'))
  .withOperation('summarize')
  .withMetadata('role', 'user');

command.validate();
const bytes = command.encode();
const decoded = AgentEnvelope.decode(bytes);

const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
const readable = {
  kind: decoded.kind,
  record: decoded.record?.toString(),
  conversation: decoded.conversation.toString(),
  source: decoded.source.value,
  target: decoded.target?.value,
  correlation: decoded.correlation?.toString(),
  operation: decoded.operation,
  metadata: Object.fromEntries(decoded.metadata ?? []),
  contentType: `json (${ContentType.json})`,
  body: new TextDecoder().decode(decoded.body),
};

console.log('AGDX command envelope');
for (const [key, value] of Object.entries(readable)) {
  if (value !== undefined) console.log(`  ${key.padEnd(13)} ${typeof value === 'string' ? value : JSON.stringify(value)}`);
}
console.log(`  ${'size'.padEnd(13)} ${bytes.length} bytes of canonical CBOR`);
console.log(`  ${'hex'.padEnd(13)} ${hex}`);
console.log(`  ${'round trip'.padEnd(13)} ${decoded.encode().every((b, i) => b === bytes[i]) ? 'byte-identical' : 'DIFFERENT'}`);
