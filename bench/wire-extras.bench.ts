// Extras hot paths: chunk reassembly (one feed per streamed token), the seed header block (one per
// record), and the strict capsule reader against plain cbor2 decode (the cost of strictness).
// Run: pnpm exec tsx --conditions=@agdx/source bench/wire-extras.bench.ts → one JSON object on stdout.
import {
  AgentId,
  ChunkAssembler,
  ConversationId,
  decodeAgentCard,
  encodeAgentCard,
  encodeHeaderBlock,
  type AgentCard,
} from '@agdx/wire';
import { median } from './support/stats.js';

const RUNS = 7;

function opsPerSec(count: number, fn: () => void): number {
  const start = performance.now();
  fn();
  return count / ((performance.now() - start) / 1000);
}

function measure(count: number, fn: () => void): number {
  fn(); // warm-up
  const rates: number[] = [];
  for (let i = 0; i < RUNS; i++) rates.push(opsPerSec(count, fn));
  return Math.round(median(rates));
}

// 1. Chunk reassembly vs the bare minimum (push bodies into an array).
const TOKENS = 200_000;
const body = new TextEncoder().encode('tok ');
const records = Array.from({ length: TOKENS }, (_, i) => ({ kind: 'chunk', sequence: BigInt(i), body, last: i === TOKENS - 1 }));
const assemblerRate = measure(TOKENS, () => {
  const a = new ChunkAssembler();
  for (const r of records) a.feed(r);
});
const pushRate = measure(TOKENS, () => {
  const out: Uint8Array[] = [];
  let next = 0n;
  for (const r of records) if (r.sequence === next) {
    next += 1n;
    out.push(r.body);
  }
});

// 2. Header block per record.
const fields = {
  conversation: ConversationId.parse('01J0Y1ZAG00000000000000002'),
  parent: ConversationId.parse('01J0Y1ZAG00000000000000004'),
  source: AgentId.parse('planner'),
  target: AgentId.parse('critic'),
};
const HEADERS = 50_000;
const headerRate = measure(HEADERS, () => {
  for (let i = 0; i < HEADERS; i++) encodeHeaderBlock(fields, 1);
});

// 3. Strict capsule decode vs JSON.parse of the same card (cbor2 is not a dependency of the bench
// root, and the reader's own cost is what this shows: strict cbor2 decode + typed field checks).
const card: AgentCard = {
  name: 'trip-planner',
  version: '1.4.2',
  capabilities: [
    { skillId: 'chat', input: { kind: 'contentType', contentType: 1 }, output: { kind: 'contentType', contentType: 1 }, costClass: 2, health: 1, load: 250 },
    { skillId: 'search_flights', input: { kind: 'schemaId', schemaId: 'order.v1' }, health: 2 },
  ],
  ttlMicros: 30_000_000n,
};
const cardBytes = encodeAgentCard(card);
const CARDS = 20_000;
const strictRate = measure(CARDS, () => {
  for (let i = 0; i < CARDS; i++) decodeAgentCard(cardBytes);
});
const cardJson = JSON.stringify({ ...card, ttlMicros: 30_000_000 });
const plainRate = measure(CARDS, () => {
  for (let i = 0; i < CARDS; i++) JSON.parse(cardJson);
});
const encodeRate = measure(2_000, () => {
  for (let i = 0; i < 2_000; i++) encodeAgentCard(card);
});

console.log(
  JSON.stringify({
    name: 'wire-extras',
    environment: { node: process.version, platform: process.platform, arch: process.arch, runs: RUNS, statistic: 'median ops/s' },
    ours: {
      chunkAssemblerFeedsPerSec: assemblerRate,
      headerBlocksPerSec: headerRate,
      strictCardDecodesPerSec: strictRate,
      cardEncodesPerSec: encodeRate,
    },
    baseline: {
      arrayPushInOrderPerSec: pushRate,
      jsonParseCardPerSec: plainRate,
    },
    ratio: {
      assemblerVsArrayPush: Number((assemblerRate / pushRate).toFixed(3)),
      strictCborVsJsonParse: Number((strictRate / plainRate).toFixed(3)),
    },
  }),
);
