/**
 * The slices of node:http's objects the adapter uses, declared structurally so this package
 * never imports node:* and stays runtime-neutral.
 */

/** The slice of node:http's IncomingMessage the adapter reads. */
export interface NodeRequestLike extends AsyncIterable<Uint8Array | string> {
  /** HTTP method. */
  readonly method?: string | undefined;
  /** Request target (path and query). */
  readonly url?: string | undefined;
  /** Lower-cased header map. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The socket; a TLS socket has `encrypted: true`; `remoteAddress` identifies the client by default. */
  readonly socket?: object | null | undefined;
}

/** The slice of node:http's ServerResponse the adapter writes. */
export interface NodeResponseLike {
  /** Status code to send. */
  statusCode: number;
  /** Sets one header. */
  setHeader(name: string, value: string | readonly string[]): unknown;
  /** Writes a body chunk; false asks the writer to wait for `drain`. */
  write(chunk: Uint8Array): boolean;
  /** Ends the response. */
  end(chunk?: Uint8Array): unknown;
  /** Sends the head now (used before a streamed body). */
  flushHeaders?(): void;
  /** True once the response is finished or the socket is gone. */
  readonly writableEnded?: boolean;
  /** True once the head went out. */
  readonly headersSent?: boolean;
  /** Registers a listener (`close`, `drain`). */
  once?(event: string, listener: () => void): unknown;
}

/** A web-standard handler, as the bridges' HTTP handlers are. */
export type FetchHandler = (request: Request) => Promise<Response>;
