/** Opening the log a command works on: the embedded MemoryLog, or an Iggy server by URL. */

import { MemoryLog, type LogTransport } from '@agdx/transport';
import { IggyTransport, parseConnectionString } from '@agdx/transport-iggy';
import { UsageError } from './errors.js';

/** An open log and how to describe it to a person. */
export interface OpenLog {
  /** The transport. */
  readonly transport: LogTransport;
  /** `embedded MemoryLog` or the server URL without its password. */
  readonly description: string;
  /** Closes the transport. */
  close(): Promise<void>;
}

/** Hides the password of an `iggy://user:password@host` URL. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z+]+:\/\/[^:/@]*:)[^@]*@/i, '$1***@');
}

/**
 * Refuses a malformed `--iggy` URL as a usage error (exit 2) before any connection is tried: a
 * bad scheme, port or query is the command line's fault, not the server's.
 */
export function checkIggyUrl(iggyUrl: string): void {
  try {
    parseConnectionString(iggyUrl);
  } catch (error) {
    throw new UsageError(`--iggy ${redactUrl(iggyUrl)}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/** Connects to `iggyUrl`, or opens an in-process MemoryLog when it is undefined. */
export async function openLog(iggyUrl: string | undefined, signal?: AbortSignal): Promise<OpenLog> {
  if (iggyUrl === undefined) {
    const transport = new MemoryLog();
    return { transport, description: 'embedded MemoryLog (in this process)', close: () => transport.close() };
  }
  checkIggyUrl(iggyUrl);
  const transport = await IggyTransport.connect(iggyUrl, {}, { signal });
  return { transport, description: `Iggy at ${redactUrl(iggyUrl)}`, close: () => transport.close() };
}

/** Connects to an Iggy server, runs `body` with the transport, and closes it whatever happens. */
export async function withIggy<T>(iggyUrl: string, signal: AbortSignal, body: (transport: IggyTransport) => Promise<T>): Promise<T> {
  checkIggyUrl(iggyUrl);
  const transport = await IggyTransport.connect(iggyUrl, {}, { signal });
  try {
    return await body(transport);
  } finally {
    await transport.close();
  }
}
