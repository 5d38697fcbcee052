import { AgentTopic } from '@agdx/agents';
import { sessions } from '@agdx/sessions';
import {
  AgentEnvelope,
  AgentId,
  ContentType,
  ConversationId,
  MintUlid,
  RecordId,
  STATE_DELTA_OPERATION,
  STATE_SNAPSHOT_OPERATION,
  applyJsonPatch,
  encodeStateDelta,
  encodeStateSnapshot,
  type JsonPatchOperation,
  type JsonValue,
} from '@agdx/wire';
import { describe, expect, it } from 'vitest';
import { newLog } from './support/scenario.js';

/** The document a frontend folds from the AG-UI state events, and how many it applied. */
function frontendFold(events: readonly { readonly type: string }[]): { document: JsonValue | undefined; applied: number } {
  let document: JsonValue | undefined;
  let applied = 0;
  for (const event of events) {
    if (event.type === 'STATE_SNAPSHOT') document = (event as unknown as { snapshot: JsonValue }).snapshot;
    else if (event.type === 'STATE_DELTA') document = applyJsonPatch(document ?? {}, (event as unknown as { delta: JsonPatchOperation[] }).delta);
    else continue;
    applied++;
  }
  return { document, applied };
}

describe('the AG-UI state fold agrees with the lifecycle writer and the session reads', () => {
  it('on every revision, with retried op ids, stale snapshots and failing patches between writes', async () => {
    const { laser, bridge } = await newLog();
    const conversation = ConversationId.new();
    const factory = sessions(laser);
    const writer = factory.open(conversation).lifecycle;
    const raw = async (body: Uint8Array, operation: string): Promise<void> => {
      const envelope = AgentEnvelope.event(MintUlid.mint(RecordId), conversation, AgentId.new('other'), body).withOperation(operation);
      await laser.publish(AgentTopic.Sessions, envelope, ContentType.cbor);
    };
    // a writer opened after the other writers' records reads the lane first, so it counts them too
    const later = sessions(laser).open(conversation).lifecycle;
    const steps: (() => Promise<unknown>)[] = [
      () => writer.snapshot({ n: 0, items: [] }, { agent: 'ui' }),
      () => writer.patch([{ op: 'replace', path: '/n', value: 1 }], { agent: 'ui', opId: 'op-1' }),
      // a retry: appended again, dropped by every reader as a duplicate
      () => writer.patch([{ op: 'replace', path: '/n', value: 1 }], { agent: 'ui', opId: 'op-1' }),
      // another writer repeats the op id with a different patch: still a duplicate
      () => raw(encodeStateDelta({ baseRevision: 2n, patch: [{ op: 'replace', path: '/n', value: 50 }], opId: 'op-1' }), STATE_DELTA_OPERATION),
      () => raw(encodeStateSnapshot({ baseRevision: 0n, document: { stale: true } }), STATE_SNAPSHOT_OPERATION),
      () => raw(encodeStateDelta({ baseRevision: 2n, patch: [{ op: 'remove', path: '/missing' }], opId: 'fails' }), STATE_DELTA_OPERATION),
      // the failed op id never applied, so a later delta may use it
      () => raw(encodeStateDelta({ baseRevision: 2n, patch: [{ op: 'add', path: '/items/-', value: 'a' }], opId: 'fails' }), STATE_DELTA_OPERATION),
      () => later.patch([{ op: 'add', path: '/items/-', value: 'b' }], { agent: 'ui', opId: 'op-2' }),
      () => later.patch([{ op: 'add', path: '/items/-', value: 'b' }], { agent: 'ui', opId: 'op-1' }),
      () => later.snapshot({ n: 7, items: ['z'] }, { agent: 'ui' }),
    ];
    for (const [i, step] of steps.entries()) {
      await step();
      const view = await factory.reads.state(conversation);
      const ui = frontendFold(await bridge.aguiEvents(conversation));
      expect({ step: i, revision: BigInt(ui.applied), document: ui.document }).toEqual({ step: i, revision: view.revision, document: view.document });
      // each writer knows the revision readers fold to while it is the one writing
      const current = i < 3 ? writer : i >= 7 ? later : undefined;
      if (current !== undefined) expect({ step: i, writer: current.revision }).toEqual({ step: i, writer: view.revision });
    }
    expect((await factory.reads.state(conversation)).revision).toBe(5n);
  });
});
