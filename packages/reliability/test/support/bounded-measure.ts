/** Time and memory of one decode of a crafted record, for the bounded-decoder test and long run. */
import { isBrandedError } from '@agdx/reliability';
import type { BoundedDecoder, BoundedInput } from './bounded-inputs.js';
import { findGc } from './memory-sampler.js';

/** How one decode of one input went. */
export interface DecodeMeasure {
  readonly decoder: string;
  readonly input: string;
  readonly bytes: number;
  readonly outcome: 'accepted' | 'typed' | 'untyped';
  /** The error's `kind` for a typed refusal. */
  readonly kind?: string;
  readonly ms: number;
  /** Heap plus array-buffer growth across the decode, result kept alive (a collection is forced before). */
  readonly extraBytes: number;
}

const gc = findGc();

function used(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** Decodes `input` once with `decoder`, timing it and measuring what it allocated and kept. */
export function measureDecode(decoder: BoundedDecoder, input: BoundedInput): DecodeMeasure {
  gc?.();
  const before = used();
  const started = performance.now();
  let result: unknown;
  let outcome: DecodeMeasure['outcome'] = 'accepted';
  let kind: string | undefined;
  try {
    result = decoder.decode(input.bytes);
  } catch (error) {
    outcome = isBrandedError(error) ? 'typed' : 'untyped';
    kind = isBrandedError(error) ? (error as { kind: string }).kind : String(error);
  }
  const ms = performance.now() - started;
  const extraBytes = Math.max(0, used() - before);
  // Keeps the decoded value alive until memory has been read.
  if (result === before) throw new Error('unreachable');
  const base = { decoder: decoder.name, input: input.name, bytes: input.bytes.length, outcome, ms, extraBytes };
  return kind === undefined ? base : { ...base, kind };
}
