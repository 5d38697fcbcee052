// What the checksums of @agdx/iggy-protocol cost per input size, in three back ends, each in its
// own child process (an installed WebAssembly hasher stays on for a process):
//   - javascript: the package's default, plain JavaScript XXH3-64 and js-xxhash XXH32 (no
//     WebAssembly: what browsers and edge runtimes run);
//   - wasm: `xxh3_64` after `loadWasmChecksums()` (`@agdx/iggy-protocol/wasm-checksums`, what the
//     TCP client and the dev server load; inputs of up to 240 bytes stay in JavaScript);
//   - hash-wasm: hash-wasm's XXH3-64 and XXH32 (the library the package used before), through a
//     reused hasher (init, update, binary digest).
// Sizes: 140 B (one VSR frame of a 100-byte message), 1 KiB, 8,044 B (the batch checksum input of
// a 1,000-message batch), 64 KiB and 1 MiB; XXH32 of a 26-byte key (a ULID). Each child hashes
// eight distinct inputs in turn and reports CPU nanoseconds (user + system, process.cpuUsage)
// divided by the hashes done. Rounds alternate the back ends, rotating which goes first;
// AGDX_BENCH_RUNS sets the rounds (default 5). Prints one JSON object.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { xxh32, xxh3_64 } from '@agdx/iggy-protocol';
import { loadWasmChecksums } from '@agdx/iggy-protocol/wasm-checksums';
import { machine } from './support/machine.js';
import { median } from './support/stats.js';

const SIZES = [140, 1024, 8044, 65536, 1 << 20];
const KEY_BYTES = 26;
/** Bytes hashed per measurement and size: enough CPU time to dwarf the clock's resolution. */
const BYTES_PER_RUN = 48_000_000;
const ROUNDS = Number(process.env.AGDX_BENCH_RUNS ?? 5);
const MODES = ['javascript', 'wasm', 'hash-wasm'] as const;
type Mode = (typeof MODES)[number];

interface Hashers {
  readonly xxh3: (bytes: Uint8Array) => unknown;
  readonly xxh32: ((bytes: Uint8Array) => unknown) | undefined;
}

/** The part of hash-wasm's API used here (its types resolve only inside @agdx/iggy-protocol). */
interface HashWasmHasher {
  init(): unknown;
  update(bytes: Uint8Array): unknown;
  digest(format: 'binary'): Uint8Array;
}
interface HashWasm {
  createXXHash3(seedLow: number, seedHigh: number): Promise<HashWasmHasher>;
  createXXHash32(seed: number): Promise<HashWasmHasher>;
}

/** hash-wasm is a dev dependency of @agdx/iggy-protocol, so it is resolved from there. */
async function hashWasm(): Promise<Hashers> {
  const from = createRequire(new URL('../packages/iggy-protocol/package.json', import.meta.url));
  const lib = (await import(pathToFileURL(from.resolve('hash-wasm')).href)) as HashWasm;
  const h3 = await lib.createXXHash3(0, 0);
  const h32 = await lib.createXXHash32(0);
  return {
    xxh3: (bytes) => {
      h3.init();
      h3.update(bytes);
      return h3.digest('binary');
    },
    xxh32: (bytes) => {
      h32.init();
      h32.update(bytes);
      return h32.digest('binary');
    },
  };
}

/** CPU ns per call of `hash` over `inputs` in turn, `calls` times after a quarter as warm-up. */
function cpuNanosPerHash(hash: (bytes: Uint8Array) => unknown, inputs: readonly Uint8Array[], calls: number): number {
  for (let i = 0; i < calls / 4; i++) hash(inputs[i & 7] as Uint8Array);
  const t0 = process.cpuUsage();
  for (let i = 0; i < calls; i++) hash(inputs[i & 7] as Uint8Array);
  const t = process.cpuUsage(t0);
  return ((t.user + t.system) * 1000) / calls;
}

function inputsOf(size: number): Uint8Array[] {
  return Array.from({ length: 8 }, (_, k) => Uint8Array.from({ length: size }, (_, i) => (i * 131 + k * 17 + (i >>> 8)) & 0xff));
}

/** The child: every size in `mode`, printed as `{ size: ns per hash }`. */
async function child(mode: Mode): Promise<void> {
  let hashers: Hashers = { xxh3: xxh3_64, xxh32 };
  if (mode === 'wasm') {
    await loadWasmChecksums();
    hashers = { xxh3: xxh3_64, xxh32: undefined };
  } else if (mode === 'hash-wasm') {
    hashers = await hashWasm();
  }
  const out: Record<string, number> = {};
  for (const size of SIZES) out[`xxh3_${size}`] = cpuNanosPerHash(hashers.xxh3, inputsOf(size), Math.max(40, Math.floor(BYTES_PER_RUN / (size + 200))));
  if (hashers.xxh32 !== undefined) out[`xxh32_${KEY_BYTES}`] = cpuNanosPerHash(hashers.xxh32, inputsOf(KEY_BYTES), 2_000_000);
  console.log(JSON.stringify(out));
}

async function main(): Promise<void> {
  const self = fileURLToPath(import.meta.url);
  const before = machine();
  const samples = new Map<string, number[]>();
  const ratios = new Map<string, number[]>();
  const push = (map: Map<string, number[]>, key: string, value: number): void => {
    map.set(key, [...(map.get(key) ?? []), value]);
  };
  for (let round = 0; round < ROUNDS; round++) {
    const got = new Map<Mode, Record<string, number>>();
    for (let i = 0; i < MODES.length; i++) {
      const mode = MODES[(i + round) % MODES.length] as Mode;
      const out = execFileSync(process.execPath, [...process.execArgv, self, mode], { encoding: 'utf8' });
      const values = JSON.parse(out.trim().split('\n').at(-1) as string) as Record<string, number>;
      got.set(mode, values);
      for (const [key, ns] of Object.entries(values)) push(samples, `${mode}.${key}`, ns);
    }
    const js = got.get('javascript') as Record<string, number>;
    for (const [key, ns] of Object.entries(js)) {
      const wasm = got.get('wasm')?.[key];
      const hw = got.get('hash-wasm')?.[key];
      if (wasm !== undefined) push(ratios, `javascriptToWasm.${key}`, ns / wasm);
      if (hw !== undefined) push(ratios, `javascriptToHashWasm.${key}`, ns / hw);
    }
  }
  const spread = (v: readonly number[], digits: number) => ({ min: Number(Math.min(...v).toFixed(digits)), median: Number(median(v).toFixed(digits)), max: Number(Math.max(...v).toFixed(digits)) });
  const perSize: Record<string, Record<string, unknown>> = {};
  for (const [name, v] of samples) {
    const [mode, key] = name.split('.') as [string, string];
    const bytes = Number(key.split('_')[1]);
    perSize[key] ??= {};
    perSize[key][mode] = { cpuNanosPerHash: spread(v, 0), megabytesPerCpuSecond: Math.round((bytes * 1000) / median(v)) };
  }
  console.log(
    JSON.stringify(
      {
        name: 'iggy-protocol-checksums',
        machineBefore: before,
        machineAfter: machine(),
        workload: `XXH3-64 (seed 0) of ${SIZES.join(', ')}-byte inputs and XXH32 of a ${KEY_BYTES}-byte key; ${ROUNDS} rounds, back ends alternating, each in its own child`,
        results: { perSize, ratios: Object.fromEntries([...ratios].map(([k, v]) => [k, spread(v, 2)])) },
        notes: 'cpuNanosPerHash: CPU ns (user + system of the child) divided by the hashes done, min/median/max over rounds; megabytesPerCpuSecond: input bytes divided by the median CPU time (10^6 bytes per CPU second); ratios: javascript ÷ wasm and javascript ÷ hash-wasm CPU time per hash, per round (above 1: JavaScript costs more)',
      },
      null,
      2,
    ),
  );
}

const mode = process.argv[2] as Mode | undefined;
if (mode !== undefined && (MODES as readonly string[]).includes(mode)) await child(mode);
else await main();
