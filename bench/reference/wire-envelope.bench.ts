// Envelope codec, ours (@agdx/wire) against the published reference (@laserdata/laser-sdk 0.1.1) in
// the same process run. Needs the reference: run it with `pnpm bench:reference wire`.
//
// For each scenario (command with a 100-byte body, 16-byte chunk, response with an 8 KiB body and
// usage and metadata) it builds a ring of distinct envelopes, converts each into the reference's
// shape by decoding our bytes with the reference, and first checks that both sides encode every
// entry to identical bytes (it aborts otherwise: comparing codecs that write different bytes would
// be meaningless). Then, in alternating rounds:
//   validate + encode: our AgentEnvelope#encode()      vs the reference's validate + encodeNamed
//   validate + encode into a reused buffer (the send path): our AgentEnvelope#encodeInto(buffer)
//                                                       vs the same reference call (it has no such path)
//   decode + validate: our AgentEnvelope.decode(bytes) vs the reference's decodeOne + decode + validate
// Each op takes the next ring entry, so no cache sees the same input twice in a row.
//
// Knobs (env): AGDX_BENCH_RUNS rounds (default 15); AGDX_BENCH_SCENARIOS, a comma list of
// scenarios; AGDX_BENCH_MEASURES, a comma list of validateEncode, validateEncodeInto, decodeValidate.
import { AgentEnvelope } from '@agdx/wire';
import { compareAlternating, sinkBit } from '../support/alternating.js';
import { envelopeRing, RING_SIZE, SCENARIOS, type Scenario } from '../support/envelope-ring.js';
import { machine } from '../support/machine.js';
import { loadReference } from '../support/reference.js';

const ROUNDS = Number(process.env.AGDX_BENCH_RUNS ?? 15);
const scenarios = (process.env.AGDX_BENCH_SCENARIOS?.split(',') ?? SCENARIOS) as Scenario[];
const measures = new Set(process.env.AGDX_BENCH_MEASURES?.split(',') ?? ['validateEncode', 'validateEncodeInto', 'decodeValidate']);
for (const s of scenarios) if (!SCENARIOS.includes(s)) throw new Error(`unknown scenario ${s}; known: ${SCENARIOS.join(', ')}`);
/** Short batches, many rounds: both sides of a round then see nearly the same machine load. */
const BATCH_CPU_MS = 50;
const before = machine();
const reference = await loadReference();

/** The send path's reused output buffer (a publisher's pooled buffer stands in for it). */
const sendBuffer = new Uint8Array(64 * 1024);
const results: Record<string, unknown> = {};
for (const scenario of scenarios) {
  const ours = envelopeRing(scenario);
  const encoded = ours.map((e) => e.encode());
  const theirs = encoded.map((bytes) => reference.decodeValidate(bytes));
  for (let i = 0; i < RING_SIZE; i++) {
    const a = encoded[i] as Uint8Array;
    const b = reference.validateEncode(theirs[i] as Record<string, unknown>);
    if (a.length !== b.length || a.some((x, j) => x !== b[j])) {
      throw new Error(`${scenario}[${i}]: the reference encodes ${b.length} bytes, ours ${a.length}, and they differ: not comparing codecs that write different bytes`);
    }
    const n = (ours[i] as AgentEnvelope).encodeInto(sendBuffer, 0);
    if (n !== a.length || a.some((x, j) => x !== sendBuffer[j])) throw new Error(`${scenario}[${i}]: encodeInto wrote different bytes from encode`);
  }
  const mask = RING_SIZE - 1;
  const measure = async (name: string, ourRun: (i: number) => unknown, theirRun: (i: number) => unknown) =>
    measures.has(name) ? await compareAlternating({ run: ourRun }, { run: theirRun }, { rounds: ROUNDS, batchCpuMs: BATCH_CPU_MS }) : undefined;
  const encode = await measure(
    'validateEncode',
    (i) => (ours[i & mask] as AgentEnvelope).encode(),
    (i) => reference.validateEncode(theirs[i & mask] as Record<string, unknown>),
  );
  const encodeInto = await measure(
    'validateEncodeInto',
    (i) => (ours[i & mask] as AgentEnvelope).encodeInto(sendBuffer, 0),
    (i) => reference.validateEncode(theirs[i & mask] as Record<string, unknown>),
  );
  const decode = await measure(
    'decodeValidate',
    (i) => AgentEnvelope.decode(encoded[i & mask] as Uint8Array),
    (i) => reference.decodeValidate(encoded[i & mask] as Uint8Array),
  );
  const sizes = encoded.map((e) => e.length);
  results[scenario] = { encodedBytes: { min: Math.min(...sizes), max: Math.max(...sizes) }, validateEncode: encode, validateEncodeInto: encodeInto, decodeValidate: decode };
}

console.log(
  JSON.stringify(
    {
      name: 'reference-wire-envelope',
      reference: { package: '@laserdata/laser-sdk@0.1.1', modules: ['dist/wire/agent.js', 'dist/wire/cbor.js'], dir: reference.dir },
      machineBefore: before,
      machineAfter: machine(),
      method: {
        rounds: ROUNDS,
        ring: `${RING_SIZE} distinct envelopes per scenario (every id, agent name and body differs), walked in order`,
        byteIdentical: 'checked for every ring entry before measuring (encode and encodeInto)',
        validateEncode: 'AgentEnvelope#encode(): a result the caller may keep (a view carved out of a fresh output slab)',
        validateEncodeInto: 'AgentEnvelope#encodeInto(buffer, 0) into one reused 64 KiB buffer: the send path, nothing allocated; the reference has no such path, so it is the same reference call as validateEncode',
        rate: `ops per CPU second of this process (user + system, all threads), one timed batch of ~${BATCH_CPU_MS} ms CPU per side per round, forced minor GC before each batch`,
        ratio: 'ours / reference of the CPU-second rates within each round; ratio.median is the median over the rounds',
        alternation: 'both sides once per round, the first side swapping every round',
      },
      results,
      sink: sinkBit(),
    },
    null,
    2,
  ),
);
