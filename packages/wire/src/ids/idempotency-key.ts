import { InvalidError } from '../errors.js';
import { utf8Length } from './utf8.js';

/** Cap on an idempotency key, in UTF-8 bytes. */
export const MAX_IDEMPOTENCY_KEY_BYTES = 64;

/** A business idempotency key: 1..64 UTF-8 bytes of any text (commands, responses and events only). */
export class IdempotencyKey {
  /** The key text. */
  readonly value: string;

  private constructor(value: string) {
    this.value = value;
  }

  /**
   * Creates a key.
   * @throws InvalidError `idempotency key must not be empty` / `idempotency key is NB, exceeds cap 64B`.
   */
  static new(text: string): IdempotencyKey {
    if (typeof text !== 'string' || text.length === 0) throw new InvalidError('idempotency key must not be empty');
    const bytes = utf8Length(text);
    if (bytes > MAX_IDEMPOTENCY_KEY_BYTES) {
      throw new InvalidError(`idempotency key is ${bytes}B, exceeds cap ${MAX_IDEMPOTENCY_KEY_BYTES}B`, {
        context: { bytes, cap: MAX_IDEMPOTENCY_KEY_BYTES },
      });
    }
    return new IdempotencyKey(text);
  }

  /** The key text. */
  toString(): string {
    return this.value;
  }

  /** JSON form: the key text. */
  toJSON(): string {
    return this.value;
  }

  /** True when both keys have the same text. */
  equals(other: IdempotencyKey | undefined | null): boolean {
    return other !== undefined && other !== null && other.value === this.value;
  }
}
