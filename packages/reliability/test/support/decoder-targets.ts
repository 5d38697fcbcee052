/**
 * The pure decoders under fuzz: the envelope decoder and header block decoder of @agdx/wire,
 * and the frame, header and command codecs of @agdx/iggy-protocol. Each target has a corpus of
 * valid encodings (mutated most of the time) and a decode call whose only allowed failure is a
 * branded AGDX error.
 */
import {
  ClassicRequestSplitter,
  ClassicResponseSplitter,
  CommandCode,
  decodeClassicRequest,
  decodeClassicResponse,
  decodeConsumerGroupAssignment,
  decodeCreateTopicRequest,
  decodeMessageBatch,
  decodeOptions,
  decodePollMessagesRequest,
  decodePollMessagesResponse,
  decodeRegisterRequest,
  decodeResultSection,
  decodeSendMessagesRequest,
  decodeSendMessagesResponse,
  decodeStoreConsumerOffsetRequest,
  decodeTopicDetails,
  decodeUserHeaderEntries,
  decodeUserHeaders,
  decodeVsrRequestFrame,
  decodeVsrServerFrame,
  encodeClassicRequest,
  encodeClassicResponse,
  encodeSendMessagesRequest,
  encodeUserHeaders,
  encodeVsrReplyFrame,
  encodeVsrRequestFrame,
  headerValue,
  initChecksums,
  Operation,
  partitioning,
  VsrFrameSplitter,
  type Partitioning,
} from '@agdx/iggy-protocol';
import { mutateBytes, OutcomeTally, SeededRandom } from '@agdx/reliability';
import {
  AgentEnvelope,
  AgentId,
  ContentType,
  ConversationId,
  CorrelationId,
  decodeEnvelope,
  decodeHeaderBlock,
  encodeEnvelope,
  encodeHeaderBlock,
  IdempotencyKey,
  MintUlid,
  RecordId,
  type HeaderValue,
  type RecordHeaders,
} from '@agdx/wire';

/** One decoder under fuzz. */
export interface DecoderTarget {
  readonly name: string;
  /** Decodes one hostile input derived from `random`; throws whatever the decoder throws. */
  step(random: SeededRandom): void;
}

const enc = new TextEncoder();

function sampleEnvelopes(): AgentEnvelope[] {
  const conversation = ConversationId.derive('reliability-fuzz');
  const source = AgentId.new('fuzzer');
  const correlation = MintUlid.mint(CorrelationId);
  return [
    AgentEnvelope.fromFields({ kind: 'command', record: MintUlid.mint(RecordId), conversation, source, correlation, operation: 'summarize', body: enc.encode('hello') }),
    AgentEnvelope.fromFields({
      kind: 'response',
      record: MintUlid.mint(RecordId),
      conversation,
      parent: ConversationId.derive('parent'),
      source,
      target: AgentId.new('requester'),
      correlation,
      idempotencyKey: IdempotencyKey.new('idem-1'),
      deadlineMicros: 1_700_000_000_000_000n,
      metadata: new Map([['k', 'v']]),
      body: enc.encode('{"answer":42}'),
    }),
    AgentEnvelope.fromFields({ kind: 'chunk', conversation, source, correlation, sequence: 7n, last: true, finishReason: 'stop', body: enc.encode('token') }),
    AgentEnvelope.fromFields({ kind: 'status', record: MintUlid.mint(RecordId), conversation, source, correlation, operation: 'task', taskState: 2 }),
  ];
}

function envelopeTarget(): DecoderTarget {
  const corpus = sampleEnvelopes().map((e) => encodeEnvelope(e));
  return {
    name: 'wire envelope decoder',
    step(random) {
      const input = random.chance(0.1) ? random.bytes(random.int(300)) : mutateBytes(random, random.pick(corpus));
      decodeEnvelope(input);
    },
  };
}

const HEADER_KINDS: readonly HeaderValue['kind'][] = [
  'raw', 'string', 'bool', 'int8', 'int16', 'int32', 'int64', 'int128', 'uint8', 'uint16', 'uint32', 'uint64', 'uint128', 'float32', 'float64',
];

function headerBlockTarget(): DecoderTarget {
  const blocks = sampleEnvelopes().map((e) => encodeHeaderBlock(e, ContentType.raw, { topic: 'agent.sessions' }));
  return {
    name: 'wire header block decoder',
    step(random) {
      const base = random.pick(blocks);
      const entries: [string, HeaderValue][] = [...base];
      const rounds = 1 + random.int(3);
      for (let r = 0; r < rounds; r++) {
        const i = random.int(entries.length + 1);
        const entry = entries[i];
        if (entry === undefined || random.chance(0.2)) {
          const key = random.chance(0.5) ? random.pick([...base.keys()]) : `agdx.${random.int(100)}`;
          entries.push([key, { kind: random.pick(HEADER_KINDS), value: random.bytes(random.int(40)) }]);
        } else if (random.chance(0.2)) {
          entries.splice(i, 1);
        } else {
          const kind = random.chance(0.5) ? entry[1].kind : random.pick(HEADER_KINDS);
          entries[i] = [entry[0], { kind, value: mutateBytes(random, entry[1].value) }];
        }
      }
      decodeHeaderBlock(new Map(entries) as RecordHeaders);
    },
  };
}

function userHeaderBlocks(): Uint8Array[] {
  return [
    encodeUserHeaders(new Map([['agdx.av', headerValue.uint32(1)], ['agdx.ct', headerValue.uint8(3)], ['label', headerValue.string('ünïcode ✓')]])),
    encodeUserHeaders(new Map([['seq', headerValue.uint64(123n)], ['flag', headerValue.bool(true)], ['x', headerValue.raw(new Uint8Array([1, 2, 3]))]])),
  ];
}

function userHeadersTarget(): DecoderTarget {
  const corpus = userHeaderBlocks();
  return {
    name: 'iggy user-header block codec',
    step(random) {
      const input = mutateBytes(random, random.pick(corpus));
      if (random.chance(0.5)) decodeUserHeaders(input);
      else decodeUserHeaderEntries(input);
    },
  };
}

function sendPayloads(): { vsr: Uint8Array[]; classic: Uint8Array[] } {
  const headers = new Map([['agdx.ct', headerValue.uint8(3)], ['k', headerValue.string('v')]]);
  const request = (p: Partitioning) => ({
    stream: 'agents',
    topic: 'agent.sessions',
    partitioning: p,
    messages: [
      { id: 1n, payload: enc.encode('first'), headers },
      { id: 2n, payload: enc.encode('second message') },
    ],
  });
  const parts = [partitioning.balanced(), partitioning.partitionId(2), partitioning.key('session-42')];
  return {
    vsr: parts.map((p) => encodeSendMessagesRequest(request(p), 'vsr')),
    classic: parts.map((p) => encodeSendMessagesRequest(request(p), 'classic')),
  };
}

function frameTarget(): DecoderTarget {
  const { vsr, classic } = sendPayloads();
  const vsrRequests = vsr.map((body, i) => encodeVsrRequestFrame({ client: 77n + BigInt(i), request: BigInt(i + 1), session: 5n, operation: Operation.SendMessages }, body));
  const vsrReplies = [encodeVsrReplyFrame({ client: 77n, request: 1n, operation: Operation.SendMessages }, new Uint8Array(16))];
  const classicRequests = classic.map((body) => encodeClassicRequest(CommandCode.SendMessages, body));
  const classicResponses = [encodeClassicResponse(0, new Uint8Array([1, 2, 3, 4])), encodeClassicResponse(1009)];
  const all = [...vsrRequests, ...vsrReplies, ...classicRequests, ...classicResponses];
  return {
    name: 'iggy frame codecs and splitters',
    step(random) {
      const input = random.chance(0.1) ? random.bytes(random.int(600)) : mutateBytes(random, random.pick(all));
      switch (random.int(7)) {
        case 0:
          decodeVsrRequestFrame(input);
          break;
        case 1:
          decodeVsrServerFrame(input);
          break;
        case 2:
          decodeClassicRequest(input);
          break;
        case 3:
          decodeClassicResponse(input);
          break;
        default: {
          // Splitters see the bytes in arbitrary chunks, as a socket delivers them.
          const splitter = random.pick([
            () => new VsrFrameSplitter({ maxFrameSize: 1 << 20 }),
            () => new ClassicRequestSplitter({ maxFrameSize: 1 << 20 }),
            () => new ClassicResponseSplitter({ maxFrameSize: 1 << 20 }),
          ])();
          let at = 0;
          while (at < input.length) {
            const end = Math.min(input.length, at + 1 + random.int(128));
            splitter.push(input.subarray(at, end));
            at = end;
          }
        }
      }
    },
  };
}

function commandTarget(): DecoderTarget {
  const { vsr, classic } = sendPayloads();
  const corpus = [...vsr, ...classic];
  const decoders: readonly ((b: Uint8Array) => unknown)[] = [
    (b) => decodeSendMessagesRequest(b, 'vsr'),
    (b) => decodeSendMessagesRequest(b, 'classic'),
    (b) => decodePollMessagesResponse(b, 'vsr'),
    (b) => decodePollMessagesResponse(b, 'classic'),
    (b) => decodeMessageBatch(b),
    (b) => decodeSendMessagesResponse(b),
    (b) => decodePollMessagesRequest(b),
    (b) => decodeCreateTopicRequest(b, 'vsr'),
    (b) => decodeTopicDetails(b, 'classic'),
    (b) => decodeStoreConsumerOffsetRequest(b, 'vsr'),
    (b) => decodeConsumerGroupAssignment(b),
    (b) => decodeRegisterRequest(b),
    (b) => decodeResultSection(b),
    (b) => decodeOptions(b),
  ];
  return {
    name: 'iggy command codecs',
    step(random) {
      const input = random.chance(0.15) ? random.bytes(random.int(400)) : mutateBytes(random, random.pick(corpus));
      random.pick(decoders)(input);
    },
  };
}

/** Every pure decoder target (the Iggy checksums are initialised first). */
export async function decoderTargets(): Promise<DecoderTarget[]> {
  await initChecksums();
  return [envelopeTarget(), headerBlockTarget(), userHeadersTarget(), frameTarget(), commandTarget()];
}

/** What fuzzing one target produced. */
export interface DecoderFuzzReport {
  readonly target: string;
  readonly inputs: number;
  readonly outcomes: ReturnType<OutcomeTally['toJSON']>;
  /** The slowest single input, in ms (a hang shows here). */
  readonly slowestInputMs: number;
  readonly elapsedMs: number;
}

/** Feeds `inputs` hostile inputs (stopping early after `maxMs`) from `seed` into `target`. */
export function fuzzDecoder(target: DecoderTarget, seed: number, inputs: number, maxMs: number): DecoderFuzzReport {
  const random = new SeededRandom(seed);
  const tally = new OutcomeTally();
  const started = performance.now();
  let slowest = 0;
  let i = 0;
  for (; i < inputs; i++) {
    const t0 = performance.now();
    tally.run(i, () => target.step(random));
    const took = performance.now() - t0;
    if (took > slowest) slowest = took;
    if ((i & 255) === 0 && performance.now() - started > maxMs) {
      i += 1;
      break;
    }
  }
  return { target: target.name, inputs: tally.total, outcomes: tally.toJSON(), slowestInputMs: slowest, elapsedMs: performance.now() - started };
}
