/**
 * Login-failure accounting, kept apart from the login handlers so that every way of logging in
 * (password, token, either protocol generation) calls the same three methods and shares the
 * same limits.
 *
 * Per connection: after `perConnection` failed logins the connection is closed (a classic
 * client could otherwise try passwords as fast as the loop turns). Per remote address: every
 * failed answer is delayed, doubling with the address's recent failures, and once an address
 * has `perAddress` failures inside the lockout window it is refused without a credential check
 * until the window passes. Success never clears an address's failures: one known account must
 * not buy unlimited guesses at another.
 */

/** The limits of a {@link LoginGuard}. */
export interface LoginLimits {
  /** Failed logins after which a connection is closed. */
  readonly perConnection: number;
  /** Failed logins from one address, within `lockoutMs`, after which the address is locked out. */
  readonly perAddress: number;
  /** How long failures are remembered, and how long a lockout lasts, ms. */
  readonly lockoutMs: number;
  /** The delay before the first failure's answer, ms; it doubles per recent failure of the address, up to 16×. */
  readonly failureDelayMs: number;
  /** Addresses remembered at most; the least recently failing one is forgotten first. */
  readonly maxAddresses: number;
}

/** Whether to check credentials now. */
export type LoginAdmission = { readonly action: 'check' } | { readonly action: 'refuse'; readonly delayMs: number };

/** What to do after a failed login: answer after `delayMs`, then close when `close` is set. */
export interface LoginFailure {
  readonly delayMs: number;
  readonly close: boolean;
}

interface AddressRecord {
  /** Failure times inside the window, oldest first (at most `perAddress` kept). */
  readonly failures: number[];
  /** Refused until this time (ms), 0 when not locked out. */
  lockedUntil: number;
}

/** The status a refused login gets: Iggy's "not accepted now, send it again later". */
export const LOGIN_REFUSED_STATUS = 58;

/** Longest extra delay, as a multiple of `failureDelayMs`. */
const MAX_DELAY_FACTOR = 16;

/** Shared by every connection of one server. */
export class LoginGuard {
  readonly #limits: LoginLimits;
  readonly #now: () => number;
  readonly #addresses = new Map<string, AddressRecord>();

  constructor(limits: LoginLimits, now: () => number = Date.now) {
    this.#limits = limits;
    this.#now = now;
  }

  /** The accounting of one connection from `host` (an IP address, without the port). */
  forConnection(host: string): LoginAttempts {
    return new LoginAttempts(this, host, this.#limits.perConnection);
  }

  /** Addresses currently remembered (for tests and figures). */
  get trackedAddresses(): number {
    return this.#addresses.size;
  }

  /** Before a credential check: refused while `host` is locked out. */
  admit(host: string): LoginAdmission {
    const record = this.#addresses.get(host);
    if (record === undefined) return { action: 'check' };
    const now = this.#now();
    if (record.lockedUntil > now) return { action: 'refuse', delayMs: this.#delay(record.failures.length) };
    return { action: 'check' };
  }

  /** Records a failure from `host`; returns how long to hold its answer. */
  failed(host: string): number {
    const now = this.#now();
    let record = this.#addresses.get(host);
    if (record === undefined) {
      record = { failures: [], lockedUntil: 0 };
    } else {
      // Re-inserted below so the map's order is least recently failing first.
      this.#addresses.delete(host);
    }
    this.#addresses.set(host, record);
    const since = now - this.#limits.lockoutMs;
    while (record.failures.length > 0 && (record.failures[0] as number) <= since) record.failures.shift();
    record.failures.push(now);
    if (record.failures.length > this.#limits.perAddress) record.failures.shift();
    if (record.failures.length >= this.#limits.perAddress) record.lockedUntil = now + this.#limits.lockoutMs;
    this.#forgetOldest(now);
    return this.#delay(record.failures.length);
  }

  #delay(recentFailures: number): number {
    const factor = Math.min(MAX_DELAY_FACTOR, 2 ** Math.max(0, recentFailures - 1));
    return this.#limits.failureDelayMs * factor;
  }

  #forgetOldest(now: number): void {
    while (this.#addresses.size > this.#limits.maxAddresses) {
      const oldest = this.#addresses.keys().next();
      if (oldest.done === true) return;
      this.#addresses.delete(oldest.value);
    }
    // Drop one expired record per failure, so the table shrinks without a timer.
    const first = this.#addresses.entries().next();
    if (first.done !== true) {
      const [host, record] = first.value;
      const last = record.failures[record.failures.length - 1] ?? 0;
      if (record.lockedUntil <= now && last <= now - this.#limits.lockoutMs) this.#addresses.delete(host);
    }
  }
}

/** One connection's view of the guard. */
export class LoginAttempts {
  readonly #guard: LoginGuard;
  readonly #host: string;
  readonly #limit: number;
  #failures = 0;

  constructor(guard: LoginGuard, host: string, limit: number) {
    this.#guard = guard;
    this.#host = host;
    this.#limit = limit;
  }

  /** Call before checking credentials. */
  admit(): LoginAdmission {
    return this.#guard.admit(this.#host);
  }

  /** Call after a failed login (wrong credentials, unknown token, malformed body). */
  failed(): LoginFailure {
    this.#failures++;
    return { delayMs: this.#guard.failed(this.#host), close: this.#failures >= this.#limit };
  }
}
