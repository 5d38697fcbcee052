// What the VSR batch checksums cost the producer: CPU time of encoding a SendMessages body of
// 1,000 x 100-byte messages with @agdx/iggy-protocol, in three modes, each in its own child
// process (the WebAssembly hasher, once loaded, stays on for a process):
//   - wasm: checksums by the WebAssembly XXH3 (`loadWasmChecksums()` of
//     `@agdx/iggy-protocol/wasm-checksums`, what @agdx/transport-iggy and the dev server load);
//   - javascript: checksums by the package's JavaScript XXH3 (the default, no WebAssembly at all:
//     what browsers and edge runtimes use);
//   - none: `checksums: false` (not valid for VSR; the floor: everything but hashing).
// Rounds alternate the modes, rotating which goes first. Each child encodes WARMUP batches, then
// BATCHES batches, and reports CPU microseconds (user + system, process.cpuUsage) per batch.
// Payloads differ in every batch. AGDX_BENCH_RUNS sets the rounds (default 7). Prints one JSON object.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { encodeSendMessagesRequest, partitioning } from '@agdx/iggy-protocol';
import { loadWasmChecksums } from '@agdx/iggy-protocol/wasm-checksums';
import type { OutgoingMessage } from '@agdx/iggy-protocol';
import { machine } from './support/machine.js';
import { median } from './support/stats.js';

const RECORD_BYTES = 100;
const BATCH = 1000;
const WARMUP = 100;
const BATCHES = 400;
const ROUNDS = Number(process.env.AGDX_BENCH_RUNS ?? 7);
const MODES = ['wasm', 'javascript', 'none'] as const;
type Mode = (typeof MODES)[number];

/** The child: encode batches in `mode` and print CPU µs per batch. */
async function child(mode: Mode): Promise<void> {
  if (mode === 'wasm') await loadWasmChecksums();
  // A pool of distinct batches, so that no two consecutive encodes see the same bytes.
  const pool: OutgoingMessage[][] = Array.from({ length: 16 }, (_, b) =>
    Array.from({ length: BATCH }, (_, i) => {
      const payload = new Uint8Array(RECORD_BYTES);
      for (let k = 0; k < RECORD_BYTES; k += 4) payload[k] = (i * 7 + b * 13 + k) & 0xff;
      return { payload };
    }),
  );
  const buffer = new Uint8Array(256 * 1024);
  const options = { checksums: mode !== 'none', allocate: (size: number) => (size <= buffer.length ? buffer.subarray(0, size) : new Uint8Array(size)) };
  const encode = (n: number): void => {
    for (let i = 0; i < n; i++) {
      encodeSendMessagesRequest({ stream: 1, topic: 1, partitioning: partitioning.partitionId(0), messages: pool[i % pool.length] as OutgoingMessage[] }, 'vsr', options);
    }
  };
  encode(WARMUP);
  const t0 = process.cpuUsage();
  encode(BATCHES);
  const t = process.cpuUsage(t0);
  console.log(JSON.stringify({ mode, cpuMicrosPerBatch: (t.user + t.system) / BATCHES }));
}

async function main(): Promise<void> {
  const self = fileURLToPath(import.meta.url);
  const before = machine();
  const perMode = new Map<Mode, number[]>(MODES.map((m) => [m, []]));
  const ratios = { wasmToJavascript: [] as number[], hashingWasmToJavascript: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = MODES.map((_, i) => MODES[(i + round) % MODES.length] as Mode);
    const got = new Map<Mode, number>();
    for (const mode of order) {
      const out = execFileSync(process.execPath, [...process.execArgv, self, mode], { encoding: 'utf8' });
      const value = (JSON.parse(out.trim().split('\n').at(-1) as string) as { cpuMicrosPerBatch: number }).cpuMicrosPerBatch;
      got.set(mode, value);
      perMode.get(mode)?.push(value);
    }
    const w = got.get('wasm') as number, j = got.get('javascript') as number, n = got.get('none') as number;
    ratios.wasmToJavascript.push(w / j);
    ratios.hashingWasmToJavascript.push((w - n) / (j - n));
  }
  const spread = (v: readonly number[]) => ({ min: Number(Math.min(...v).toFixed(3)), median: Number(median(v).toFixed(3)), max: Number(Math.max(...v).toFixed(3)) });
  console.log(
    JSON.stringify(
      {
        name: 'iggy-batch-encode',
        machineBefore: before,
        machineAfter: machine(),
        workload: `encodeSendMessagesRequest of ${BATCH} x ${RECORD_BYTES}-byte messages (VSR) into a reused buffer; ${BATCHES} batches per child after ${WARMUP} warm-up, ${ROUNDS} rounds, modes alternating`,
        results: {
          cpuMicrosPerBatch: Object.fromEntries([...perMode].map(([m, v]) => [m, spread(v)])),
          ratioWasmToJavascript: spread(ratios.wasmToJavascript),
          hashingRatioWasmToJavascript: spread(ratios.hashingWasmToJavascript),
        },
        notes: 'cpuMicrosPerBatch: CPU µs (user + system of the child) divided by the batches encoded; ratioWasmToJavascript: wasm ÷ javascript per round (encode with checksums); hashingRatioWasmToJavascript: (wasm − none) ÷ (javascript − none) per round, i.e. the checksum part alone',
      },
      null,
      2,
    ),
  );
}

const mode = process.argv[2] as Mode | undefined;
if (mode !== undefined && (MODES as readonly string[]).includes(mode)) await child(mode);
else await main();
