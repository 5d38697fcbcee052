/**
 * The server half of one classic connection as a pure state machine: every command but Ping and
 * the two logins needs a logged-in session (status 40), unknown codes get status 3.
 */

import { CommandCode, isKnownCommandCode } from '../commands/command-codes.js';

/** What the server should do with a classic request. */
export type ClassicServerAdmission =
  /** Answer with this error status and an empty payload. */
  | { readonly action: 'deny'; readonly status: number }
  /** Run the command. */
  | { readonly action: 'execute'; readonly code: number };

/** The server half of a classic connection. */
export class ClassicServerSession {
  #userId: number | undefined;

  /** The logged-in user, if any. */
  get userId(): number | undefined {
    return this.#userId;
  }

  /** True once a login succeeded (and until logout). */
  get authenticated(): boolean {
    return this.#userId !== undefined;
  }

  /** Classifies a request by its command code. */
  admit(code: number): ClassicServerAdmission {
    if (!isKnownCommandCode(code) || code === CommandCode.LoginRegister || code === CommandCode.LoginRegisterWithPersonalAccessToken || code === CommandCode.SyncConsumerGroup || code === CommandCode.DescribeOptions) {
      return { action: 'deny', status: 3 };
    }
    if (code === CommandCode.Ping || code === CommandCode.LoginUser || code === CommandCode.LoginWithPersonalAccessToken) return { action: 'execute', code };
    if (this.#userId === undefined) return { action: 'deny', status: 40 };
    return { action: 'execute', code };
  }

  /** Records a successful login. */
  login(userId: number): void {
    this.#userId = userId;
  }

  /** Records a logout. */
  logout(): void {
    this.#userId = undefined;
  }
}
