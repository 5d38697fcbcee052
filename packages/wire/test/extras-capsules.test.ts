import { readdirSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import {
  AgentId,
  ConversationId,
  decodeAgentCard,
  decodeAgentDeadLetter,
  decodeAgentErrorBody,
  decodeAgentPresence,
  decodeBackendAnnounce,
  decodeBodyRef,
  decodeFoldSnapshot,
  decodeHelloReply,
  decodeSessionHeartbeat,
  decodeSessionParking,
  decodeSessionPauseRequest,
  decodeStrictCbor,
  encodeAgentCard,
  encodeAgentDeadLetter,
  encodeAgentErrorBody,
  encodeAgentPresence,
  encodeBackendAnnounce,
  encodeBodyRef,
  encodeFoldSnapshot,
  encodeHelloReply,
  encodeSessionHeartbeat,
  encodeSessionParking,
  encodeSessionPauseRequest,
  FeatureBit,
  featureNames,
  foldSnapshotResumeOffset,
  LogPosition,
  MAX_HEARTBEAT_SESSIONS,
  readEnvelopeRecord,
  resumeOffsets,
  splitHeartbeatSessions,
  type BackendDescriptor,
  type CborValue,
  type FoldSnapshot,
  type HeaderValue,
  type OpVersions,
} from '@agdx/wire';
import { divergences, errorOf, FIXTURES, fixtureBytes, fixtureJson, fromHex, oracle, toHex } from './extras-support/fixtures.js';

const divergent = divergences();

// Every upstream .bin is either a capsule this suite round-trips, or owned elsewhere (with why).
const roundTrip: Record<string, (bytes: Uint8Array) => Uint8Array> = {
  'agent_body_ref.bin': (b) => encodeBodyRef(decodeBodyRef(b)),
  'agent_card.bin': (b) => encodeAgentCard(decodeAgentCard(b)),
  'agent_dead_letter.bin': (b) => encodeAgentDeadLetter(decodeAgentDeadLetter(b)),
  'agent_error_body.bin': (b) => encodeAgentErrorBody(decodeAgentErrorBody(b)),
  'agent_presence.bin': (b) => encodeAgentPresence(decodeAgentPresence(b)),
  'fold_snapshot.bin': (b) => encodeFoldSnapshot(decodeFoldSnapshot(b)),
  'hello_reply.bin': (b) => encodeHelloReply(decodeHelloReply(b)!),
  'hello_reply_agent.bin': (b) => encodeHelloReply(decodeHelloReply(b)!),
  'hello_reply_features.bin': (b) => encodeHelloReply(decodeHelloReply(b)!),
};
const elsewhere: [RegExp, string][] = [
  [/^agent_(chunk|command|error|event|invalid_|must_understand|response|status_).*\.bin$/, 'an AgentEnvelope: wire-core envelope codec tests'],
  [/^agent_signature\.bin$/, 'the envelope Signature map: wire-core envelope codec tests'],
  [/^key_record\.bin$/, 'a stored KeyRecord: @agdx/sign'],
  [/^agent_record\.bin$/, 'a canonical record (0.1.1 header layout): checked below through the receive rule'],
  [/^agent_(list_page|submit|reply_error|reply_list_page|reply_status)\.bin$/, 'retired run-registry managed requests/replies (feature bit 4 is retired in the seeds): not AGDX wire capsules'],
];

describe('upstream capsule fixtures', () => {
  const files = readdirSync(new URL('upstream/', FIXTURES)).filter((f) => f.endsWith('.bin'));
  test('every .bin is handled or explicitly skipped with a reason', () => {
    const unhandled = files.filter((f) => roundTrip[f] === undefined && !elsewhere.some(([re]) => re.test(f)));
    expect(unhandled).toEqual([]);
    const skipped = files.filter((f) => roundTrip[f] === undefined).map((f) => `${f}: ${elsewhere.find(([re]) => re.test(f))?.[1]}`);
    expect(skipped.length).toBeGreaterThan(0);
  });
  test.each(Object.keys(roundTrip))('%s decodes and re-encodes byte-identically', (name) => {
    const bytes = fixtureBytes(`upstream/${name}`);
    expect(toHex(roundTrip[name]!(bytes))).toBe(toHex(bytes));
  });

  test('agent_record.bin: the 0.1.1 record is accepted by the receive rule', () => {
    const rec = decodeStrictCbor(fixtureBytes('upstream/agent_record.bin')) as ReadonlyMap<CborValue, CborValue>;
    const kinds: Record<string, HeaderValue['kind']> = { u32: 'uint32', u8: 'uint8', uint128: 'uint128', string: 'string' };
    const headers = new Map<string, HeaderValue>();
    for (const [name, h] of rec.get('headers') as ReadonlyMap<CborValue, CborValue>) {
      const m = h as ReadonlyMap<CborValue, CborValue>;
      headers.set(name as string, { kind: kinds[m.get('kind') as string]!, value: m.get('bytes') as Uint8Array });
    }
    const result = readEnvelopeRecord(headers, rec.get('payload') as Uint8Array);
    expect(result.kind).toBe('envelope');
    expect(result.kind === 'envelope' && result.envelope.conversation.toString()).toBe(rec.get('partition_key'));
    expect(result.contentType).toBe(1);
  });

  test('hello_reply_features.bin advertises kv_cas and read_your_writes', () => {
    const versions = decodeHelloReply(fixtureBytes('upstream/hello_reply_features.bin'))!;
    expect(featureNames(versions.features ?? 0n)).toEqual(['KvCas', 'ReadYourWrites']);
    expect(decodeBackendAnnounce(new Uint8Array(0))).toBeUndefined();
  });
});

describe('capabilities.json (upstream and upstream-newer)', () => {
  // These are the SDK's JSON view of a hello; what the wire carries of them is `versions`
  // (OpVersions, feature bits) and, in 0.1.1, `backends`.
  const versionsFrom = (v: any): OpVersions => ({
    query: v.query ?? 0,
    control: v.control ?? 0,
    kv: v.kv ?? 0,
    fork: v.fork ?? 0,
    ...(v.agent ? { agent: v.agent } : {}),
    ...(v.graph ? { graph: v.graph } : {}),
    ...(v.checkpoint ? { checkpoint: v.checkpoint } : {}),
    ...(v.filter ? { filter: v.filter } : {}),
    ...(v.features ? { features: BigInt(v.features) } : {}),
  });
  const versionsTo = (v: OpVersions): any => {
    const out: any = { query: v.query, control: v.control, kv: v.kv, fork: v.fork };
    for (const k of ['agent', 'graph', 'checkpoint', 'filter'] as const) if (v[k] !== undefined) out[k] = v[k];
    if (v.features !== undefined) out.features = Number(v.features);
    return out;
  };

  test('upstream: versions and 0.1.1 backend descriptors survive the CBOR announce', () => {
    const caps = fixtureJson('upstream/capabilities.json');
    const backends: BackendDescriptor[] = caps.backends.map((b: any) => ({ ...b, capabilities: b.capabilities ?? [] }));
    const announce = { versions: versionsFrom(caps.versions), ready: true, backends };
    const back = decodeBackendAnnounce(encodeBackendAnnounce(announce))!;
    expect(versionsTo(back.versions)).toEqual(caps.versions);
    expect(back.backends.map((b) => ({ ...b }))).toEqual(caps.backends);
  });

  test('upstream-newer: versions with checkpoint and feature bits match the advertised flags', () => {
    const caps = fixtureJson('upstream-newer/capabilities.json');
    const versions = versionsFrom(caps.versions);
    const back = decodeHelloReply(encodeHelloReply(versions))!;
    expect(versionsTo(back)).toEqual(caps.versions);
    const names = featureNames(back.features ?? 0n);
    expect(names.includes('KvCas')).toBe(caps.kv.cas);
    expect(names.includes('KvCasFenced')).toBe(caps.kv.cas_fenced);
    expect(names.includes('ReadYourWrites')).toBe(caps.query.consistency === 'read_your_writes');
    expect(names.includes('Destinations')).toBe(caps.destinations.available);
    expect(names.includes('Watch')).toBe(caps.watch);
    expect(names.includes('Authz')).toBe(caps.authz);
    expect(names.includes('AgentWorkflowRetired')).toBe(false);
    // The [U] backend descriptor (resource ids, readiness, limits, ...) is a managed-read view,
    // not modelled here: its `backends` entries are skipped on purpose.
    expect(caps.backends.every((b: any) => b.descriptor_version === 1)).toBe(true);
  });

  test('a topology announce fills the documented defaults', () => {
    const bytes = encodeBackendAnnounce({
      versions: { query: 1, control: 1, kv: 1, fork: 1 },
      ready: false,
      backends: [],
      topology: { opsStream: 'ops', controlTopic: 'c', dlqTopic: 'd', changesTopic: 'ch', kvMutationsTopic: 'k', forkMutationsTopic: 'f', runMutationsTopic: 'r', graphMutationsTopic: 'g' },
    });
    const back = decodeBackendAnnounce(bytes)!;
    expect(back.ready).toBe(false);
    expect(back.topology?.opsStream).toBe('ops');
    expect(FeatureBit.Sessions).toBe(4096n);
  });
});

describe('error_body.json (upstream and upstream-newer)', () => {
  // A managed-operation failure (string code such as `conflict`), the JSON the managed client
  // surfaces; the agent-layer capsule is AgentErrorBody. Check both copies agree and that the
  // detail round-trips through the AgentErrorBody detail map (metadata values).
  test('both copies agree and their detail survives an AgentErrorBody', () => {
    const a = fixtureJson('upstream/error_body.json');
    const b = fixtureJson('upstream-newer/error_body.json');
    expect(a).toEqual(b);
    const detail = new Map(Object.entries(a.detail).map(([k, v]) => [k, typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : (v as string)]));
    const back = decodeAgentErrorBody(encodeAgentErrorBody({ code: 7, message: a.message, retryable: false, detail }));
    expect(Object.fromEntries([...back.detail!].map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v]))).toEqual(a.detail);
    expect(back.message).toBe(a.message);
  });
});

describe('fold snapshots (oracle/snapshots.json)', () => {
  const data = oracle('snapshots');
  const snapshotFrom = (s: any): FoldSnapshot => ({
    conversation: ConversationId.parse(s.conversation),
    asOf: new Map(s.as_of_insertion_order.map(([p, o]: [number, string]) => [p, BigInt(o)])),
    state: fromHex(s.state_hex),
  });
  const recorded = Object.keys(divergent).filter((id) => id.startsWith('public/snapshots/'));

  test('recorded divergences are not stale', () => {
    // Decode accepts the reference shows that we refuse: each must be a recorded divergence.
    const refused = (data.cases as any[]).filter((c) => c.ok === true && c.cbor_hex !== undefined && errorOf(() => decodeFoldSnapshot(fromHex(c.cbor_hex))) !== undefined);
    expect(refused.map((c) => c.id).sort()).toEqual(recorded.sort());
  });

  test.each(data.cases as any[])('$id $name', (c) => {
    if (c.snapshot !== undefined) {
      const snap = snapshotFrom(c.snapshot);
      expect(toHex(encodeFoldSnapshot(snap))).toBe(c.cbor_hex);
      expect([...resumeOffsets(snap)].map(([p, o]) => [p, o.toString()])).toEqual(c.resume_offsets);
      const absent = [...Array(10).keys()].find((p) => !snap.asOf.has(p))!;
      expect(foldSnapshotResumeOffset(snap, absent).toString()).toBe(c.resume_offset_absent_partition);
      const back = decodeFoldSnapshot(fromHex(c.cbor_hex));
      expect(toHex(encodeFoldSnapshot(back))).toBe(c.cbor_hex);
      return;
    }
    if (c.kv_writes !== undefined) {
      // KvSnapshotStore.save writes the encoded snapshot under the conversation's Crockford text.
      for (const w of c.kv_writes) {
        const snap = decodeFoldSnapshot(fromHex(w.value_hex));
        expect(snap.conversation.toString()).toBe(w.key_utf8);
        expect(toHex(encodeFoldSnapshot(snap))).toBe(w.value_hex);
      }
      return;
    }
    if (divergent[c.id] !== undefined) {
      expect(errorOf(() => decodeFoldSnapshot(fromHex(c.cbor_hex)))?.class).toBe('CodecError');
      return;
    }
    if (c.ok) {
      const back = decodeFoldSnapshot(fromHex(c.cbor_hex));
      expect({
        conversation: back.conversation.toString(),
        as_of: [...back.asOf].map(([p, o]) => [p, o.toString()]),
        state: { hex: toHex(back.state) },
      }).toEqual(c.decoded);
      return;
    }
    const err = errorOf(() => decodeFoldSnapshot(fromHex(c.cbor_hex)));
    expect(err?.class).toBe(c.error.class);
    expect(err?.message).toBe(c.error.message);
    if (c.error.surface !== undefined) expect(err?.context).toMatchObject({ surface: c.error.surface, operation: c.error.operation });
  });
});

describe('session heartbeat, pause request and parking', () => {
  const conv = (n: number) => ConversationId.fromBigInt(BigInt(n) + 1n);

  test('heartbeat round trip and the 2,048-session cap', () => {
    const hb = { process: 'proc-1', stream: 'agents', sessions: [conv(1), conv(2)] };
    const back = decodeSessionHeartbeat(encodeSessionHeartbeat(hb));
    expect(back.process).toBe('proc-1');
    expect(back.sessions.map(String)).toEqual(hb.sessions.map(String));
    const many = Array.from({ length: MAX_HEARTBEAT_SESSIONS + 1 }, (_, i) => conv(i));
    expect(errorOf(() => encodeSessionHeartbeat({ ...hb, sessions: many }))).toMatchObject({
      class: 'InvalidError',
      message: '`sessions` has 2049 entries, exceeds cap 2048',
    });
    expect(splitHeartbeatSessions(many).map((g) => g.length)).toEqual([2048, 1]);
    encodeSessionHeartbeat({ ...hb, sessions: many.slice(0, MAX_HEARTBEAT_SESSIONS) });
  });

  test('pause request JSON', () => {
    const text = (b: Uint8Array) => new TextDecoder().decode(b);
    expect(text(encodeSessionPauseRequest({ participants: [] }))).toBe('{}');
    expect(text(encodeSessionPauseRequest({ participants: [AgentId.parse('a'), AgentId.parse('b')] }))).toBe('{"participants":["a","b"]}');
    expect(decodeSessionPauseRequest(new Uint8Array(0)).participants).toEqual([]);
    const enc = new TextEncoder();
    expect(errorOf(() => decodeSessionPauseRequest(enc.encode('{')))?.message).toBe('invalid session pause request');
    expect(errorOf(() => decodeSessionPauseRequest(enc.encode('[]')))?.message).toBe('a session pause request is a JSON object');
    expect(errorOf(() => decodeSessionPauseRequest(enc.encode('{"participants":[1]}')))?.message).toBe('pause participants are agent ids');
  });

  test('parking round trip and its rules', () => {
    const parking = {
      source: { kind: 'message' as const, stream: 1, topic: 2, partition: 3, offset: 4n, generation: 5n },
      role: AgentId.parse('critic'),
      request: new LogPosition(1, 9, 0, 77n),
    };
    const back = decodeSessionParking(encodeSessionParking(parking));
    expect(back.source).toEqual(parking.source);
    expect(back.request.equals(parking.request)).toBe(true);
    expect(errorOf(() => encodeSessionParking({ ...parking, source: { kind: 'kv', namespace: 'n', key: 'k' } }))?.message).toBe(
      'a parked record must point at a log record',
    );
    expect(errorOf(() => encodeSessionParking({ ...parking, source: { ...parking.source, generation: undefined } }))?.message).toBe(
      'a parked record must name its source topic generation',
    );
  });
});
