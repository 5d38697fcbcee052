// A sink that speaks just enough of the Iggy protocol for a client to log in and send messages,
// acknowledging every SendMessages without decoding or storing the batch, plus a raw byte sink.
// It runs as its own process (`node ... bench/support/iggy-sink.ts`), prints one JSON line with
// its ports and serves until its stdin closes. With it, a benchmark measures the Iggy client alone:
// whatever the client costs beyond a raw socket pushing the same bytes. Like the raw sink, it never
// copies a request body: it keeps each frame's header and counts the body's bytes past (see
// HeaderSkipper), so a 150 KB batch costs the sink about what 150 KB costs the raw sink, and the
// client's figures are not held back by a sink gathering and allocating every frame.
//   VSR (binary protocol 0.11): Register accepted for any credentials; SendMessages answered with
//     one confirmation (partition 0, base offset = batches seen); anything else with an empty reply.
//   classic (0.10): LoginUser answered with user id 1; SendMessages with an empty OK; GetTopic (the
//     classic client reads offsets with it after each send) with SINK_PARTITIONS partitions whose
//     offsets grow by one per batch sent to any of them; anything else with an empty OK.
//   raw: reads `[total u64 LE]` then that many bytes and answers one byte.
import net from 'node:net';
import { pathToFileURL } from 'node:url';
import {
  CommandCode,
  IGGY_PROTOCOL_VERSION,
  VSR_HEADER_SIZE,
  VsrServerSession,
  decodeVsrRequestHeader,
  encodeClassicResponse,
  encodeIdentityResponse,
  encodeRegisterReply,
  encodeSendMessagesResponse,
  encodeTopicDetails,
} from '@agdx/iggy-protocol';

/** The ports the sink process listens on (loopback). */
export interface SinkPorts {
  readonly vsr: number;
  readonly classic: number;
  readonly raw: number;
}

const EMPTY = new Uint8Array(0);

/** Partitions the classic GetTopic answer lists, so callers may spread appends over them. */
export const SINK_PARTITIONS = 8;

/** Handles the bytes of one connection; throws on a malformed frame (the caller closes it). */
type OnData = (chunk: Buffer) => void;

/**
 * Splits a byte stream into frames keeping only each frame's fixed-size header: the header is
 * gathered (it may span chunks), the frame's size read from it, and the rest of the frame counted
 * past without being copied. Calls `onFrame` with the header once the whole frame has arrived.
 */
class HeaderSkipper {
  readonly #header: Uint8Array;
  readonly #sizeOf: (header: DataView) => number;
  readonly #view: DataView;
  #have = 0;
  /** Bytes of the current frame's body still to skip; -1 while gathering a header. */
  #skip = -1;

  constructor(headerBytes: number, sizeOf: (header: DataView) => number) {
    this.#header = new Uint8Array(headerBytes);
    this.#view = new DataView(this.#header.buffer);
    this.#sizeOf = sizeOf;
  }

  push(chunk: Uint8Array, onFrame: (header: Uint8Array) => void): void {
    let pos = 0;
    while (pos < chunk.length) {
      if (this.#skip < 0) {
        const take = Math.min(this.#header.length - this.#have, chunk.length - pos);
        this.#header.set(chunk.subarray(pos, pos + take), this.#have);
        this.#have += take;
        pos += take;
        if (this.#have < this.#header.length) return;
        const size = this.#sizeOf(this.#view);
        if (!Number.isSafeInteger(size) || size < this.#header.length) throw new Error(`impossible frame size ${size}`);
        this.#skip = size - this.#header.length;
      }
      const take = Math.min(this.#skip, chunk.length - pos);
      this.#skip -= take;
      pos += take;
      if (this.#skip > 0) return;
      this.#skip = -1;
      this.#have = 0;
      onFrame(this.#header);
    }
  }
}

function serveVsr(socket: net.Socket): OnData {
  // The VSR size (header plus body) is the u32 at offset 48 of the 256-byte header.
  const frames = new HeaderSkipper(VSR_HEADER_SIZE, (h) => h.getUint32(48, true));
  const session = new VsrServerSession();
  let batches = 0n;
  return (chunk) => {
    frames.push(chunk, (frame) => {
      const header = decodeVsrRequestHeader(frame);
      const admission = session.admit(header);
      if (admission.action === 'respond') socket.write(admission.frame);
      else if (admission.action === 'register') {
        const reply = encodeRegisterReply({ userId: 1, session: 1n, serverProtocolVersion: IGGY_PROTOCOL_VERSION, serverVersion: 'bench-sink' });
        socket.write(session.bind(header, 1, 1n, reply));
      } else if (admission.action === 'execute') {
        const payload =
          admission.code === CommandCode.SendMessages ? encodeSendMessagesResponse([{ streamId: 1, topicId: 1, partitionId: 0, baseOffset: batches++ }]) : EMPTY;
        socket.write(session.reply(header, { payload }));
      }
    });
  };
}

function serveClassic(socket: net.Socket): OnData {
  // A classic request is [length u32 LE][code u32 LE][payload], length counting code and payload.
  const frames = new HeaderSkipper(8, (h) => h.getUint32(0, true) + 4);
  let batches = 0n;
  return (chunk) => {
    frames.push(chunk, (frame) => {
      const code = new DataView(frame.buffer, frame.byteOffset, 8).getUint32(4, true);
      let payload: Uint8Array = EMPTY;
      if (code === CommandCode.LoginUser) payload = encodeIdentityResponse(1);
      else if (code === CommandCode.SendMessages) batches++;
      else if (code === CommandCode.GetTopic) {
        const partitions = Array.from({ length: SINK_PARTITIONS }, (_, id) => ({ id, createdAt: 0n, segmentsCount: 1, currentOffset: batches, sizeBytes: 0n, messagesCount: batches }));
        payload = encodeTopicDetails(
          { id: 1, createdAt: 0n, partitionsCount: SINK_PARTITIONS, messageExpiry: 0n, compression: 1, maxTopicSize: 0n, replicationFactor: 1, sizeBytes: 0n, messagesCount: batches, name: 'sink', partitions },
          'classic',
        );
      }
      socket.write(encodeClassicResponse(0, payload));
    });
  };
}

function serveRaw(socket: net.Socket): OnData {
  let expected = -1;
  let seen = 0;
  let head = Buffer.alloc(0);
  return (chunk) => {
    if (expected < 0) {
      head = Buffer.concat([head, chunk]);
      if (head.length < 8) return;
      expected = Number(head.readBigUInt64LE(0));
      seen = head.length - 8;
    } else seen += chunk.length;
    if (seen >= expected) {
      socket.write(Uint8Array.of(1));
      expected = -1;
      head = Buffer.alloc(0);
      seen = 0;
    }
  };
}

function listen(serve: (socket: net.Socket) => OnData): Promise<number> {
  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    socket.on('error', () => socket.destroy());
    const onData = serve(socket);
    socket.on('data', (chunk: Buffer) => {
      try {
        onData(chunk);
      } catch {
        // A malformed frame ends the connection: the sink is for well-behaved benchmark clients.
        socket.destroy();
      }
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const ports: SinkPorts = { vsr: await listen(serveVsr), classic: await listen(serveClassic), raw: await listen(serveRaw) };
  process.stdout.write(`${JSON.stringify(ports)}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
}
