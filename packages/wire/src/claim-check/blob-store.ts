import { AgdxError, type AgdxErrorOptions, type ErrorKind } from '../errors.js';

/** Where claim-checked bodies live. `put` returns the reference a BodyRef will carry. */
export interface BlobStore {
  /** Stores the bytes and returns their reference. */
  put(bytes: Uint8Array): Promise<string>;
  /** The bytes stored under `reference`, or undefined when there are none. */
  get(reference: string): Promise<Uint8Array | undefined>;
}

/** A claim-checked body whose blob is not in the store. */
export class BlobNotFoundError extends AgdxError {
  /** The kind every instance carries. */
  static readonly KIND: ErrorKind = 'not-found';
  constructor(message: string, options?: AgdxErrorOptions) {
    super('not-found', message, options);
  }
}

/** A process-local {@link BlobStore} for tests and single-process deployments (`mem://blobs/<n>`). */
export class InMemoryBlobStore implements BlobStore {
  readonly #blobs = new Map<string, Uint8Array>();
  #next = 0;

  /** Stores a copy of the bytes. */
  put(bytes: Uint8Array): Promise<string> {
    const reference = `mem://blobs/${this.#next++}`;
    this.#blobs.set(reference, new Uint8Array(bytes));
    return Promise.resolve(reference);
  }

  /** Returns a copy of the stored bytes. */
  get(reference: string): Promise<Uint8Array | undefined> {
    const bytes = this.#blobs.get(reference);
    return Promise.resolve(bytes === undefined ? undefined : new Uint8Array(bytes));
  }

  /** Number of stored blobs. */
  get size(): number {
    return this.#blobs.size;
  }
}
