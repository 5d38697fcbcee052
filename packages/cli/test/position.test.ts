/** Positions print one way in every command: `topic[partition]@offset`. */
import { decodeRecord, formatLogPosition, formatPosition, formatRecord } from '@agdx/cli';
import { logPositionOf } from '@agdx/agents';
import { LogPosition } from '@agdx/wire';
import { describe, expect, it } from 'vitest';

describe('formatPosition', () => {
  it('prints a record place as topic[partition]@offset', () => {
    expect(formatPosition({ topic: 'agent.sessions', partition: 0, offset: 19n })).toBe('agent.sessions[0]@19');
    expect(formatPosition({ topic: 'agent.dlq', partition: 1, offset: '7' })).toBe('agent.dlq[1]@7');
  });

  it('names the topic of a LogPosition with numeric ids, as dead letters carry them', () => {
    const position = logPositionOf({ stream: 'demo', topic: 'agent.sessions', partition: 0, offset: 19n });
    expect(formatLogPosition(position)).toBe('agent.sessions[0]@19');
    const custom = logPositionOf({ stream: 'demo', topic: 'agent.sessions.planner', partition: 2, offset: 3n });
    expect(formatLogPosition(custom, ['agent.sessions.planner'])).toBe('agent.sessions.planner[2]@3');
    // An id no known topic hashes to is shown as an id, never as a guessed name.
    expect(formatLogPosition(new LogPosition(1, 42, 0, 5n))).toBe('topic#42[0]@5');
  });

  it('is the form tail prints at the head of each record', () => {
    const decoded = decodeRecord('agent.audit', { partition: 1, offset: 7n, timestampMicros: 1_700_000_000_000_000n, headers: new Map(), payload: new Uint8Array([1]) });
    expect(formatRecord(decoded, false).split('\n')[0]).toContain(' agent.audit[1]@7 ');
  });
});
