import { InvalidError } from '@agdx/wire';
import { EmbedderError } from './memory-errors.js';

/** The largest vector a memory item may carry (a stored vector above it is ignored, an embedder's refused). */
export const MAX_EMBEDDING_DIMENSIONS = 8192;
/** Texts handed to the embedder per call when many items need vectors at once. */
export const EMBED_BATCH = 64;

/**
 * Turns texts into vectors; the SDK never calls a model itself. `embed` gets a batch of texts and
 * returns one vector per text, in order, each exactly `dimensions` finite numbers. It may be
 * synchronous or asynchronous and should honour `signal`.
 */
export interface Embedder {
  /** The length of every vector `embed` returns (1 to {@link MAX_EMBEDDING_DIMENSIONS}). */
  readonly dimensions: number;
  /** One vector per text, in order. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<readonly ArrayLike<number>[]> | readonly ArrayLike<number>[];
}

/** @throws InvalidError when `embedder` is not an {@link Embedder}. */
export function checkEmbedder(embedder: Embedder): void {
  if (typeof embedder !== 'object' || embedder === null || typeof embedder.embed !== 'function') {
    throw new InvalidError('an embedder is an object with dimensions and embed(texts)');
  }
  const d = embedder.dimensions;
  if (!Number.isSafeInteger(d) || d < 1 || d > MAX_EMBEDDING_DIMENSIONS) {
    throw new InvalidError(`embedder dimensions must be an integer from 1 to ${MAX_EMBEDDING_DIMENSIONS}`);
  }
}

/**
 * Calls the embedder for `texts` (in batches of {@link EMBED_BATCH}) and checks what it returns.
 * Vectors are kept as float32 (what the log stores).
 * @throws EmbedderError when it throws or returns anything but `texts.length` vectors of `dimensions` finite numbers.
 */
export async function embedTexts(embedder: Embedder, texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let start = 0; start < texts.length; start += EMBED_BATCH) {
    signal?.throwIfAborted();
    const batch = texts.slice(start, start + EMBED_BATCH);
    let vectors: unknown;
    try {
      vectors = await embedder.embed(batch, signal);
    } catch (error) {
      signal?.throwIfAborted();
      throw new EmbedderError(error instanceof Error ? error.message : String(error), { cause: error });
    }
    if (!Array.isArray(vectors) || vectors.length !== batch.length) {
      throw new EmbedderError(`expected ${batch.length} vector(s), got ${Array.isArray(vectors) ? vectors.length : typeof vectors}`);
    }
    for (const v of vectors as unknown[]) out.push(checkVector(v, embedder.dimensions));
  }
  return out;
}

function checkVector(v: unknown, dimensions: number): Float32Array {
  const length = (v as { length?: unknown } | null)?.length;
  if (typeof v !== 'object' || v === null || typeof length !== 'number') throw new EmbedderError('a vector must be an array of numbers');
  if (length !== dimensions) throw new EmbedderError(`a vector has ${length} dimension(s), the embedder declares ${dimensions}`);
  const out = new Float32Array(dimensions);
  const arr = v as ArrayLike<unknown>;
  for (let i = 0; i < dimensions; i++) {
    const x = arr[i];
    out[i] = typeof x === 'number' ? x : NaN;
    // checked after narrowing: a number beyond float32's range is as unusable as NaN
    if (!Number.isFinite(out[i])) throw new EmbedderError(`vector component ${i} is not a finite float32 number`);
  }
  return out;
}

/** Cosine similarity in [-1, 1]; 0 when either vector is all zeros or the lengths differ. */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  if (na === 0 || nb === 0) return 0;
  const c = dot / Math.sqrt(na * nb);
  return c > 1 ? 1 : c < -1 ? -1 : c;
}

/** The vector scaled to length 1 (an all-zero vector stays zero), so that cosine similarity is a dot product. */
export function unitVector(vector: Float32Array): Float32Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += (vector[i] as number) ** 2;
  const out = new Float32Array(vector.length);
  if (norm === 0) return out;
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < vector.length; i++) out[i] = (vector[i] as number) * scale;
  return out;
}

/** The dot product of two vectors of one length. */
export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}

/** A vector as little-endian float32 bytes (how an item record carries it). */
export function vectorToBytes(vector: Float32Array): Uint8Array {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < vector.length; i++) view.setFloat32(i * 4, vector[i] as number, true);
  return bytes;
}

/** Little-endian float32 bytes as a vector; undefined when the length is not a whole, allowed vector or a component is not finite. */
export function vectorFromBytes(bytes: Uint8Array): Float32Array | undefined {
  if (bytes.length === 0 || bytes.length % 4 !== 0 || bytes.length / 4 > MAX_EMBEDDING_DIMENSIONS) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(bytes.length / 4);
  for (let i = 0; i < out.length; i++) {
    const x = view.getFloat32(i * 4, true);
    if (!Number.isFinite(x)) return undefined;
    out[i] = x;
  }
  return out;
}
