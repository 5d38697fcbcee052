const AGDX_BRAND: unique symbol = Symbol.for('agdx.error') as never;

/** How a hostile input ended. */
export const InputOutcome = {
  /** Decoded or answered normally. */
  Accepted: 'accepted',
  /** Refused with a branded AGDX error (the contract). */
  Typed: 'typed',
  /** Anything else thrown: a bug. */
  Untyped: 'untyped',
} as const;
/** How a hostile input ended. */
export type InputOutcome = (typeof InputOutcome)[keyof typeof InputOutcome];

/** True for an error carrying the AGDX brand, whatever package copy threw it. */
export function isBrandedError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[AGDX_BRAND] === true;
}

/** Counts of outcomes plus the first few untyped errors, for the report. */
export class OutcomeTally {
  /** Inputs that decoded. */
  accepted = 0;
  /** Inputs refused with a typed error. */
  typed = 0;
  /** Inputs that threw anything else. */
  untyped = 0;
  /** Up to `keep` samples of untyped errors (name: message, and the input's index). */
  readonly samples: string[] = [];
  readonly #keep: number;

  /** Keeps at most `keep` untyped samples. */
  constructor(keep = 5) {
    this.#keep = keep;
  }

  /** Runs `attempt` and counts how it ended. */
  run(index: number, attempt: () => unknown): InputOutcome {
    try {
      attempt();
      this.accepted += 1;
      return InputOutcome.Accepted;
    } catch (error) {
      return this.record(index, error);
    }
  }

  /** Counts a thrown value. */
  record(index: number, error: unknown): InputOutcome {
    if (isBrandedError(error)) {
      this.typed += 1;
      return InputOutcome.Typed;
    }
    this.untyped += 1;
    if (this.samples.length < this.#keep) {
      const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      this.samples.push(`#${index} ${text}`);
    }
    return InputOutcome.Untyped;
  }

  /** Every input counted. */
  get total(): number {
    return this.accepted + this.typed + this.untyped;
  }

  /** A plain object for JSON reports. */
  toJSON(): { accepted: number; typed: number; untyped: number; samples: string[] } {
    return { accepted: this.accepted, typed: this.typed, untyped: this.untyped, samples: [...this.samples] };
  }
}
