// A registered VSR session on a raw node:net socket that writes frames encoded beforehand, a fixed
// number in flight, and counts the replies: what the dev-server benchmarks drive a server with,
// so the client's own cost per request is a socket write and a frame split, not our transport.
import net from 'node:net';
import { VsrClientSession, VsrFrameSplitter } from '@agdx/iggy-protocol';
import type { VsrPendingRequest } from '@agdx/iggy-protocol';

/** A connected, registered session and its pipelined writer. */
export interface VsrPipelinedClient {
  /** The session that encodes the frames `sendAll` writes (its request numbers must match). */
  readonly session: VsrClientSession;
  /** Writes `frames` with at most `inFlight` unanswered; resolves when every one is answered, rejects on a refusal. */
  readonly sendAll: (frames: readonly VsrPendingRequest[]) => Promise<void>;
  readonly close: () => void;
}

/** Connects to 127.0.0.1:`port`, registers as iggy/iggy, and keeps `inFlight` requests on the wire in `sendAll`. */
export async function connectVsrPipelined(port: number, inFlight: number): Promise<VsrPipelinedClient> {
  const socket = net.connect({ host: '127.0.0.1', port });
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  const session = new VsrClientSession({ sdkName: 'agdx-bench', sdkVersion: '0' });
  const splitter = new VsrFrameSplitter();
  let onReply: (ok: boolean, detail: string) => void = () => undefined;
  socket.on('data', (chunk: Buffer) => {
    for (const frame of splitter.push(chunk)) {
      const outcome = session.handleFrame(frame);
      onReply(outcome.ok, outcome.ok ? '' : `${outcome.error.code} ${outcome.error.codeName}`);
    }
  });
  await new Promise<void>((resolve, reject) => {
    onReply = (ok, detail) => (ok ? resolve() : reject(new Error(`register refused: ${detail}`)));
    socket.write(session.register({ username: 'iggy', password: 'iggy' }).frame);
  });
  const sendAll = (frames: readonly VsrPendingRequest[]): Promise<void> =>
    new Promise((resolve, reject) => {
      let written = 0;
      let answered = 0;
      onReply = (ok, detail) => {
        if (!ok) return reject(new Error(`request refused: ${detail}`));
        answered += 1;
        if (answered === frames.length) return resolve();
        if (written < frames.length) socket.write((frames[written++] as VsrPendingRequest).frame);
      };
      while (written < Math.min(inFlight, frames.length)) socket.write((frames[written++] as VsrPendingRequest).frame);
    });
  return { session, sendAll, close: () => socket.destroy() };
}
