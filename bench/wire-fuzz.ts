// Long fuzz run of the envelope decoder: random bytes, random CBOR documents, and mutated valid
// encodings go through decode → validate; anything but CodecError/InvalidError is a failure, and
// every accepted input must re-encode to a canonical fixed point.
// Run: pnpm exec tsx --conditions=@agdx/source bench/wire-fuzz.ts [iterations=200000] [seed]
// Prints one JSON summary; exits 1 on any failure.
import { AgdxError, AgentEnvelope, decodeEnvelope, encodeEnvelope, validateEnvelope } from '@agdx/wire';
import fc from 'fast-check';
import * as cbor2 from 'cbor2';
import { validEnvelope } from '../packages/wire/test/support/arbitrary.js';

const iterations = Number(process.argv[2] ?? 200_000);
const seed = Number(process.argv[3] ?? Date.now() % 2 ** 31);

const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

type Strategy = 'random' | 'cbor-document' | 'mutated-envelope' | 'spliced-envelope';
const mutation = fc.oneof(
  fc.record({ op: fc.constant('flip' as const), at: fc.nat(), value: fc.nat({ max: 255 }) }),
  fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('insert' as const), at: fc.nat(), value: fc.nat({ max: 255 }) }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('duplicate' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 40 }) }),
);

function mutate(bytes: Uint8Array, ms: readonly { op: string; at: number; value?: number; len?: number }[]): Uint8Array {
  let b = bytes;
  for (const m of ms) {
    const at = m.at % Math.max(1, b.length);
    if (m.op === 'flip') {
      b = b.slice();
      b[at] = m.value!;
    } else if (m.op === 'truncate') b = b.slice(0, at);
    else if (m.op === 'insert') b = new Uint8Array([...b.subarray(0, at), m.value!, ...b.subarray(at)]);
    else if (m.op === 'delete') b = new Uint8Array([...b.subarray(0, at), ...b.subarray(at + 1)]);
    else b = new Uint8Array([...b.subarray(0, at + m.len!), ...b.subarray(at, at + m.len!), ...b.subarray(at + m.len!)]);
  }
  return b;
}

const inputs: Record<Strategy, fc.Arbitrary<Uint8Array>> = {
  random: fc.uint8Array({ maxLength: 300 }),
  'cbor-document': fc
    .anything({ maxDepth: 4, withMap: true, withBigInt: true, withTypedArray: true, withNullPrototype: false })
    .map((v) => {
      try {
        return cbor2.encode(v);
      } catch {
        return new Uint8Array([0xf6]);
      }
    }),
  'mutated-envelope': fc.tuple(validEnvelope, fc.array(mutation, { minLength: 1, maxLength: 5 })).map(([env, ms]) => mutate(encodeEnvelope(env), ms)),
  'spliced-envelope': fc
    .tuple(validEnvelope, validEnvelope, fc.nat(), fc.nat())
    .map(([a, b, i, j]) => {
      const x = encodeEnvelope(a);
      const y = encodeEnvelope(b);
      return new Uint8Array([...x.subarray(0, i % x.length), ...y.subarray(j % y.length)]);
    }),
};

const counts: Record<Strategy, { runs: number; accepted: number; codec: number; invalid: number }> = {
  random: { runs: 0, accepted: 0, codec: 0, invalid: 0 },
  'cbor-document': { runs: 0, accepted: 0, codec: 0, invalid: 0 },
  'mutated-envelope': { runs: 0, accepted: 0, codec: 0, invalid: 0 },
  'spliced-envelope': { runs: 0, accepted: 0, codec: 0, invalid: 0 },
};
const failures: { strategy: Strategy; inputHex: string; error: string }[] = [];
const started = performance.now();
const CHUNK = 1000;
const strategies = Object.keys(inputs) as Strategy[];
let done = 0;
let chunkNo = 0;
while (done < iterations && failures.length < 20) {
  const strategy = strategies[chunkNo % strategies.length]!;
  const n = Math.min(CHUNK, iterations - done);
  for (const bytes of fc.sample(inputs[strategy], { numRuns: n, seed: seed + chunkNo })) {
    const c = counts[strategy];
    c.runs++;
    try {
      const env = decodeEnvelope(bytes);
      validateEnvelope(env);
      c.accepted++;
      const canonical = encodeEnvelope(env);
      const again = encodeEnvelope(AgentEnvelope.decode(canonical));
      if (hex(again) !== hex(canonical)) throw new Error('accepted input is not a canonical fixed point');
    } catch (e) {
      if (AgdxError.is(e, 'codec')) c.codec++;
      else if (AgdxError.is(e, 'invalid')) c.invalid++;
      else failures.push({ strategy, inputHex: hex(bytes), error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
    }
  }
  done += n;
  chunkNo++;
}

console.log(
  JSON.stringify(
    {
      name: 'wire-fuzz',
      environment: { node: process.version },
      seed,
      iterations: done,
      seconds: +((performance.now() - started) / 1000).toFixed(1),
      counts,
      failures,
      ok: failures.length === 0,
    },
    null,
    2,
  ),
);
process.exit(failures.length === 0 ? 0 : 1);
