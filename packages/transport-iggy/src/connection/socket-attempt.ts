/// <reference types="node" preserve="true" />
/**
 * One attempt to reach a node: open the socket (TCP or TLS), log in (VSR register or classic
 * login) and, with cluster discovery, read the cluster's roster. The attempt hands its socket,
 * session and frame splitter to the connection as soon as the socket opens, because the replies
 * to the handshake arrive through the connection's ordinary frame path.
 */

import net from 'node:net';
import tls from 'node:tls';
import { CancelledError, ClosedError, TimeoutError, TransportFailureError } from '@agdx/transport';
import type { TransportError } from '@agdx/transport';
import {
  ClassicClientSession,
  ClassicResponseSplitter,
  CommandCode,
  VsrClientSession,
  VsrFrameSplitter,
  encodeGetClusterMetadataRequest,
} from '@agdx/iggy-protocol';
import type { ClusterMetadata, FrameSplitter, IggyError } from '@agdx/iggy-protocol';
import type { Endpoint } from '../cluster-directory.js';
import { toTransportError } from '../error-mapping.js';
import type { ResolvedIggyOptions } from '../options.js';
import { readRosterReply } from './roster-reply.js';
import type { Session } from './session.js';

/** The handshake step waiting for its reply: a payload, a server refusal, or a broken stream. */
export interface Handshake {
  readonly resolve: (payload: Uint8Array) => void;
  readonly refuse: (error: IggyError) => void;
  readonly reject: (error: unknown) => void;
}

/** What an attempt needs from the connection it opens a socket for. */
export interface AttemptHost {
  readonly options: ResolvedIggyOptions;
  /** Fires on the connection's close(): ends an attempt still opening its socket. */
  readonly closing: AbortSignal;
  /** True once the connection was closed. */
  isClosed(): boolean;
  /** The socket opened: it becomes the connection's current socket, with its session and splitter. */
  adopt(socket: net.Socket, session: Session, splitter: FrameSplitter, endpoint: Endpoint): void;
  /** The next reply on the current socket answers `step` (login, then the roster read). */
  expect(step: Handshake): void;
  /** True while `socket` is the connection's current socket. */
  isCurrent(socket: net.Socket): boolean;
  /** The attempt failed: the connection forgets `socket` if it is still its current one. */
  forget(socket: net.Socket): void;
  /** Bytes arrived on the current socket. */
  onData(chunk: Uint8Array): void;
  /** The current socket broke after the attempt succeeded. */
  lose(error: TransportError): void;
}

/**
 * Opens a socket to `endpoint` and logs in; with cluster discovery, then reads the cluster
 * metadata. Resolves with the roster, or `undefined` when discovery is off or the server
 * refused the read (a server without clustering support serves as a cluster of one).
 */
export function attemptSocket(host: AttemptHost, endpoint: Endpoint, timeoutMs: number, signal?: AbortSignal): Promise<ClusterMetadata | undefined> {
  const o = host.options;
  const { host: address, port } = endpoint;
  return new Promise<ClusterMetadata | undefined>((resolve, reject) => {
    let done = false;
    let metadata: ClusterMetadata | undefined;
    const onAbort = (): void => finish(new CancelledError('connecting was aborted', { cause: signal?.reason }));
    // close() ends an attempt still opening its socket (a TLS handshake is not the login).
    const onClose = (): void => finish(new ClosedError('the Iggy connection was closed while connecting'));
    const closing = host.closing;
    const finish = (error?: unknown): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      closing.removeEventListener('abort', onClose);
      if (error === undefined) resolve(metadata);
      else {
        host.forget(socket);
        socket.destroy();
        reject(error);
      }
    };
    const timer = setTimeout(() => finish(new TimeoutError(`connecting to ${address}:${port} timed out after ${timeoutMs} ms`, { context: { host: address, port } })), timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    closing.addEventListener('abort', onClose, { once: true });
    const socket: net.Socket = o.tls === undefined
      ? net.connect({ host: address, port })
      : tls.connect({ servername: net.isIP(address) === 0 ? address : undefined, ...o.tls, host: address, port });
    const session: Session = o.protocol === 'vsr'
      ? new VsrClientSession({ sdkName: o.clientName, sdkVersion: '0.1.0', heartbeatIntervalMs: o.heartbeatIntervalMs || 5000 })
      : new ClassicClientSession({ heartbeatIntervalMs: o.heartbeatIntervalMs || 5000 });
    const splitter: FrameSplitter = o.protocol === 'vsr' ? new VsrFrameSplitter() : new ClassicResponseSplitter();
    socket.setNoDelay(true);
    // TCP keep-alive notices a vanished peer even when heartbeats are off.
    socket.setKeepAlive(true, 30_000);
    const readRoster = (): void => {
      if (!o.discoverCluster) return finish();
      let pending: { readonly frame: Uint8Array };
      try {
        pending = session.command(CommandCode.GetClusterMetadata, encodeGetClusterMetadataRequest());
      } catch (error) {
        finish(error);
        return;
      }
      host.expect({
        resolve: (payload) => {
          try {
            metadata = readRosterReply(payload, endpoint);
          } catch (malformed) {
            return finish(malformed);
          }
          finish();
        },
        // A refusal (for example 5, unavailable, from a server without clustering) is an
        // answer: that server serves as a cluster of one.
        refuse: () => finish(),
        reject: finish,
      });
      socket.write(pending.frame);
    };
    socket.once(o.tls === undefined ? 'connect' : 'secureConnect', () => {
      if (done) return;
      if (host.isClosed()) {
        finish(new ClosedError('the Iggy connection was closed while connecting'));
        return;
      }
      host.adopt(socket, session, splitter, endpoint);
      host.expect({ resolve: readRoster, refuse: finish, reject: finish });
      const frame = session instanceof VsrClientSession
        ? session.register(o.credentials).frame
        : session.login(o.credentials).frame;
      socket.write(frame);
    });
    socket.on('data', (chunk: Uint8Array) => {
      if (host.isCurrent(socket)) host.onData(chunk);
    });
    socket.on('error', (error) => {
      if (!done) finish(error);
      else if (host.isCurrent(socket)) host.lose(toTransportError(error));
    });
    socket.on('close', () => {
      if (!done) finish(new TransportFailureError(`the Iggy server at ${address}:${port} closed the connection during login`, { context: { host: address, port } }));
      else if (host.isCurrent(socket)) host.lose(new TransportFailureError('the Iggy server closed the connection'));
    });
  });
}
