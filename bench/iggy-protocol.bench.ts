// Encode/decode throughput of SendMessages bodies (1, 100 and 1,000 messages of 100 bytes) in both
// Iggy protocols, with the XXH3 checksum cost shown separately. Prints one JSON object.
// Baseline: copying the same payload bytes into one buffer (the least any encoder must do).
import {
  decodePollMessagesResponse,
  decodeSendMessagesRequest,
  encodeMessageBatch,
  encodePollResponseClassic,
  encodePollResponseVsr,
  encodeSendMessagesRequest,
  encodeUserHeaders,
  headerValue,
  initChecksums,
  partitioning,
  stampMessageBatch,
} from '@agdx/iggy-protocol';
import type { IggyProtocol, OutgoingMessage } from '@agdx/iggy-protocol';
import { median } from './support/stats.js';

const WINDOW_MS = Number(process.env.BENCH_WINDOW_MS ?? 100);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SIZES = [1, 100, 1000];

/** Messages per second, median over RUNS windows. */
function measure(messagesPerOp: number, op: () => unknown): number {
  for (let i = 0; i < 20; i++) op();
  const rates: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    let ops = 0;
    const start = performance.now();
    let elapsed = 0;
    while (elapsed < WINDOW_MS) {
      op();
      ops++;
      elapsed = performance.now() - start;
    }
    rates.push((ops * messagesPerOp * 1000) / elapsed);
  }
  return Math.round(median(rates));
}

await initChecksums();
const headers = new Map([['agdx.kind', headerValue.string('token')]]);
const rawHeaders = encodeUserHeaders(headers);
const results: Record<string, unknown>[] = [];

for (const n of SIZES) {
  const messages: OutgoingMessage[] = Array.from({ length: n }, (_, i) => ({ id: BigInt(i + 1), payload: new Uint8Array(100).fill(i & 0xff), headers, originTimestamp: 1_700_000_000_000_000n + BigInt(i) }));
  const req = { stream: 'agents', topic: 'turns', partitioning: partitioning.partitionId(0), messages };
  const copyBaseline = measure(n, () => {
    const out = new Uint8Array(n * (100 + rawHeaders.length));
    let pos = 0;
    for (const m of messages) {
      out.set(m.payload, pos);
      out.set(rawHeaders, pos + 100);
      pos += 100 + rawHeaders.length;
    }
    return out;
  });
  const row: Record<string, unknown> = { messages: n, payloadBytes: 100, baselineCopyMsgsPerSec: copyBaseline };
  for (const protocol of ['vsr', 'classic'] as IggyProtocol[]) {
    const body = encodeSendMessagesRequest(req, protocol);
    const encode = measure(n, () => encodeSendMessagesRequest(req, protocol));
    const decode = measure(n, () => decodeSendMessagesRequest(body, protocol));
    const entry: Record<string, unknown> = { bodyBytes: body.length, encodeMsgsPerSec: encode, decodeMsgsPerSec: decode, encodeRatioToCopy: +(encode / copyBaseline).toFixed(3) };
    if (protocol === 'vsr') {
      const encodeNoChecksums = measure(n, () => encodeSendMessagesRequest(req, protocol, { checksums: false }));
      const decodeVerify = measure(n, () => decodeSendMessagesRequest(body, protocol, { verifyChecksums: true }));
      Object.assign(entry, {
        encodeWithoutChecksumsMsgsPerSec: encodeNoChecksums,
        decodeWithChecksumVerifyMsgsPerSec: decodeVerify,
        checksumShareOfEncode: +(1 - encode / encodeNoChecksums).toFixed(3),
        checksumShareOfVerifiedDecode: +(1 - decodeVerify / decode).toFixed(3),
      });
      const poll = encodePollResponseVsr(0, BigInt(n), [stampMessageBatch(encodeMessageBatch(messages), { partitionId: 0, baseOffset: 0n, baseTimestamp: 1n })]);
      entry.pollDecodeMsgsPerSec = measure(n, () => decodePollMessagesResponse(poll, 'vsr'));
    } else {
      // The classic producer sends no checksum; the server computes one per stored message.
      const stored = messages.map((m, i) => ({ id: m.id ?? 0n, offset: BigInt(i), timestamp: 1n, originTimestamp: 1n, payload: m.payload, rawHeaders }));
      const poll = encodePollResponseClassic(0, BigInt(n), stored);
      entry.serverPollEncodeWithChecksumsMsgsPerSec = measure(n, () => encodePollResponseClassic(0, BigInt(n), stored));
      entry.pollDecodeMsgsPerSec = measure(n, () => decodePollMessagesResponse(poll, 'classic'));
      entry.pollDecodeWithChecksumVerifyMsgsPerSec = measure(n, () => decodePollMessagesResponse(poll, 'classic', { verifyChecksums: true }));
    }
    row[protocol] = entry;
  }
  results.push(row);
}

process.stdout.write(
  JSON.stringify(
    {
      name: 'iggy-protocol',
      environment: { node: process.version, platform: process.platform, arch: process.arch },
      method: `messages/s, median of ${RUNS} windows of ${WINDOW_MS} ms after warm-up; baseline = copying the same payload and header bytes into one buffer`,
      results,
    },
    null,
    2,
  ) + '\n',
);
