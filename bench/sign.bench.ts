// Envelope signing and verification throughput on each back end (node-crypto, webcrypto, noble),
// one call at a time (each awaited before the next) and, reported apart, with many operations in flight.
// In-run baselines: the bare WebCrypto ceiling and a noble stand-in for the reference's per-call
// key derivation. The comparison with the published 0.1.1 reference itself needs the reference and
// is opt-in: `pnpm bench:reference sign` (bench/reference/sign.bench.ts). No quoted figures here.
// Run: pnpm exec tsx --conditions=@agdx/source bench/sign.bench.ts  → one JSON object on stdout.
import { AgentEnvelope, AgentId, ConversationId, CorrelationId, RecordId } from '@agdx/wire';
import { KeyRegistry, pkcs8FromSeed, SigningKey, signingInput } from '@agdx/sign';
import type { Ed25519BackendName } from '@agdx/sign';
import { machine } from './support/machine.js';
import { median } from './support/stats.js';

const RUNS = 7;
const BATCH = { 'node-crypto': 2000, webcrypto: 2000, noble: 400 } as const;
const CONTEXT = { contentType: 1, agentVersion: 1 };

function envelope(i: number): AgentEnvelope {
  return AgentEnvelope.command(
    RecordId.fromBigInt(BigInt(i) + 1n),
    ConversationId.fromBigInt(42n),
    AgentId.new('planner'),
    CorrelationId.fromBigInt(BigInt(i) + 7n),
    new TextEncoder().encode(`{"ask":"plan the trip","n":${i}}`),
  ).withTarget(AgentId.new('travel-agent'));
}

// CPU time (all threads of this process, user + system) per operation of the last `rate` call:
// unlike wall-clock rates it barely moves when other processes load the machine.
let lastCpuMicrosPerOp = 0;

async function rate(count: number, fn: () => Promise<unknown>): Promise<number> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await fn();
  const elapsed = performance.now() - start;
  const used = process.cpuUsage(cpu);
  lastCpuMicrosPerOp = (used.user + used.system) / count;
  return count / (elapsed / 1000);
}

async function measure(backend: Ed25519BackendName) {
  const key = SigningKey.fromHex('5a'.repeat(32), { backend });
  const registry = new KeyRegistry({ backend });
  registry.enroll('planner', key.verifyingKey);
  const batch = BATCH[backend];
  const envelopes = Array.from({ length: batch }, (_, i) => envelope(i));
  const signed = await Promise.all(envelopes.map((e) => key.sign(e, CONTEXT)));
  const at = 1_750_000_000_000_000n;
  // Warm-up: JIT and the imported CryptoKey caches.
  await Promise.all(signed.slice(0, 200).map((e) => registry.verifyAt(e, at)));

  const concurrent = { sign: [] as number[], verify: [] as number[] };
  const cpu = { sign: [] as number[], verify: [] as number[] };
  const sequential = { sign: [] as number[], verify: [] as number[] };
  const sequentialCpu = { sign: [] as number[], verify: [] as number[] };
  const seqCount = backend === 'noble' ? 200 : 1500;
  for (let run = 0; run < RUNS; run++) {
    concurrent.sign.push(await rate(batch, () => Promise.all(envelopes.map((e) => key.sign(e, CONTEXT)))));
    cpu.sign.push(lastCpuMicrosPerOp);
    concurrent.verify.push(await rate(batch, () => Promise.all(signed.map((e) => registry.verifyAt(e, at)))));
    cpu.verify.push(lastCpuMicrosPerOp);
    sequential.sign.push(await rate(seqCount, async () => {
      for (let i = 0; i < seqCount; i++) await key.sign(envelopes[i]!, CONTEXT);
    }));
    sequentialCpu.sign.push(lastCpuMicrosPerOp);
    sequential.verify.push(await rate(seqCount, async () => {
      for (let i = 0; i < seqCount; i++) await registry.verifyAt(signed[i]!, at);
    }));
    sequentialCpu.verify.push(lastCpuMicrosPerOp);
  }
  const round = (n: number) => Math.round(n);
  return {
    concurrentPromiseAll: { inFlight: batch, signPerSec: round(median(concurrent.sign)), verifyPerSec: round(median(concurrent.verify)) },
    concurrentCpuMicrosPerOp: { sign: Math.round(median(cpu.sign) * 10) / 10, verify: Math.round(median(cpu.verify) * 10) / 10 },
    sequentialAwait: { count: seqCount, signPerSec: round(median(sequential.sign)), verifyPerSec: round(median(sequential.verify)) },
    sequentialCpuMicrosPerOp: { sign: Math.round(median(sequentialCpu.sign) * 10) / 10, verify: Math.round(median(sequentialCpu.verify) * 10) / 10 },
  };
}

// The bare WebCrypto ceiling on the same inputs, measured in the same run: the machine is shared,
// so this shows how much of any shortfall is the platform rather than this package.
async function ceiling() {
  const subtle = globalThis.crypto.subtle;
  const algorithm = { name: 'Ed25519' };
  const seed = new Uint8Array(32).fill(0x5a);
  const signKey = await subtle.importKey('pkcs8', pkcs8FromSeed(seed), algorithm, false, ['sign']);
  const publicKey = SigningKey.fromBytes(seed).verifyingKey;
  const verifyKey = await subtle.importKey('raw', new Uint8Array(publicKey), algorithm, false, ['verify']);
  const inputs = Array.from({ length: BATCH.webcrypto }, (_, i) => signingInput(envelope(i), CONTEXT) as Uint8Array<ArrayBuffer>);
  const sigs = await Promise.all(inputs.map((m) => subtle.sign(algorithm, signKey, m)));
  const sign: number[] = [];
  const verify: number[] = [];
  const cpu = { sign: [] as number[], verify: [] as number[] };
  for (let run = 0; run < RUNS; run++) {
    sign.push(await rate(inputs.length, () => Promise.all(inputs.map((m) => subtle.sign(algorithm, signKey, m)))));
    cpu.sign.push(lastCpuMicrosPerOp);
    verify.push(await rate(inputs.length, () => Promise.all(inputs.map((m, i) => subtle.verify(algorithm, verifyKey, sigs[i]!, m)))));
    cpu.verify.push(lastCpuMicrosPerOp);
  }
  return {
    batchSize: inputs.length,
    signPerSec: Math.round(median(sign)),
    verifyPerSec: Math.round(median(verify)),
    cpuMicrosPerOp: { sign: Math.round(median(cpu.sign) * 10) / 10, verify: Math.round(median(cpu.verify) * 10) / 10 },
  };
}

// An in-run stand-in for 0.1.1's cost on this machine right now. 0.1.1 signs with @noble/ed25519,
// which re-derives the key (a base-point multiplication) on every call: a fresh noble SigningKey
// per signature does the same work. Its verification is a plain noble verify, as verifySync is.
// Ratios against this proxy stay meaningful when the shared machine is busy.
async function referenceProxy() {
  const seed = new Uint8Array(32).fill(0x5a);
  const registry = new KeyRegistry({ backend: 'noble' });
  registry.enroll('planner', SigningKey.fromBytes(seed).verifyingKey);
  const envelopes = Array.from({ length: 300 }, (_, i) => envelope(i));
  const signed = envelopes.map((e) => SigningKey.fromBytes(seed).signSync(e, CONTEXT));
  const sign: number[] = [];
  const verify: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    sign.push(await rate(envelopes.length, async () => {
      for (const e of envelopes) SigningKey.fromBytes(seed, { backend: 'noble' }).signSync(e, CONTEXT);
    }));
    verify.push(await rate(envelopes.length, async () => {
      for (const e of signed) registry.verifySync(e);
    }));
  }
  return { signPerSec: Math.round(median(sign)), verifyPerSec: Math.round(median(verify)) };
}

const rawWebCrypto = await ceiling();
const proxy = await referenceProxy();
const nodeCrypto = await measure('node-crypto');
const webcrypto = await measure('webcrypto');
const noble = await measure('noble');
const ratio = (ours: number, base: number) => Math.round((ours / base) * 100) / 100;

console.log(
  JSON.stringify({
    name: 'sign',
    environment: { ...machine(), runs: RUNS, statistic: 'median' },
    figures: 'xPerSec are operations per wall-clock second (median of runs); CpuMicrosPerOp are CPU microseconds of this process (all threads) per operation; ratios divide medians from this run',
    workload: 'command envelope (~60 B body, target set, a distinct envelope per operation) signed with context {ct:1, av:1}; verifyAt with window check',
    referenceComparison: 'not measured here: `pnpm bench:reference sign` fetches @laserdata/laser-sdk 0.1.1 and compares it one call at a time in the same run',
    ours: { 'node-crypto': nodeCrypto, webcrypto, noble },
    rawWebCryptoCeiling: rawWebCrypto,
    referenceProxyInRun: proxy,
    // One call at a time on both sides: the proxy is sequential, so only sequential figures are divided by it.
    ratioToInRunProxy: {
      nodeCryptoSequentialSign: ratio(nodeCrypto.sequentialAwait.signPerSec, proxy.signPerSec),
      nodeCryptoSequentialVerify: ratio(nodeCrypto.sequentialAwait.verifyPerSec, proxy.verifyPerSec),
      webcryptoSequentialSign: ratio(webcrypto.sequentialAwait.signPerSec, proxy.signPerSec),
      webcryptoSequentialVerify: ratio(webcrypto.sequentialAwait.verifyPerSec, proxy.verifyPerSec),
      nobleSequentialSign: ratio(noble.sequentialAwait.signPerSec, proxy.signPerSec),
      nobleSequentialVerify: ratio(noble.sequentialAwait.verifyPerSec, proxy.verifyPerSec),
    },
    // Concurrency apart, against our own one-at-a-time figure only (never against a sequential baseline).
    concurrencySpeedupOverSequential: {
      nodeCryptoSign: ratio(nodeCrypto.concurrentPromiseAll.signPerSec, nodeCrypto.sequentialAwait.signPerSec),
      nodeCryptoVerify: ratio(nodeCrypto.concurrentPromiseAll.verifyPerSec, nodeCrypto.sequentialAwait.verifyPerSec),
      webcryptoSign: ratio(webcrypto.concurrentPromiseAll.signPerSec, webcrypto.sequentialAwait.signPerSec),
      webcryptoVerify: ratio(webcrypto.concurrentPromiseAll.verifyPerSec, webcrypto.sequentialAwait.verifyPerSec),
      nobleSign: ratio(noble.concurrentPromiseAll.signPerSec, noble.sequentialAwait.signPerSec),
      nobleVerify: ratio(noble.concurrentPromiseAll.verifyPerSec, noble.sequentialAwait.verifyPerSec),
    },
  }),
);
