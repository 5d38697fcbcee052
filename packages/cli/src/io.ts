/** Where a command writes, so tests and the bin share one code path. */

/** A text sink (process.stdout, or a buffer in tests). */
export interface TextSink {
  /** Writes text as is (the caller adds newlines). */
  write(text: string): unknown;
}

/** The streams and signal a command runs with. */
export interface CommandIo {
  /** Normal output. */
  readonly out: TextSink;
  /** Diagnostics and progress. */
  readonly err: TextSink;
  /** Fires on Ctrl-C / SIGTERM: long-running commands stop cleanly when it does. */
  readonly signal: AbortSignal;
  /** True when `out` is a terminal (colours and progress bars only then). */
  readonly isTty: boolean;
}

/** Writes one line. */
export function line(sink: TextSink, text: string = ''): void {
  sink.write(`${text}\n`);
}
