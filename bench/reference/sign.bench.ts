// Ed25519 envelope signing and verification, ours (@agdx/sign) against the published reference
// (@laserdata/laser-sdk 0.1.1, @noble/ed25519) in the same process run, one call at a time on both
// sides. Needs the reference: run it with `pnpm bench:reference sign`.
//
// Inputs: a ring of distinct command envelopes (100-byte bodies), signed with context
// { contentType: 1, agentVersion: 1 }. Before measuring, it checks that for every entry the
// reference produces the same 64 signature bytes as ours (Ed25519 is deterministic, so equal
// signing inputs give equal signatures) and that each side verifies the other's envelopes.
//   default back end (platform WebCrypto): await key.sign(e, ctx) / await registry.verifyAt(e, at)
//   noble back end:                        key.signSync(e, ctx)   / registry.verifyAtSync(e, at)
//   reference:                             key.signWithContext(e, ctx) / registry.verifyAt(e, at)
// The ceiling of the default back end, in the same run: the bare platform call
// (crypto.subtle.sign / .verify on the same signing inputs, with an already imported CryptoKey, one
// call at a time) against the reference, and ours against that bare call. Whatever ours reaches
// against the reference, it cannot pass what the bare call reaches.
// Concurrency (ours, default back end, 64 operations in flight through Promise.all) is reported
// separately and compared only with our own one-at-a-time figure, never with the reference.
import { KeyRegistry, pkcs8FromSeed, SigningKey, signingInput } from '@agdx/sign';
import type { Ed25519BackendName } from '@agdx/sign';
import type { AgentEnvelope } from '@agdx/wire';
import { compareAlternating, sinkBit } from '../support/alternating.js';
import type { Contender } from '../support/alternating.js';
import { envelopeRing, RING_SIZE } from '../support/envelope-ring.js';
import { machine } from '../support/machine.js';
import { loadReference } from '../support/reference.js';
import type { RefEnvelope } from '../support/reference.js';

const ROUNDS = 11;
const IN_FLIGHT = 64;
const CONTEXT = { contentType: 1, agentVersion: 1 } as const;
const SEED = new Uint8Array(32).fill(0x5a);
const AT = 1_750_000_000_000_000n;
const mask = RING_SIZE - 1;

const before = machine();
const reference = await loadReference();
const envelopes = envelopeRing('command100');

const refKey = reference.signingKey(SEED);
const refRegistry = reference.keyRegistry();
refRegistry.enroll('planner', refKey.verifyingKey());
const refEnvelopes = envelopes.map((e) => reference.decodeValidate(e.encode()));

function same(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Runs `c` one call at a time for about half a second of wall time (bounded by WARM_UP_CALLS). */
const WARM_UP_CALLS = 4000;
async function warmUp(c: Contender): Promise<void> {
  const until = performance.now() + 500;
  for (let i = 0; i < WARM_UP_CALLS && performance.now() < until; i++) await c.run(i);
}

async function side(backend: Ed25519BackendName) {
  const key = SigningKey.fromBytes(SEED, { backend });
  const registry = new KeyRegistry({ backend });
  registry.enroll('planner', key.verifyingKey);
  const signed: AgentEnvelope[] = [];
  for (const e of envelopes) signed.push(await key.sign(e, CONTEXT));
  // The reference's view of our signed envelopes: decoded from our bytes by its own decoder.
  const refSigned = signed.map((e) => reference.decodeValidate(e.encode()));
  for (let i = 0; i < RING_SIZE; i++) {
    const theirs = refKey.signWithContext(refEnvelopes[i] as RefEnvelope, CONTEXT);
    const ours = (signed[i] as AgentEnvelope).signature?.bytes ?? new Uint8Array(0);
    if (!same(theirs.bytes, ours)) throw new Error(`${backend}: entry ${i}: the reference's signature differs from ours: not comparing`);
    refRegistry.verifyAt(refSigned[i] as RefEnvelope, AT); // throws when the reference rejects ours
  }
  // The default back end is asynchronous (awaited one at a time); noble is measured through the sync API.
  const isPlatform = backend === 'platform';
  const oursSign: Contender = isPlatform
    ? { run: (i) => key.sign(envelopes[i & mask] as AgentEnvelope, CONTEXT), async: true }
    : { run: (i) => key.signSync(envelopes[i & mask] as AgentEnvelope, CONTEXT) };
  const oursVerify: Contender = isPlatform
    ? { run: (i) => registry.verifyAt(signed[i & mask] as AgentEnvelope, AT), async: true }
    : { run: (i) => registry.verifyAtSync(signed[i & mask] as AgentEnvelope, AT) };
  // Warm-up: the first comparison of a process otherwise pays for the JIT and the platform's
  // worker start-up (seen as a third of the later rate of the same calls in the same run).
  await warmUp(oursSign);
  await warmUp(oursVerify);
  const sign = await compareAlternating(oursSign, { run: (i) => refKey.signWithContext(refEnvelopes[i & mask] as RefEnvelope, CONTEXT) }, { rounds: ROUNDS });
  const verify = await compareAlternating(oursVerify, { run: (i) => refRegistry.verifyAt(refSigned[i & mask] as RefEnvelope, AT) }, { rounds: ROUNDS });
  return { key, registry, signed, refSigned, sign, verify };
}

const platform = await side('platform');
const noble = await side('noble');
const refSignedPlatform = platform.refSigned;

// The bare WebCrypto call on the same bytes our signer hands it (signing inputs and signatures
// checked equal to ours first), against the reference and against ours.
const ALGORITHM = { name: 'Ed25519' } as const;
const subtle = globalThis.crypto.subtle;
const bareSignKey = await subtle.importKey('pkcs8', pkcs8FromSeed(SEED), ALGORITHM, false, ['sign']);
const bareVerifyKey = await subtle.importKey('raw', new Uint8Array(platform.key.verifyingKey), ALGORITHM, false, ['verify']);
const inputs = envelopes.map((e) => signingInput(e, CONTEXT) as Uint8Array<ArrayBuffer>);
const signatures = platform.signed.map((e) => (e.signature?.bytes ?? new Uint8Array(0)) as Uint8Array<ArrayBuffer>);
for (let i = 0; i < RING_SIZE; i++) {
  const bare = new Uint8Array(await subtle.sign(ALGORITHM, bareSignKey, inputs[i] as Uint8Array<ArrayBuffer>));
  if (!same(bare, signatures[i] as Uint8Array)) throw new Error(`entry ${i}: the bare WebCrypto signature differs from ours: not comparing`);
}
const bareSign: Contender = { run: (i) => subtle.sign(ALGORITHM, bareSignKey, inputs[i & mask] as Uint8Array<ArrayBuffer>), async: true };
const bareVerify: Contender = {
  run: (i) => subtle.verify(ALGORITHM, bareVerifyKey, signatures[i & mask] as Uint8Array<ArrayBuffer>, inputs[i & mask] as Uint8Array<ArrayBuffer>),
  async: true,
};
const ceilingSign = await compareAlternating(bareSign, { run: (i) => refKey.signWithContext(refEnvelopes[i & mask] as RefEnvelope, CONTEXT) }, { rounds: ROUNDS });
const ceilingVerify = await compareAlternating(bareVerify, { run: (i) => refRegistry.verifyAt(refSignedPlatform[i & mask] as RefEnvelope, AT) }, { rounds: ROUNDS });
const oursOfBareSign = await compareAlternating(
  { run: (i) => platform.key.sign(envelopes[i & mask] as AgentEnvelope, CONTEXT), async: true },
  bareSign,
  { rounds: ROUNDS },
);
const oursOfBareVerify = await compareAlternating(
  { run: (i) => platform.registry.verifyAt(platform.signed[i & mask] as AgentEnvelope, AT), async: true },
  bareVerify,
  { rounds: ROUNDS },
);

// Ours with IN_FLIGHT operations in flight against ours one at a time (both default back end).
// A "call" of the concurrent side is IN_FLIGHT operations, so its rates are scaled to operations.
function perOperation<T extends { oursPerCpuSecond: { min: number; median: number; max: number } }>(c: T) {
  const s = c.oursPerCpuSecond;
  return { min: s.min * IN_FLIGHT, median: s.median * IN_FLIGHT, max: s.max * IN_FLIGHT };
}
const burst = (i: number) => Array.from({ length: IN_FLIGHT }, (_, k) => (i * IN_FLIGHT + k) & mask);
const concurrentSign = await compareAlternating(
  { run: (i) => Promise.all(burst(i).map((j) => platform.key.sign(envelopes[j] as AgentEnvelope, CONTEXT))), async: true },
  { run: (i) => platform.key.sign(envelopes[i & mask] as AgentEnvelope, CONTEXT), async: true },
  { rounds: ROUNDS },
);
const concurrentVerify = await compareAlternating(
  { run: (i) => Promise.all(burst(i).map((j) => platform.registry.verifyAt(platform.signed[j] as AgentEnvelope, AT))), async: true },
  { run: (i) => platform.registry.verifyAt(platform.signed[i & mask] as AgentEnvelope, AT), async: true },
  { rounds: ROUNDS },
);
// From the medians of the CPU-second rates (the per-round ratios are rounded too coarsely to scale).
const scaledRatio = (c: typeof concurrentSign) => Number(((c.oursPerCpuSecond.median * IN_FLIGHT) / c.baselinePerCpuSecond.median).toFixed(2));

console.log(
  JSON.stringify(
    {
      name: 'reference-sign',
      reference: { package: '@laserdata/laser-sdk@0.1.1', modules: ['dist/signing.js'], ed25519: '@noble/ed25519 3.1.0', dir: reference.dir },
      machineBefore: before,
      machineAfter: machine(),
      method: {
        rounds: ROUNDS,
        ring: `${RING_SIZE} distinct command envelopes (100-byte bodies), walked in order`,
        checked: 'for every ring entry: identical signature bytes on both sides, and the reference verifies our signed envelopes',
        rate: 'operations per CPU second of this process (user + system, all threads, so WebCrypto and GC threads count), one call at a time (each awaited before the next)',
        ratio: 'ours / reference of the CPU-second rates within each round; ratio.median is the median over the rounds',
      },
      oneAtATime: {
        defaultBackend: { backend: 'platform (WebCrypto), async API', sign: platform.sign, verify: platform.verify },
        nobleBackend: { backend: '@noble/curves, sync API', sign: noble.sign, verify: noble.verify },
      },
      ceiling: {
        label: 'the bare platform call (crypto.subtle.sign / .verify, already imported CryptoKey, the same signing inputs, one call at a time): the most any signer on the default back end can reach',
        bareOfReference: { sign: ceilingSign, verify: ceilingVerify },
        oursOfBare: { sign: oursOfBareSign, verify: oursOfBareVerify },
      },
      concurrency: {
        label: `ours only, default back end, ${IN_FLIGHT} operations in flight (Promise.all); compared with ours one at a time, NOT with the reference`,
        signOpsPerCpuSecond: perOperation(concurrentSign),
        verifyOpsPerCpuSecond: perOperation(concurrentVerify),
        oneAtATimeSignOpsPerCpuSecond: concurrentSign.baselinePerCpuSecond,
        oneAtATimeVerifyOpsPerCpuSecond: concurrentVerify.baselinePerCpuSecond,
        signSpeedupOverOneAtATime: scaledRatio(concurrentSign),
        verifySpeedupOverOneAtATime: scaledRatio(concurrentVerify),
      },
      sink: sinkBit(),
    },
    null,
    2,
  ),
);
