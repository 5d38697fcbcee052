/**
 * Work bounded by input, short run (issue 19, item 1): the worst-case hostile records, all within
 * the 16 MiB input cap, go to every record decoder of @agdx/wire and to the readers (AG-UI events and
 * the session state read behind them). Each decoder refuses them with a typed error (`codec` or `invalid`) and takes bounded time;
 * the largest records still accepted decode within the same bound; a reader skips the hostile
 * record, reports it once with its position, and still delivers the good ones. The time bound here
 * is generous (1 s per record, against the 50 ms target) so that a loaded machine cannot flake it;
 * `scripts/bounded.ts` measures the real figures.
 */
import { AgdxClient, AgentTopic } from '@agdx/agents';
import { AguiBridge } from '@agdx/agui';
import { MemoryLog } from '@agdx/transport';
import { AgentEnvelope, AgentId, ContentType, ConversationId, envelopeRecord, MintUlid, RecordId, type CodecError } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { boundedDecoders, hostileInputs, largestAccepted } from './support/bounded-inputs.js';
import { measureDecode } from './support/bounded-measure.js';

const PER_RECORD_MS = 1_000;
const inputs = hostileInputs();

describe('bounded decoders: worst-case hostile records', () => {
  for (const decoder of boundedDecoders) {
    it(`${decoder.name} refuses every crafted record with a typed error, each within ${PER_RECORD_MS} ms`, () => {
      for (const input of inputs) {
        const m = measureDecode(decoder, input);
        expect(m.outcome, `${decoder.name} on ${input.name}`).toBe('typed');
        expect(['codec', 'invalid'], `${decoder.name} on ${input.name}`).toContain(m.kind);
        expect(m.ms, `${decoder.name} on ${input.name}`).toBeLessThan(PER_RECORD_MS);
      }
    });
  }

  it('the largest accepted records decode within the same bound', () => {
    for (const { decoder, input } of largestAccepted()) {
      const m = measureDecode(decoder, input);
      expect(m.outcome, `${decoder.name} on ${input.name}: ${m.kind ?? ''}`).toBe('accepted');
      expect(m.ms, `${decoder.name} on ${input.name}`).toBeLessThan(PER_RECORD_MS);
    }
  });

  it('an envelope metadata map over its cap is refused as soon as its count is read', () => {
    const input = inputs.find((i) => i.name === 'envelope metadata with 1,000,000 entries');
    const decoder = boundedDecoders.find((d) => d.name === 'decodeEnvelope');
    const m = measureDecode(decoder!, input!);
    expect(m).toMatchObject({ outcome: 'typed', kind: 'invalid' });
    // Refused at the head: nothing near the 1,000,000 entries was built.
    expect(m.extraBytes).toBeLessThan(input!.bytes.length);
  });
});

describe('readers past a hostile record', () => {
  it('AG-UI events and the session state read skip it, report it once with its position, and keep the good records', async () => {
    const log = new MemoryLog();
    const laser = AgdxClient.from(log, { stream: 'bounded' });
    await laser.bootstrap(2);
    const errors: CodecError[] = [];
    // The bridge hands onError to its session reads too (reconstructState below).
    const bridge = new AguiBridge(laser, { onError: (e) => errors.push(e) });
    const conversation = ConversationId.derive('bounded');
    await bridge.publishStateSnapshot('assistant', conversation, { step: 1 });
    const before = await bridge.aguiEvents(conversation);
    // Every crafted payload under a valid header block, on the conversation's partition.
    const probe = envelopeRecord(
      AgentEnvelope.fromFields({ kind: 'event', record: MintUlid.mint(RecordId), conversation, source: AgentId.new('assistant'), operation: 'probe', body: new Uint8Array([1]) }),
      ContentType.cbor,
      { topic: AgentTopic.Sessions },
    );
    const offsets: bigint[] = [];
    for (const input of inputs) {
      const appended = await log.append({ stream: 'bounded', topic: AgentTopic.Sessions, routing: { key: probe.partitionKey }, records: [{ headers: probe.headers, payload: input.bytes }] });
      offsets.push(appended.baseOffset);
    }
    // Writing a snapshot reads the lane's revision first: that read reports them too.
    await bridge.publishStateSnapshot('assistant', conversation, { step: 2 });
    expect(errors.map((e) => e.context?.['offset'])).toEqual(offsets);
    errors.length = 0;

    let started = performance.now();
    const events = await bridge.aguiEvents(conversation);
    expect(performance.now() - started).toBeLessThan(PER_RECORD_MS * inputs.length);
    expect(events).toEqual([...before, { type: 'STATE_SNAPSHOT', snapshot: { step: 2 } }]);
    expect(errors.map((e) => e.context?.['offset'])).toEqual(offsets);
    expect(errors.every((e) => e.context?.['stream'] === 'bounded' && e.context?.['topic'] === AgentTopic.Sessions)).toBe(true);

    errors.length = 0;
    started = performance.now();
    expect(await bridge.reconstructState(conversation)).toEqual({ step: 2 });
    expect(performance.now() - started).toBeLessThan(PER_RECORD_MS * inputs.length);
    // The session reader behind the snapshot writes already folded (and reported) those records
    // and reads on from where it stopped: nothing is read, or reported, twice.
    expect(errors).toEqual([]);
  });
});
