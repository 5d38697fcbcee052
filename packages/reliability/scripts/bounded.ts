/**
 * Long run of bounded decoding (issue 19, item 1): --rounds (default 10) passes of every crafted
 * worst-case record through every record decoder of @agdx/wire, the largest records each still
 * accepts, and --mutations (default 2,000) mutated copies of those per decoder and round. Reports
 * inputs tried, the slowest decode or refusal, and the most extra memory one decode kept (heap plus
 * array buffers after a forced collection before it; run with --expose-gc for exact figures).
 * Writes results/bounded.json; exits 1 on any untyped error or a crafted record that was accepted.
 */
import { mutateBytes, SeededRandom, summarize } from '@agdx/reliability';
import { boundedDecoders, hostileInputs, largestAccepted, type BoundedInput } from '../test/support/bounded-inputs.js';
import { measureDecode, type DecodeMeasure } from '../test/support/bounded-measure.js';
import { numberArg, writeResult } from '../test/support/results.js';

const rounds = numberArg('rounds', 10);
const mutations = numberArg('mutations', 2_000);
const seed = numberArg('seed', 0x1919);
const random = new SeededRandom(seed);
const hostile = hostileInputs();
const accepted = largestAccepted();

const measures: DecodeMeasure[] = [];
let untyped = 0;
let hostileAccepted = 0;
let mutatedInputs = 0;
const mutatedTimes: number[] = [];
let slowestMutated: { decoder: string; from: string; ms: number } = { decoder: '', from: '', ms: 0 };

function record(m: DecodeMeasure, mustRefuse: boolean): void {
  measures.push(m);
  if (m.outcome === 'untyped') untyped++;
  if (mustRefuse && m.outcome === 'accepted') hostileAccepted++;
}

for (let round = 0; round < rounds; round++) {
  for (const decoder of boundedDecoders) for (const input of hostile) record(measureDecode(decoder, input), true);
  for (const { decoder, input } of accepted) record(measureDecode(decoder, input), false);
  // Mutations of the largest accepted records: time only (a forced collection per input would dominate).
  for (const { decoder, input } of accepted) {
    for (let i = 0; i < mutations; i++) {
      const mutated: BoundedInput = { name: `mutated ${input.name}`, bytes: mutateBytes(random, input.bytes) };
      const started = performance.now();
      try {
        decoder.decode(mutated.bytes);
      } catch (error) {
        if ((error as Record<symbol, unknown> | null)?.[Symbol.for('agdx.error')] !== true) untyped++;
      }
      const ms = performance.now() - started;
      mutatedInputs++;
      mutatedTimes.push(ms);
      if (ms > slowestMutated.ms) slowestMutated = { decoder: decoder.name, from: input.name, ms };
    }
  }
  process.stdout.write(`round ${round + 1}/${rounds}: ${measures.length + mutatedInputs} inputs\n`);
}

const round1 = (n: number): number => Math.round(n * 10) / 10;
const slowest = measures.reduce((a, b) => (b.ms > a.ms ? b : a));
const byDecoder = boundedDecoders.map((d) => {
  const mine = measures.filter((m) => m.decoder === d.name);
  const worst = mine.reduce((a, b) => (b.ms > a.ms ? b : a));
  const heaviest = mine.reduce((a, b) => (b.extraBytes > a.extraBytes ? b : a));
  return {
    decoder: d.name,
    inputs: mine.length,
    ms: summarize(mine.map((m) => m.ms)),
    slowest: { input: worst.input, ms: round1(worst.ms) },
    mostExtraMemory: { input: heaviest.input, bytes: heaviest.extraBytes, inputBytes: heaviest.bytes },
  };
});
const acceptedRows = accepted.map(({ decoder, input }) => {
  const mine = measures.filter((m) => m.decoder === decoder.name && m.input === input.name);
  const extra = Math.max(...mine.map((m) => m.extraBytes));
  return { decoder: decoder.name, input: input.name, bytes: input.bytes.length, ms: summarize(mine.map((m) => m.ms)), extraBytes: extra, extraPerInputByte: round1(extra / input.bytes.length) };
});
const hostileMeasures = measures.filter((m) => hostile.some((h) => h.name === m.input));
const heaviestRefusal = hostileMeasures.reduce((a, b) => (b.extraBytes > a.extraBytes ? b : a));
const ok = untyped === 0 && hostileAccepted === 0;
const figures = {
  seed,
  rounds,
  gcForced: typeof (globalThis as { gc?: unknown }).gc === 'function',
  inputsTried: measures.length + mutatedInputs,
  crafted: { decoders: boundedDecoders.length, hostileRecords: hostile.map((h) => ({ name: h.name, bytes: h.bytes.length })), acceptedRecords: accepted.length },
  untyped,
  hostileAccepted,
  slowestDecode: { decoder: slowest.decoder, input: slowest.input, ms: round1(slowest.ms) },
  refusalMs: summarize(hostileMeasures.map((m) => m.ms)),
  mostExtraMemoryOnRefusal: { decoder: heaviestRefusal.decoder, input: heaviestRefusal.input, bytes: heaviestRefusal.extraBytes, inputBytes: heaviestRefusal.bytes },
  largestAccepted: acceptedRows,
  mutated: { inputs: mutatedInputs, ms: summarize(mutatedTimes), slowest: { ...slowestMutated, ms: round1(slowestMutated.ms) } },
  byDecoder,
  ok,
};
process.stdout.write(
  `inputs ${figures.inputsTried}, untyped ${untyped}, crafted accepted ${hostileAccepted}, slowest ${figures.slowestDecode.ms} ms (${slowest.decoder} on ${slowest.input}), refusal p50 ${round1(figures.refusalMs.p50)} ms p99 ${round1(figures.refusalMs.p99)} ms\n`,
);
writeResult('bounded', figures);
process.exit(ok ? 0 : 1);
