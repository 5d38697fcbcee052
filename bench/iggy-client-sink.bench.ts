// The Iggy client alone: @agdx/transport-iggy sending batches of 1,000 x 100-byte messages to a
// sink process that speaks just enough Iggy to acknowledge them without decoding, storing or even
// copying them (bench/support/iggy-sink.ts keeps each frame's header and counts the body past, as
// its raw sink counts bytes), against a raw node:net socket pushing the same payload bytes to
// the same process, in rounds where the three take turns going first. Both protocol generations
// with one append in flight (one caller awaiting each append: the figure), then three rows
// with more than one caller: four callers appending to ONE partition (the transport keeps one send
// per partition on the wire and merges what queues behind it, so this is one request on the wire
// carrying merged batches), and four callers on four partitions, which puts four requests on the
// wire: VSR over four connections (a VSR session has one request in flight), classic pipelined on
// one connection. Prints one JSON object.
//
// Figures: payload bytes per wall-clock second; the ratio client / raw per round and its median;
// the client's CPU microseconds per batch (this process, all threads) beside the raw socket's,
// whose quotient (raw CPU / client CPU per batch, i.e. payload bytes per CPU second of the client
// / of the raw socket) moves far less on a loaded machine than wall time does. Two baselines:
// the raw socket streaming (writes with backpressure only, the baseline) and the raw
// socket acknowledged (each batch-sized write waits for a one-byte answer, the pattern of one
// append in flight without the Iggy protocol). The target is a ratio to the streaming
// socket of at least 0.5. The streaming socket pushes one reused buffer, so it never reads the
// records; a third baseline (sameRecords) streams the row's own records instead, gathering each
// batch's payloads into one write, as any socket user handed these records must: the same bytes,
// read from the same memory, with no cache flattering either side.
//
// Beside them, per row and round, what the protocol's own work costs (protocolWork): the same
// batches encoded as the client encodes them (WebAssembly checksums, its buffer headroom) into one
// reused buffer, the cheapest case, with nothing sent; and acknowledged raw sockets carrying
// frame-sized writes (each batch's whole request frame, with as many requests on the wire as the
// row). Encoding alone, divided by the streaming socket's rate of the same round, estimates what
// any producer that encodes these frames on one thread could reach (encodeOnlyRatioToRawSocket);
// encoding then writing each frame, one after the other, or the acknowledged socket pattern,
// whichever is slower, estimates a producer that does nothing else (protocolOnlyRatioToRawSocket).
// Estimates, not bounds: CPU time counts the collector's helper threads, and a merged request
// carries several batches in one frame.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { CLASSIC_REQUEST_HEADER_SIZE, encodeSendMessagesRequest, partitioning, VSR_HEADER_SIZE } from '@agdx/iggy-protocol';
import type { OutgoingMessage } from '@agdx/iggy-protocol';
import { IggyTransport } from '@agdx/transport-iggy';
import { machine } from './support/machine.js';
import { rawPush, rawPushAcked, rawPushRecords } from './support/raw-push.js';
import { batchesOf } from './support/send-and-poll.js';
import type { SinkPorts } from './support/iggy-sink.js';
import { median } from './support/stats.js';

const RECORD_BYTES = 100;
const BATCH = 1000;
const MESSAGES = 200_000;
/** Rounds; AGDX_BENCH_RUNS overrides. */
const ROUNDS = Number(process.env.AGDX_BENCH_RUNS ?? 7);
/** Callers in the rows with more than one append outstanding. */
const FAN_OUT = 4;
/** Distinct batches the warm-input rows take in turn (about 0.8 MB of payload). */
const WARM_POOL = 8;

/**
 * Where a row's records come from. `distinct`: every batch of a run built beforehand (200
 * batches, 200,000 records, each payload its own 100-byte array: 20 MB the client reads cold from
 * memory, as the rows always did). `warm`: {@link WARM_POOL} distinct batches taken in
 * turn, so consecutive appends still carry different records but those are in the CPU's caches,
 * as records a producer has just built would be (the raw socket pushes one reused buffer).
 */
type Inputs = 'distinct' | 'warm';

async function startSink(): Promise<{ ports: SinkPorts; stop: () => void }> {
  const script = fileURLToPath(new URL('./support/iggy-sink.ts', import.meta.url));
  const child = spawn(process.execPath, [...process.execArgv, script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const ports = await new Promise<SinkPorts>((resolve, reject) => {
    lines.once('line', (line) => resolve(JSON.parse(line) as SinkPorts));
    child.once('exit', (code) => reject(new Error(`sink process exited with ${String(code)}`)));
  });
  return { ports, stop: () => child.stdin.end() };
}

/**
 * A full collection before every timed section, of all three contenders alike (benches run with
 * --expose-gc), so that none pays for garbage another left (or for promoting the inputs built
 * just before the first round) inside its own timing.
 */
function settleHeap(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** One contender's run: payload bytes per wall second and this process's CPU per batch. */
interface Measured {
  readonly bytesPerSecond: number;
  readonly cpuMicrosPerBatch: number;
}

const spreadOf = (values: readonly number[], digits = 0) => {
  const f = (v: number): number => Number(v.toFixed(digits));
  return { min: f(Math.min(...values)), median: f(median(values)), max: f(Math.max(...values)) };
};

/**
 * One protocol with `callers` appending at once, caller k to partition k % `partitions`. VSR
 * carries one request per connection, so it gets one connection per caller (the transport's
 * documented fan-out); classic pipelines requests on one connection. Appends to one partition
 * never overlap on the wire (the transport merges those queued behind the one in flight), so the
 * requests on the wire are min(callers, partitions).
 */
async function measure(ports: SinkPorts, protocol: 'vsr' | 'classic', callers: number, partitions: number, inputs: Inputs = 'distinct') {
  const connections = protocol === 'vsr' ? callers : 1;
  const t = await IggyTransport.connect({ port: protocol === 'vsr' ? ports.vsr : ports.classic, protocol, connections, heartbeatIntervalMs: 0, cluster: { discover: false } });
  const built = batchesOf(BATCH, inputs === 'warm' ? WARM_POOL * BATCH : MESSAGES, RECORD_BYTES);
  const batches = Array.from({ length: MESSAGES / BATCH }, (_, b) => built[b % built.length] as { payload: Uint8Array }[]);
  const total = MESSAGES * RECORD_BYTES;
  const send = async (): Promise<Measured> => {
    settleHeap();
    const c0 = process.cpuUsage();
    const start = performance.now();
    let next = 0;
    // `callers` callers take the next batch as each append is acknowledged (bounded by the list).
    const caller = async (k: number): Promise<void> => {
      while (next < batches.length) {
        const records = batches[next++] as { payload: Uint8Array }[];
        await t.append({ stream: 'sink', topic: 'sink', routing: { partition: k % partitions }, records });
      }
    };
    await Promise.all(Array.from({ length: callers }, (_, k) => caller(k)));
    const ms = performance.now() - start;
    const cpu = process.cpuUsage(c0);
    return { bytesPerSecond: total / (ms / 1000), cpuMicrosPerBatch: (cpu.user + cpu.system) / batches.length };
  };
  // The raw pushes with this process's CPU time around them, per batch-sized write.
  const timed = async (push: () => Promise<number>): Promise<Measured> => {
    settleHeap();
    const c0 = process.cpuUsage();
    const bytesPerSecond = await push();
    const cpu = process.cpuUsage(c0);
    return { bytesPerSecond, cpuMicrosPerBatch: (cpu.user + cpu.system) / batches.length };
  };
  const raw = () => timed(() => rawPush(ports.raw, total, BATCH * RECORD_BYTES));
  const acked = () => timed(() => rawPushAcked(ports.raw, total, BATCH * RECORD_BYTES));
  // The raw socket handed the row's own records (cold or warm as the client's), gathering each
  // batch into one write: the same bytes, not one reused buffer the caches keep hot.
  const rawRecords = () => timed(() => rawPushRecords(ports.raw, batches));
  // The protocol's own work.
  const onTheWire = Math.min(callers, partitions);
  const headroom = protocol === 'vsr' ? VSR_HEADER_SIZE : CLASSIC_REQUEST_HEADER_SIZE;
  const encodeOne = (messages: readonly OutgoingMessage[], allocate: (bytes: number) => Uint8Array): number =>
    headroom + encodeSendMessagesRequest({ stream: 'sink', topic: 'sink', partitioning: partitioning.partitionId(0), messages }, protocol, { classicIds: 'random', headroom, allocate }).length;
  const frameBytes = encodeOne(batches[0] as OutgoingMessage[], (bytes) => new Uint8Array(bytes));
  const frameBuffer = new Uint8Array(frameBytes);
  const encodeOnly = async (): Promise<Measured> => {
    settleHeap();
    const c0 = process.cpuUsage();
    const start = performance.now();
    for (const records of batches) encodeOne(records as OutgoingMessage[], () => frameBuffer);
    const ms = performance.now() - start;
    const cpu = process.cpuUsage(c0);
    return { bytesPerSecond: total / (ms / 1000), cpuMicrosPerBatch: (cpu.user + cpu.system) / batches.length };
  };
  // Whole request frames, acknowledged one by one, on `onTheWire` sockets at once; the rate is in
  // payload bytes (the frames carry the same payload as the client's).
  const ackedFrames = () =>
    timed(async () => {
      const start = performance.now();
      const each = Math.ceil(batches.length / onTheWire);
      await Promise.all(Array.from({ length: onTheWire }, (_, k) => rawPushAcked(ports.raw, frameBytes * Math.min(each, batches.length - k * each), frameBytes)));
      return total / ((performance.now() - start) / 1000);
    });
  const client: number[] = [];
  const rawRates: number[] = [];
  const ackedRates: number[] = [];
  const ratios: number[] = [];
  const ackedRatios: number[] = [];
  const cpu: number[] = [];
  const rawCpu: number[] = [];
  const ackedCpu: number[] = [];
  const cpuRatios: number[] = [];
  const ackedCpuRatios: number[] = [];
  const recordsRates: number[] = [];
  const recordsCpu: number[] = [];
  const recordsRatios: number[] = [];
  const recordsCpuRatios: number[] = [];
  const encodeCpu: number[] = [];
  const framesRates: number[] = [];
  const framesCpu: number[] = [];
  const encodeOnlyRatios: number[] = [];
  const protocolOnlyRatios: number[] = [];
  const shareOfProtocolOnly: number[] = [];
  try {
    await send(); // warm-up: JIT, socket buffers
    await raw();
    await acked();
    await rawRecords();
    await encodeOnly();
    await ackedFrames();
    for (let round = 0; round < ROUNDS; round++) {
      // They take turns going first, so none always runs on the warmest or coldest machine.
      const order = [send, raw, acked, rawRecords, encodeOnly, ackedFrames];
      for (let k = 0; k < round % order.length; k++) order.push(order.shift() as () => Promise<Measured>);
      const got = new Map<unknown, Measured>();
      for (const run of order) got.set(run, await run());
      const c = got.get(send) as Measured;
      const r = got.get(raw) as Measured;
      const a = got.get(acked) as Measured;
      const e = got.get(encodeOnly) as Measured;
      const f = got.get(ackedFrames) as Measured;
      const g = got.get(rawRecords) as Measured;
      recordsRates.push(g.bytesPerSecond);
      recordsCpu.push(g.cpuMicrosPerBatch);
      recordsRatios.push(c.bytesPerSecond / g.bytesPerSecond);
      recordsCpuRatios.push(g.cpuMicrosPerBatch / c.cpuMicrosPerBatch);
      encodeCpu.push(e.cpuMicrosPerBatch);
      framesRates.push(f.bytesPerSecond);
      framesCpu.push(f.cpuMicrosPerBatch);
      // Payload bytes per second of one thread that only encodes; then of one that encodes and
      // makes each acknowledged write in turn, or the socket pattern alone, whichever is slower.
      const encodeOnlyRate = (BATCH * RECORD_BYTES) / (e.cpuMicrosPerBatch / 1e6);
      const protocolOnly = Math.min(f.bytesPerSecond, (BATCH * RECORD_BYTES) / ((e.cpuMicrosPerBatch + f.cpuMicrosPerBatch) / 1e6));
      encodeOnlyRatios.push(encodeOnlyRate / r.bytesPerSecond);
      protocolOnlyRatios.push(protocolOnly / r.bytesPerSecond);
      shareOfProtocolOnly.push(c.bytesPerSecond / protocolOnly);
      client.push(c.bytesPerSecond);
      cpu.push(c.cpuMicrosPerBatch);
      rawRates.push(r.bytesPerSecond);
      rawCpu.push(r.cpuMicrosPerBatch);
      ackedRates.push(a.bytesPerSecond);
      ackedCpu.push(a.cpuMicrosPerBatch);
      ratios.push(c.bytesPerSecond / r.bytesPerSecond);
      cpuRatios.push(r.cpuMicrosPerBatch / c.cpuMicrosPerBatch);
      ackedRatios.push(c.bytesPerSecond / a.bytesPerSecond);
      ackedCpuRatios.push(a.cpuMicrosPerBatch / c.cpuMicrosPerBatch);
    }
  } finally {
    await t.close();
  }
  return {
    inputs,
    callers,
    partitions,
    requestsOnTheWire: Math.min(callers, partitions),
    connections,
    clientPayloadBytesPerSecond: spreadOf(client),
    clientMessagesPerSecond: Math.round(median(client) / RECORD_BYTES),
    rawSocketBytesPerSecond: spreadOf(rawRates),
    clientCpuMicrosPerBatch: spreadOf(cpu),
    rawSocketCpuMicrosPerBatch: spreadOf(rawCpu),
    ratioPerRound: ratios.map((x) => Number(x.toFixed(3))),
    ratioToRawSocket: spreadOf(ratios, 3),
    cpuRatioToRawSocket: spreadOf(cpuRatios, 3),
    ackedSocketBytesPerSecond: spreadOf(ackedRates),
    ackedSocketCpuMicrosPerBatch: spreadOf(ackedCpu),
    ratioToAckedSocket: spreadOf(ackedRatios, 3),
    cpuRatioToAckedSocket: spreadOf(ackedCpuRatios, 3),
    sameRecordsSocketBytesPerSecond: spreadOf(recordsRates),
    sameRecordsSocketCpuMicrosPerBatch: spreadOf(recordsCpu),
    ratioToSameRecordsSocket: spreadOf(recordsRatios, 3),
    cpuRatioToSameRecordsSocket: spreadOf(recordsCpuRatios, 3),
    protocolWork: {
      frameBytes,
      encodeOnlyCpuMicrosPerBatch: spreadOf(encodeCpu),
      encodeOnlyRatioToRawSocket: spreadOf(encodeOnlyRatios, 3),
      ackedFramesPayloadBytesPerSecond: spreadOf(framesRates),
      ackedFramesCpuMicrosPerBatch: spreadOf(framesCpu),
      protocolOnlyRatioToRawSocket: spreadOf(protocolOnlyRatios, 3),
      clientShareOfProtocolOnly: spreadOf(shareOfProtocolOnly, 3),
    },
  };
}

const before = machine();
const { ports, stop } = await startSink();
try {
  const vsr = await measure(ports, 'vsr', 1, 1);
  const classic = await measure(ports, 'classic', 1, 1);
  const vsrOnePartitionMerged = await measure(ports, 'vsr', FAN_OUT, 1);
  const vsrFanOut = await measure(ports, 'vsr', FAN_OUT, FAN_OUT);
  const classicPipelined = await measure(ports, 'classic', FAN_OUT, FAN_OUT);
  const vsrFanOutWarmInputs = await measure(ports, 'vsr', FAN_OUT, FAN_OUT, 'warm');
  const classicPipelinedWarmInputs = await measure(ports, 'classic', FAN_OUT, FAN_OUT, 'warm');
  console.log(
    JSON.stringify(
      {
        name: 'iggy-client-sink',
        machineBefore: before,
        machineAfter: machine(),
        workload: `${MESSAGES / BATCH} batches of ${BATCH} x ${RECORD_BYTES}-byte messages per run (${(MESSAGES * RECORD_BYTES) / 1e6} MB of payload; a VSR batch is about 148.5 KB on the wire, 48 bytes of frame header per message); vsr and classic: one caller awaiting each append to partition 0, one batch in flight (as LogTransport.append is used in sequence); vsrOnePartitionMerged: ${FAN_OUT} callers over ${FAN_OUT} connections, all to partition 0, so one request on the wire at a time carrying the batches queued behind it merged; vsrFanOut: ${FAN_OUT} callers on ${FAN_OUT} partitions over ${FAN_OUT} connections, ${FAN_OUT} requests on the wire (VSR allows one per connection); classicPipelined: ${FAN_OUT} callers on ${FAN_OUT} partitions pipelined on one connection`,
        server: 'bench/support/iggy-sink.ts in a child process: keeps each request frame\'s header, counts its body past without copying it (as the raw sink counts bytes), and acknowledges SendMessages without decoding or storing the batch',
        baseline: 'a raw node:net socket from this process to the same child process, pushing the same payload bytes in writes of one batch each, waiting only for one final acknowledgement',
        sameRecordsBaseline: 'a raw node:net socket streaming the row\'s own records (the same arrays the client is given, cold or warm as the row says): each batch\'s payloads gathered in order into one batch-sized write (a ring of four buffers, each reused once its write completed), backpressure honoured, one final acknowledgement; ratioToSameRecordsSocket = client payload bytes per wall second / its bytes per wall second within a round',
        ackedBaseline: 'the same raw socket and bytes, one batch per write, each write waiting for a one-byte answer before the next (the request/acknowledge pattern of one append in flight, without the Iggy protocol)',
        method: `${ROUNDS} rounds after one warm-up of each; ratioToRawSocket = client payload bytes per wall second / raw bytes per wall second within a round; cpuRatioToRawSocket = raw CPU per batch / client CPU per batch (this process) within a round; ratioToAckedSocket and cpuRatioToAckedSocket the same against the acknowledged raw socket; the three take turns going first; medians over rounds`,
        protocolWork: 'per row and round: encodeOnly = the batches encoded as the client encodes them (encodeSendMessagesRequest with WebAssembly checksums and the transport\'s headroom) into one reused buffer, nothing sent, CPU per batch; ackedFrames = acknowledged raw sockets, as many as requests on the wire, each write one whole request frame (frameBytes) answered by one byte; encodeOnlyRatioToRawSocket = (batch payload / encodeOnly CPU per batch) / streaming raw rate, an estimate of what any producer encoding these frames on one thread could reach; protocolOnlyRatioToRawSocket = min(ackedFrames rate, batch payload / (encodeOnly + ackedFrames CPU per batch)) / streaming raw rate, an estimate for a producer that does nothing but encode and write each frame in turn (estimates, not bounds: CPU time counts the collector\'s helper threads, and merged requests carry several batches per frame); clientShareOfProtocolOnly = client rate / that estimate (vsrOnePartitionMerged: one batch per frame, one on the wire)',
        target: 'ratioToRawSocket.median >= 0.5 (issue 17 item 3)',
        inputs: `distinct (every row but the *WarmInputs ones): all ${MESSAGES / BATCH} batches of a run built beforehand, each payload its own ${RECORD_BYTES}-byte array (${(MESSAGES * RECORD_BYTES) / 1e6} MB read cold); warm (the *WarmInputs rows, otherwise as vsrFanOut and classicPipelined): ${WARM_POOL} distinct batches taken in turn, in the CPU caches as freshly built records would be. The streaming and acknowledged raw sockets push one reused buffer in every row; the sameRecords socket pushes the row\'s own records`,
        results: { vsr, classic, vsrOnePartitionMerged, vsrFanOut, classicPipelined, vsrFanOutWarmInputs, classicPipelinedWarmInputs },
      },
      null,
      2,
    ),
  );
} finally {
  stop();
}
