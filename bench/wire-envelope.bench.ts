// Envelope codec throughput: the hand-specialised codec of @agdx/wire against cbor2 (a generic
// CBOR codec) measured live in the same run on the same envelopes. The comparison with the
// published 0.1.1 reference needs the reference itself and is opt-in: `pnpm bench:reference wire`
// (bench/reference/wire-envelope.bench.ts). No quoted figures are used here.
// Run: pnpm exec tsx --conditions=@agdx/source bench/wire-envelope.bench.ts  → one JSON object on stdout.
//
// Inputs: a ring of RING_SIZE distinct envelopes per scenario (bench/support/envelope-ring.ts),
// walked in order, so the decoder's last-value id caches do not hit on every call.
//
// Method: for each operation, RUNS timed batches of ~BATCH_MS each after a warm-up; the figure is the
// median of ops per CPU second of this process (wall-clock medians are reported too, but this
// 2-core machine is shared, so wall time mostly measures other jobs). Allocation per op: a forced
// GC (gc() via --expose-gc, enabled at runtime when the flag was not given), then heapUsed + arrayBuffers are read before and after ALLOC_OPS operations run with
// no GC in between; the delta divided by ALLOC_OPS is bytes allocated per op (young-generation
// allocations that survive until the read, i.e. everything the op allocated).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { AgentEnvelope, decodeEnvelope, encodeEnvelope } from '@agdx/wire';
import type { MetadataValue } from '@agdx/wire';
import * as cbor2 from 'cbor2';
import { envelopeRing, RING_SIZE, SCENARIOS } from './support/envelope-ring.js';
import { machine } from './support/machine.js';
import { median } from './support/stats.js';
const { decode: cborDecode, encode: cborEncode } = cbor2;

const RUNS = 7;
const BATCH_MS = 80;
const ALLOC_OPS = 2000;

setFlagsFromString('--expose-gc');
const gc = (globalThis as { gc?: () => void }).gc ?? (runInNewContext('gc') as () => void);

/** The same envelope as a generic CBOR value for cbor2 (canonical key order, ids as bytes). */
function cborValue(e: AgentEnvelope): Map<string, unknown> {
  const m = new Map<string, unknown>([['kind', e.kind]]);
  if (e.record) m.set('record', e.record.toBytes());
  m.set('conversation', e.conversation.toBytes());
  m.set('source', e.source.value);
  if (e.target) m.set('target', e.target.value);
  if (e.correlation) m.set('correlation', e.correlation.toBytes());
  if (e.channel) m.set('channel', e.channel.toBytes());
  if (e.sequence !== undefined) m.set('sequence', e.sequence);
  if (e.taskState !== undefined) m.set('task_state', BigInt(e.taskState));
  if (e.operation) m.set('operation', e.operation);
  if (e.usage) {
    const u = new Map<string, unknown>([
      ['input_tokens', e.usage.inputTokens],
      ['output_tokens', e.usage.outputTokens],
    ]);
    if (e.usage.reasoningOutputTokens !== undefined) u.set('reasoning_output_tokens', e.usage.reasoningOutputTokens);
    m.set('usage', u);
  }
  if (e.metadata) m.set('metadata', new Map<string, MetadataValue>(e.metadata));
  if (e.body.length) m.set('body', e.body);
  return m;
}

let sink = 0;

/** A measured operation: a batch size calibrated to about BATCH_MS, then one rate per run. */
interface Op {
  readonly fn: () => unknown;
  n: number;
  /** ops per wall-clock second, one per run */
  readonly rates: number[];
  /** ops per CPU second of this process (user + system), one per run */
  readonly cpuRates: number[];
}

function calibrate(fn: () => unknown): Op {
  let n = 256;
  for (;;) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) sink ^= (fn() as { length?: number }).length ?? 1;
    const dt = performance.now() - t0;
    if (dt > 20) return { fn, n: Math.max(1, Math.round((n * BATCH_MS) / dt)), rates: [], cpuRates: [] };
    n *= 2;
  }
}

function runOnce(op: Op): void {
  const { fn, n } = op;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) sink ^= (fn() as { length?: number }).length ?? 1;
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  op.rates.push(n / (wall / 1000));
  op.cpuRates.push(n / ((cpu.user + cpu.system) / 1e6));
}

function bytesPerOp(fn: () => unknown): number {
  // A collection during the window only lowers the delta, so the largest of several windows is the
  // closest to the true allocation.
  let best = 0;
  for (let attempt = 0; attempt < 5; attempt++) {
    const keep: unknown[] = new Array(ALLOC_OPS);
    gc();
    const before = process.memoryUsage();
    for (let i = 0; i < ALLOC_OPS; i++) keep[i] = fn();
    const after = process.memoryUsage();
    const delta = after.heapUsed - before.heapUsed + (after.arrayBuffers - before.arrayBuffers);
    best = Math.max(best, Math.round(delta / ALLOC_OPS));
  }
  return best;
}

/** `fn` applied to the next ring entry on every call, so consecutive calls see different inputs. */
function cycling<T>(ring: readonly T[], fn: (item: T) => unknown): () => unknown {
  let k = 0;
  return () => fn(ring[k++ % ring.length] as T);
}

const decodeOptions = { preferBigInt: true, preferMap: true, rejectDuplicateKeys: true } as const;
const scenarios = SCENARIOS.map((name) => {
  const envs = envelopeRing(name);
  const encoded = envs.map((env) => {
    env.validate();
    return encodeEnvelope(env);
  });
  const values = envs.map(cborValue);
  values.forEach((value, i) => {
    const cbor2Bytes = cborEncode(value, { avoidInts: true });
    if (Buffer.compare(Buffer.from(cbor2Bytes), Buffer.from(encoded[i] as Uint8Array)) !== 0) throw new Error(`${name}[${i}]: cbor2 bytes differ`);
  });
  return {
    name,
    envs,
    encoded,
    ops: {
      encode: calibrate(cycling(envs, (env) => encodeEnvelope(env))),
      validateEncode: calibrate(cycling(envs, (env) => env.encode())),
      decodeValidate: calibrate(cycling(encoded, (bytes) => AgentEnvelope.decode(bytes))),
      decodeOnly: calibrate(cycling(encoded, (bytes) => decodeEnvelope(bytes))),
      cbor2Encode: calibrate(cycling(values, (value) => cborEncode(value, { avoidInts: true }))),
      cbor2Decode: calibrate(cycling(encoded, (bytes) => cborDecode(bytes, decodeOptions) as Map<string, unknown>)),
    },
  };
});

// Runs are interleaved across scenarios and operations so that load from other processes on this
// shared machine spreads over every figure instead of landing on one. cbor2 runs after ours, so its
// (much larger) garbage is not collected on our time.
const OURS = ['encode', 'validateEncode', 'decodeValidate', 'decodeOnly'] as const;
const THEIRS = ['cbor2Encode', 'cbor2Decode'] as const;
for (const group of [OURS, THEIRS]) {
  for (let r = 0; r < RUNS; r++) for (const s of scenarios) for (const name of group) runOnce(s.ops[name]);
}

const results: Record<string, unknown> = {};
for (const s of scenarios) {
  const m = (op: Op): number => Math.round(median(op.cpuRates));
  const wall = (op: Op): number => Math.round(median(op.rates));
  const ours = {
    encodePerSec: m(s.ops.encode),
    validateEncodePerSec: m(s.ops.validateEncode),
    decodeValidatePerSec: m(s.ops.decodeValidate),
    decodeOnlyPerSec: m(s.ops.decodeOnly),
    bytesAllocatedPerEncode: bytesPerOp(cycling(s.envs, (env) => encodeEnvelope(env))),
    bytesAllocatedPerDecodeValidate: bytesPerOp(cycling(s.encoded, (bytes) => AgentEnvelope.decode(bytes))),
  };
  const oursWallClock = {
    encodePerSec: wall(s.ops.encode),
    validateEncodePerSec: wall(s.ops.validateEncode),
    decodeValidatePerSec: wall(s.ops.decodeValidate),
    decodeOnlyPerSec: wall(s.ops.decodeOnly),
  };
  const cbor2Figures = {
    encodePerSec: m(s.ops.cbor2Encode),
    decodePerSec: m(s.ops.cbor2Decode),
    bytesAllocatedPerEncode: bytesPerOp(() => s.ops.cbor2Encode.fn()),
  };
  const r = (a: number, b: number): number => +(a / b).toFixed(2);
  results[s.name] = {
    sizeBytes: { min: Math.min(...s.encoded.map((e) => e.length)), max: Math.max(...s.encoded.map((e) => e.length)) },
    ours,
    oursWallClock,
    cbor2: cbor2Figures,
    ratio: {
      encodeVsCbor2: r(ours.encodePerSec, cbor2Figures.encodePerSec),
      decodeVsCbor2Generic: r(ours.decodeValidatePerSec, cbor2Figures.decodePerSec),
    },
  };
}

console.log(
  JSON.stringify(
    {
      name: 'wire-envelope',
      environment: machine(),
      referenceComparison: 'not measured here: `pnpm bench:reference wire` fetches @laserdata/laser-sdk 0.1.1 and compares it in the same run',
      method: {
        runs: RUNS,
        batchMs: BATCH_MS,
        figure:
          'median over runs (interleaved across all scenarios, ours first, then cbor2) of ops per CPU second of this process (process.cpuUsage, user + system, so GC threads count): the machine may be shared with other jobs (see environment.loadAverage), which CPU time is far less sensitive to than wall time; median wall-clock figures are in oursWallClock. Ratios divide our median by cbor2\'s median from the same run',
        inputs: `a ring of ${RING_SIZE} distinct envelopes per scenario, walked in order (no input repeats back to back)`,
        allocation: `bytes per op = (heapUsed + arrayBuffers) delta over ${ALLOC_OPS} ops after a forced GC, results kept alive; largest of 5 windows (a GC inside a window only lowers it)`,
      },
      results,
      sink: sink & 1,
    },
    null,
    2,
  ),
);
