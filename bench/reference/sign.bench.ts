// Ed25519 envelope signing and verification, ours (@agdx/sign) against the published reference
// (@laserdata/laser-sdk 0.1.1, @noble/ed25519) in the same process run, one call at a time on both
// sides. Needs the reference: run it with `pnpm bench:reference sign`.
//
// Inputs: a ring of distinct command envelopes (100-byte bodies), signed with context
// { contentType: 1, agentVersion: 1 }. Before measuring, it checks that for every entry the
// reference produces the same 64 signature bytes as ours (Ed25519 is deterministic, so equal
// signing inputs give equal signatures) and that each side verifies the other's envelopes.
//   default back end (`auto`; node-crypto on Node): await key.sign(e, ctx) / await registry.verifyAt(e, at)
//   the same through the sync API:                  key.signSync(e, ctx)  / registry.verifyAtSync(e, at)
//   webcrypto back end (forced):                    await key.sign(e, ctx) / await registry.verifyAt(e, at)
//   noble back end:                                 key.signSync(e, ctx)  / registry.verifyAtSync(e, at)
//   reference:                                      key.signWithContext(e, ctx) / registry.verifyAt(e, at)
// Ceilings, in the same run: the bare platform calls on the same signing inputs with an already
// imported key, one call at a time — `crypto.subtle.sign/verify` (WebCrypto) and node:crypto's
// synchronous `sign/verify` — against the reference, and ours against the bare node:crypto call.
// With AGDX_BENCH_BASELINE_DIR=<another checkout, dependencies installed and wire + sign built>,
// that checkout's default back end is measured against ours in alternating rounds (same inputs,
// decoded by its own codec), so a change is compared with earlier code in the same run.
// Concurrency (64 operations in flight through Promise.all) is reported separately and compared
// only with the same back end one at a time, never with the reference.
import { createPrivateKey, createPublicKey, sign as nodeSign, verify as nodeVerify } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { KeyRegistry, pkcs8FromSeed, resolveEd25519Backend, SigningKey, signingInput } from '@agdx/sign';
import type { Ed25519BackendChoice } from '@agdx/sign';
import type { AgentEnvelope } from '@agdx/wire';
import { compareAlternating, sinkBit } from '../support/alternating.js';
import type { Comparison, Contender } from '../support/alternating.js';
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
const BASELINE_DIR = process.env.AGDX_BENCH_BASELINE_DIR || undefined;

const before = machine();
const reference = await loadReference();
const envelopes = envelopeRing('command100');

const refKey = reference.signingKey(SEED);
const refRegistry = reference.keyRegistry();
refRegistry.enroll('planner', refKey.verifyingKey());
const refEnvelopes = envelopes.map((e) => reference.decodeValidate(e.encode()));
const refSign: Contender = { run: (i) => refKey.signWithContext(refEnvelopes[i & mask] as RefEnvelope, CONTEXT) };

function same(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Runs `c` one call at a time for about half a second of wall time (bounded by WARM_UP_CALLS). */
const WARM_UP_CALLS = 4000;
async function warmUp(c: Contender): Promise<void> {
  const until = performance.now() + 500;
  for (let i = 0; i < WARM_UP_CALLS && performance.now() < until; i++) await c.run(i);
}

/** Our side on one back end: keys, signed ring, checked against the reference, then measured. */
async function side(backend: Ed25519BackendChoice, api: 'async' | 'sync') {
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
    if (!same(key.signSync(envelopes[i] as AgentEnvelope, CONTEXT).signature?.bytes ?? new Uint8Array(0), ours)) {
      throw new Error(`${backend}: entry ${i}: signSync differs from sign: not comparing`);
    }
    refRegistry.verifyAt(refSigned[i] as RefEnvelope, AT); // throws when the reference rejects ours
  }
  const oursSign: Contender =
    api === 'async'
      ? { run: (i) => key.sign(envelopes[i & mask] as AgentEnvelope, CONTEXT), async: true }
      : { run: (i) => key.signSync(envelopes[i & mask] as AgentEnvelope, CONTEXT) };
  const oursVerify: Contender =
    api === 'async'
      ? { run: (i) => registry.verifyAt(signed[i & mask] as AgentEnvelope, AT), async: true }
      : { run: (i) => registry.verifyAtSync(signed[i & mask] as AgentEnvelope, AT) };
  // Warm-up: the first comparison of a process otherwise pays for the JIT and the platform's
  // worker start-up (seen as a third of the later rate of the same calls in the same run).
  await warmUp(oursSign);
  await warmUp(oursVerify);
  const refVerify: Contender = { run: (i) => refRegistry.verifyAt(refSigned[i & mask] as RefEnvelope, AT) };
  const sign = await compareAlternating(oursSign, refSign, { rounds: ROUNDS });
  const verify = await compareAlternating(oursVerify, refVerify, { rounds: ROUNDS });
  const resolved = await resolveEd25519Backend(backend);
  return { resolved, api, key, registry, signed, oursSign, oursVerify, refVerify, sign, verify };
}

const byDefault = await side('auto', 'async');
const defaultSync = await side('auto', 'sync');
const webcrypto = await side('webcrypto', 'async');
const noble = await side('noble', 'sync');

// The bare platform calls on the same bytes our signer hands them (signing inputs and
// signatures checked equal to ours first), against the reference.
const ALGORITHM = { name: 'Ed25519' } as const;
const subtle = globalThis.crypto.subtle;
const bareSignKey = await subtle.importKey('pkcs8', pkcs8FromSeed(SEED), ALGORITHM, false, ['sign']);
const bareVerifyKey = await subtle.importKey('raw', new Uint8Array(byDefault.key.verifyingKey), ALGORITHM, false, ['verify']);
const nodePrivate = createPrivateKey({ key: Buffer.from(pkcs8FromSeed(SEED)), format: 'der', type: 'pkcs8' });
const nodePublic = createPublicKey(nodePrivate);
const inputs = envelopes.map((e) => signingInput(e, CONTEXT) as Uint8Array<ArrayBuffer>);
const signatures = byDefault.signed.map((e) => (e.signature?.bytes ?? new Uint8Array(0)) as Uint8Array<ArrayBuffer>);
for (let i = 0; i < RING_SIZE; i++) {
  const bare = new Uint8Array(await subtle.sign(ALGORITHM, bareSignKey, inputs[i] as Uint8Array<ArrayBuffer>));
  if (!same(bare, signatures[i] as Uint8Array)) throw new Error(`entry ${i}: the bare WebCrypto signature differs from ours: not comparing`);
  if (!same(nodeSign(null, inputs[i] as Uint8Array, nodePrivate), signatures[i] as Uint8Array)) {
    throw new Error(`entry ${i}: the bare node:crypto signature differs from ours: not comparing`);
  }
}
const bareSubtleSign: Contender = { run: (i) => subtle.sign(ALGORITHM, bareSignKey, inputs[i & mask] as Uint8Array<ArrayBuffer>), async: true };
const bareSubtleVerify: Contender = {
  run: (i) => subtle.verify(ALGORITHM, bareVerifyKey, signatures[i & mask] as Uint8Array<ArrayBuffer>, inputs[i & mask] as Uint8Array<ArrayBuffer>),
  async: true,
};
const bareNodeSign: Contender = { run: (i) => nodeSign(null, inputs[i & mask] as Uint8Array, nodePrivate) };
const bareNodeVerify: Contender = { run: (i) => nodeVerify(null, inputs[i & mask] as Uint8Array, nodePublic, signatures[i & mask] as Uint8Array) };
const subtleOfReference = {
  sign: await compareAlternating(bareSubtleSign, refSign, { rounds: ROUNDS }),
  verify: await compareAlternating(bareSubtleVerify, byDefault.refVerify, { rounds: ROUNDS }),
};
const nodeOfReference = {
  sign: await compareAlternating(bareNodeSign, refSign, { rounds: ROUNDS }),
  verify: await compareAlternating(bareNodeVerify, byDefault.refVerify, { rounds: ROUNDS }),
};
const defaultOfBareNode = {
  sign: await compareAlternating(byDefault.oursSign, bareNodeSign, { rounds: ROUNDS }),
  verify: await compareAlternating(byDefault.oursVerify, bareNodeVerify, { rounds: ROUNDS }),
};

// Another checkout's default back end (its own wire decodes our bytes into its envelopes).
async function baselineCheckout(dir: string) {
  type Env = { encode(): Uint8Array };
  const load = async (pkg: string) => (await import(pathToFileURL(join(dir, 'packages', pkg, 'dist', 'index.js')).href)) as Record<string, unknown>;
  const wire = (await load('wire')) as { decodeEnvelope(bytes: Uint8Array): Env };
  const sign = (await load('sign')) as {
    SigningKey: { fromBytes(seed: Uint8Array): { verifyingKey: Uint8Array; sign(e: Env, c: typeof CONTEXT): Promise<Env> } };
    KeyRegistry: new () => { enroll(principal: string, key: Uint8Array): void; verifyAt(e: Env, at: bigint): Promise<unknown> };
    resolveEd25519Backend(): Promise<string>;
  };
  const theirEnvelopes = envelopes.map((e) => wire.decodeEnvelope(e.encode()));
  const key = sign.SigningKey.fromBytes(SEED);
  const registry = new sign.KeyRegistry();
  registry.enroll('planner', key.verifyingKey);
  const theirSigned: Env[] = [];
  for (let i = 0; i < RING_SIZE; i++) {
    const s = await key.sign(theirEnvelopes[i] as Env, CONTEXT);
    if (!same(s.encode(), (byDefault.signed[i] as AgentEnvelope).encode())) throw new Error(`baseline: entry ${i}: signed bytes differ from ours: not comparing`);
    theirSigned.push(s);
  }
  const baseSign: Contender = { run: (i) => key.sign(theirEnvelopes[i & mask] as Env, CONTEXT), async: true };
  const baseVerify: Contender = { run: (i) => registry.verifyAt(theirSigned[i & mask] as Env, AT), async: true };
  await warmUp(baseSign);
  await warmUp(baseVerify);
  return {
    dir,
    resolved: await sign.resolveEd25519Backend(),
    label: 'ours (default back end, async API) / the checkout in AGDX_BENCH_BASELINE_DIR (its default back end, async API), per round',
    sign: await compareAlternating(byDefault.oursSign, baseSign, { rounds: ROUNDS }),
    verify: await compareAlternating(byDefault.oursVerify, baseVerify, { rounds: ROUNDS }),
  };
}
const baseline = BASELINE_DIR === undefined ? undefined : await baselineCheckout(BASELINE_DIR);

// IN_FLIGHT operations in flight against one at a time, same back end. A "call" of the
// concurrent side is IN_FLIGHT operations, so its rates are scaled to operations.
const burst = (i: number) => Array.from({ length: IN_FLIGHT }, (_, k) => (i * IN_FLIGHT + k) & mask);
async function concurrency(s: typeof byDefault) {
  const scaled = (c: Comparison) => {
    const r = c.oursPerCpuSecond;
    return { min: r.min * IN_FLIGHT, median: r.median * IN_FLIGHT, max: r.max * IN_FLIGHT };
  };
  // From the medians of the CPU-second rates (the per-round ratios are rounded too coarsely to scale).
  const speedup = (c: Comparison) => Number(((c.oursPerCpuSecond.median * IN_FLIGHT) / c.baselinePerCpuSecond.median).toFixed(2));
  const sign = await compareAlternating(
    { run: (i) => Promise.all(burst(i).map((j) => s.key.sign(envelopes[j] as AgentEnvelope, CONTEXT))), async: true },
    s.oursSign,
    { rounds: ROUNDS },
  );
  const verify = await compareAlternating(
    { run: (i) => Promise.all(burst(i).map((j) => s.registry.verifyAt(s.signed[j] as AgentEnvelope, AT))), async: true },
    s.oursVerify,
    { rounds: ROUNDS },
  );
  return {
    backend: s.resolved,
    signOpsPerCpuSecond: scaled(sign),
    verifyOpsPerCpuSecond: scaled(verify),
    oneAtATimeSignOpsPerCpuSecond: sign.baselinePerCpuSecond,
    oneAtATimeVerifyOpsPerCpuSecond: verify.baselinePerCpuSecond,
    signSpeedupOverOneAtATime: speedup(sign),
    verifySpeedupOverOneAtATime: speedup(verify),
  };
}
const concurrencyDefault = await concurrency(byDefault);
const concurrencyWebCrypto = await concurrency(webcrypto);

const report = (s: typeof byDefault, label: string) => ({ backend: s.resolved, api: s.api, label, sign: s.sign, verify: s.verify });

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
        checked: 'for every ring entry: identical signature bytes on both sides (and from sign, signSync and the bare platform calls), and the reference verifies our signed envelopes',
        rate: 'operations per CPU second of this process (user + system, all threads, so WebCrypto and GC threads count), one call at a time (each awaited before the next)',
        ratio: 'ours / the named baseline of the CPU-second rates within each round; ratio.median is the median over the rounds',
      },
      oneAtATime: {
        label: 'ours / reference',
        defaultBackend: report(byDefault, "the default choice ('auto'), async API: what `await key.sign(e, ctx)` and `await registry.verifyAt(e, at)` do"),
        defaultBackendSyncApi: report(defaultSync, "the default choice ('auto'), sync API (signSync / verifyAtSync)"),
        webcryptoBackend: report(webcrypto, "'webcrypto' forced, async API"),
        nobleBackend: report(noble, "'noble', sync API"),
      },
      ceiling: {
        label: 'the bare platform calls (already imported key, the same signing inputs, one call at a time)',
        bareSubtleOfReference: subtleOfReference,
        bareNodeCryptoOfReference: nodeOfReference,
        defaultBackendOfBareNodeCrypto: defaultOfBareNode,
      },
      baseline: baseline ?? 'not measured (set AGDX_BENCH_BASELINE_DIR to another checkout)',
      concurrency: {
        label: `ours only, ${IN_FLIGHT} operations in flight (Promise.all); compared with the same back end one at a time, NOT with the reference`,
        defaultBackend: concurrencyDefault,
        webcryptoBackend: concurrencyWebCrypto,
      },
      sink: sinkBit(),
    },
    null,
    2,
  ),
);
