/** Test support: a MemoryLog whose appends can be held back (a slow log) or refused (a log that is down). */
import { MemoryLog, type AppendRequest, type AppendResult } from '@agdx/transport';

export class GatedLog extends MemoryLog {
  appends = 0;
  #gate: Promise<void> | undefined;
  #open: (() => void) | undefined;
  refuse: Error | undefined;

  /** Holds every append from now on until {@link release}. */
  hold(): void {
    this.#gate = new Promise((resolve) => (this.#open = resolve));
  }

  /** Lets held and later appends through. */
  release(): void {
    this.#open?.();
    this.#gate = undefined;
  }

  override async append(request: AppendRequest): Promise<AppendResult> {
    this.appends += 1;
    if (this.#gate !== undefined) await this.#gate;
    if (this.refuse !== undefined) throw this.refuse;
    return super.append(request);
  }
}
