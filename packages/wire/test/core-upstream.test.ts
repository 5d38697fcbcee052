import { AgentEnvelope, AgdxError, decodeEnvelope, encodeEnvelope, validateEnvelope } from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { listUpstream, loadUpstream, toHex } from './support/fixtures.js';

// DIAGNOSTIC.txt lists every .bin with its size and CBOR diagnostic. The envelope fixtures are the
// agent_*.bin files whose map starts with `kind`; the capsules (body ref, card, dead letter, error
// body, presence, list pages, replies, submit, signature, canonical record) belong to wire-extras / sign.
const diagnostic = new TextDecoder().decode(loadUpstream('DIAGNOSTIC.txt'));
const entries = [...diagnostic.matchAll(/^== (\S+) \((\d+) bytes\)\n(.*)$/gm)].map((m) => ({
  file: m[1]!,
  size: Number(m[2]),
  isEnvelope: m[3]!.startsWith('{"kind": '),
}));

// What each negative fixture must be refused for (wire-facts §5.3).
const INVALID_FIELD: Record<string, string> = {
  agent_invalid_chunk_late_deadline: 'deadline_micros',
  agent_invalid_chunk_no_sequence: 'sequence',
  agent_invalid_chunk_open_no_operation: 'operation',
  agent_invalid_command_no_correlation: 'correlation',
  agent_invalid_error_last: 'last',
  agent_invalid_event_task_state: 'task_state',
  agent_invalid_response_channel: 'channel',
  agent_invalid_status_bad_operation: 'operation',
  agent_invalid_status_no_operation: 'operation',
};

const envelopeFiles = entries.filter((e) => e.file.startsWith('agent_') && e.isEnvelope).map((e) => e.file);

describe('upstream agent_*.bin envelope fixtures', () => {
  it('DIAGNOSTIC.txt describes every .bin, with its size', () => {
    const bins = listUpstream().filter((f) => f.endsWith('.bin'));
    expect(entries.map((e) => e.file).sort()).toEqual(bins);
    for (const e of entries) expect(loadUpstream(e.file).length, e.file).toBe(e.size);
  });

  it('covers the expected set', () => {
    expect(envelopeFiles.length).toBe(21);
    for (const name of Object.keys(INVALID_FIELD)) expect(envelopeFiles).toContain(`${name}.bin`);
  });

  for (const f of envelopeFiles) {
    const name = f.replace(/\.bin$/, '');
    const bytes = loadUpstream(f);
    if (name.startsWith('agent_invalid_')) {
      it(`${f} is rejected naming \`${INVALID_FIELD[name]}\``, () => {
        const env = decodeEnvelope(bytes);
        // The bytes are canonical even though the shape is invalid.
        expect(toHex(encodeEnvelope(env))).toBe(toHex(bytes));
        let err: unknown;
        try {
          validateEnvelope(env);
        } catch (e) {
          err = e;
        }
        expect(AgdxError.is(err, 'invalid')).toBe(true);
        expect((err as AgdxError).context?.field).toBe(INVALID_FIELD[name]);
        expect(() => AgentEnvelope.decode(bytes)).toThrow();
      });
    } else {
      it(`${f} decodes, validates and re-encodes byte-identically`, () => {
        const env = AgentEnvelope.decode(bytes);
        expect(toHex(env.encode())).toBe(toHex(bytes));
      });
    }
  }

  it('agent_command.bin matches the worked example of wire-facts §1.8', () => {
    const env = AgentEnvelope.decode(loadUpstream('agent_command.bin'));
    expect(env.conversation.toString()).toBe('01J0Y1ZAG00000000000000002');
    expect(env.deadlineMicros).toBe(1717171777000000n);
    expect(env.metadata?.get('priority')).toBe('high');
    expect(new TextDecoder().decode(env.body)).toBe('{"ask":"plan the trip"}');
  });
});
