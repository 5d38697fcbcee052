import { AguiConverter, envelopesToAgUi, envelopeToAgUi, type AguiEvent } from '@agdx/agui';
import { AgdxError, AgentEnvelope, AgentKind, applyJsonPatch, type JsonValue } from '@agdx/wire';
import { EventSchema } from '@ag-ui/core/schemas';
import { describe, expect, it } from 'vitest';
import { DIVERGENCES, UNDO } from './support/divergences.js';
import { hexBytes, loadFixture } from './support/fixtures.js';

interface ConversionCase {
  readonly id: string;
  readonly name?: string;
  readonly records: readonly { readonly cbor_hex: string }[];
  readonly events: readonly unknown[];
  readonly per_record_envelopeToAgUi?: readonly (readonly unknown[] | null)[];
}
interface PatchCase {
  readonly id: string;
  readonly document: JsonValue;
  readonly patch: unknown;
  readonly ok: boolean;
  readonly result?: JsonValue;
  readonly error?: { readonly class: string; readonly kind?: string; readonly message: string };
}
interface AguiFile {
  readonly family: string;
  readonly split: string;
  readonly reference: { readonly package: string; readonly version: string };
  readonly sections: Readonly<Record<string, readonly unknown[]>>;
}

const file = loadFixture<AguiFile>('oracle/agui.json');
const HANDLED = new Set(['conversions', 'json_patch']);
const applied = new Map<string, number>();

/** Our events per record, then the reference form of them (rules undone), per record. */
function walk(envelopes: readonly AgentEnvelope[]): { ours: AguiEvent[][]; alone: AguiEvent[][]; reference: AguiEvent[][]; rules: Set<string> } {
  const converter = new AguiConverter();
  const seenChannels = new Set<string>();
  const ours: AguiEvent[][] = [];
  const reference: AguiEvent[][] = [];
  // What each record converts to on its own: ours without the history a converter keeps.
  const alone: AguiEvent[][] = [];
  const rules = new Set<string>();
  for (const envelope of envelopes) {
    const events = converter.convert(envelope);
    let undone: AguiEvent[] = events;
    for (const { rule } of DIVERGENCES.rules) {
      const undo = UNDO[rule];
      if (undo === undefined) throw new Error(`divergence rule ${rule} has no undo function in the test`);
      const result = undo(envelope, undone, { seenChannels });
      if (result !== undefined && JSON.stringify(result) !== JSON.stringify(undone)) {
        rules.add(rule);
        undone = result;
      }
    }
    if (envelope.kind === AgentKind.Chunk && envelope.channel !== undefined) seenChannels.add(envelope.channel.toString());
    ours.push(events);
    alone.push(UNDO['later-terminal-status-renders-nothing']?.(envelope, events, { seenChannels }) ?? events);
    reference.push(undone);
  }
  return { ours, alone, reference, rules };
}

describe('oracle agui.json', () => {
  it('is the 0.1.1 reference family and every section is handled', () => {
    expect(file.family).toBe('agui');
    expect(file.reference.package).toBe('@laserdata/laser-sdk');
    expect(file.reference.version).toBe('0.1.1');
    expect(Object.keys(file.sections).filter((s) => !HANDLED.has(s))).toEqual([]);
    expect(Object.keys(UNDO).sort()).toEqual(DIVERGENCES.rules.map((r) => r.rule).sort());
  });

  const conversions = (file.sections['conversions'] ?? []) as readonly ConversionCase[];
  it.each(conversions.map((c) => [c.name ?? c.id, c] as const))('conversion %s', (_name, c) => {
    const envelopes = c.records.map((r) => AgentEnvelope.decode(hexBytes(r.cbor_hex)));
    const { ours, alone, reference, rules } = walk(envelopes);
    // With the listed divergences undone, we produce exactly what the reference produced.
    expect(reference.flat()).toEqual(c.events);
    // A rule that fired really changed the output (otherwise its entry is stale).
    if (rules.size > 0) expect(ours.flat()).not.toEqual(c.events);
    for (const rule of rules) applied.set(rule, (applied.get(rule) ?? 0) + 1);
    // The one-shot conversion is the same walk.
    expect(envelopesToAgUi(envelopes)).toEqual(ours.flat());
    for (const event of ours.flat()) expect(EventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);

    if (c.per_record_envelopeToAgUi !== undefined) {
      expect(c.per_record_envelopeToAgUi).toHaveLength(envelopes.length);
      envelopes.forEach((envelope, i) => {
        const expected = c.per_record_envelopeToAgUi?.[i];
        const single = envelopeToAgUi(envelope);
        if (expected === null) {
          expect(single).toBeUndefined();
          return;
        }
        // Per record there is no fold and no earlier terminal, so a repeated terminal renders.
        expect(single).toEqual(alone[i]);
        expect(reference[i]).toEqual(expected);
      });
    }
  });

  it('no divergence entry is stale', () => {
    const stale = DIVERGENCES.rules.filter((r) => (applied.get(r.rule) ?? 0) === 0).map((r) => r.rule);
    if (file.split !== DIVERGENCES.split) {
      // Another split may simply not contain the shape a rule is about.
      if (stale.length > 0) console.warn(`divergence rules not exercised by split ${file.split}: ${stale.join(', ')}`);
      return;
    }
    expect(stale).toEqual([]);
  });

  const patches = (file.sections['json_patch'] ?? []) as readonly PatchCase[];
  it.each(patches.map((c) => [c.id, c] as const))('json_patch %s', (_id, c) => {
    if (c.ok) {
      expect(applyJsonPatch(c.document, c.patch)).toEqual(c.result);
      return;
    }
    let thrown: unknown;
    try {
      applyJsonPatch(c.document, c.patch);
    } catch (error) {
      thrown = error;
    }
    expect(AgdxError.is(thrown, 'invalid')).toBe(true);
    expect((thrown as Error).name).toBe(c.error?.class);
    expect((thrown as Error).message).toBe(c.error?.message);
  });
});
