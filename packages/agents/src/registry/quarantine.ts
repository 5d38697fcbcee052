/**
 * Quarantine facts on `agent.registry` (seed 000 "Trust boundary"): an operator marks an agent
 * quarantined or lifts it with a `status` record whose operation is `quarantine` or
 * `unquarantine` and whose body is the target agent id. Readers fold the facts in log order.
 * With a verifier, a fact counts only when an operator key signed it (judged at the broker
 * timestamp) and its `source` is that key's operator; without one, write access to the registry
 * topic is the only gate.
 */

import { AgdxError, AgentId, ConversationId, InvalidError, type AgentEnvelope, type RecordId } from '@agdx/wire';
import type { LogRecord } from '@agdx/transport';
import type { AgdxClient } from '../client/agdx-client.js';
import { AgentTopic } from '../client/agent-topic.js';
import { readAgentMessage } from '../message/agent-message.js';
import { speaksAsSigner } from '../replies/reply-signers.js';
import type { Verifier, VerifiedPrincipal } from '../replies/verifier.js';
import type { Signer } from '../send/signer.js';

/** The two registry operations. */
export const QuarantineOperation: { readonly Quarantine: 'quarantine'; readonly Unquarantine: 'unquarantine' } = Object.freeze({
  Quarantine: 'quarantine',
  Unquarantine: 'unquarantine',
});
/** `quarantine` or `unquarantine`. */
export type QuarantineOperation = (typeof QuarantineOperation)[keyof typeof QuarantineOperation];

/** Who writes a fact, and how. */
export interface QuarantineFactOptions {
  /** The operator writing the fact (the envelope source). */
  readonly operator: AgentId | string;
  /** Signs the fact; registries with a verifier ignore unsigned facts. */
  readonly signer?: Signer | undefined;
  /** Aborts the publish. */
  readonly signal?: AbortSignal | undefined;
}

const utf8 = new TextEncoder();
// ignoreBOM: a fact naming `\ufeffrogue` is about that agent, not about `rogue`.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function agentOf(value: AgentId | string, what: string): AgentId {
  if (value instanceof AgentId) return value;
  if (typeof value !== 'string') throw new InvalidError(`${what} must be an AgentId or a string`, { context: { field: what } });
  return AgentId.parse(value);
}

async function publishFact(client: AgdxClient, operation: QuarantineOperation, target: AgentId | string, options: QuarantineFactOptions): Promise<RecordId> {
  const subject = agentOf(target, 'target');
  await client.ensureOnFirstUseTopic(AgentTopic.Registry, { signal: options.signal });
  // Each fact is its own conversation, as the reference writes them: facts are not a dialogue.
  const builder = client
    .agdx(AgentTopic.Registry, agentOf(options.operator, 'operator'), ConversationId.new())
    .status(operation)
    .body(utf8.encode(subject.value));
  if (options.signer !== undefined) builder.signedBy(options.signer);
  const record = await builder.send();
  if (record === undefined) throw new InvalidError('a registry fact always has a record id');
  return record;
}

/** Publishes a `quarantine` fact for `target` on `agent.registry`; returns its record id. */
export function quarantine(client: AgdxClient, target: AgentId | string, options: QuarantineFactOptions): Promise<RecordId> {
  return publishFact(client, QuarantineOperation.Quarantine, target, options);
}

/** Publishes an `unquarantine` fact for `target` on `agent.registry`; returns its record id. */
export function unquarantine(client: AgdxClient, target: AgentId | string, options: QuarantineFactOptions): Promise<RecordId> {
  return publishFact(client, QuarantineOperation.Unquarantine, target, options);
}

/** Options of {@link readQuarantine}. */
export interface ReadQuarantineOptions {
  /** When set, only facts signed by an `operator` key count. Defaults to the client's verifier. */
  readonly verifier?: Verifier | null | undefined;
  /** Aborts the read. */
  readonly signal?: AbortSignal | undefined;
}

/** The folded quarantine state of a stream's registry. */
export interface QuarantineView {
  /** Agent ids currently quarantined. */
  readonly quarantined: ReadonlySet<string>;
  /** Facts that counted, in the order they were applied. */
  readonly applied: number;
  /** Facts ignored: unsigned or wrongly signed under a verifier, malformed, or repeated. */
  readonly ignored: number;
  /** True when `agent` is quarantined. */
  isQuarantined(agent: AgentId | string): boolean;
}

interface Fact {
  readonly record: LogRecord;
  readonly partition: number;
}

function factTarget(envelope: AgentEnvelope): string | undefined {
  try {
    return AgentId.parse(strictUtf8.decode(envelope.body)).value;
  } catch {
    return undefined;
  }
}

/**
 * Folds every quarantine fact of the client's stream in broker-time order (then partition and
 * offset). A fact is applied once per record id; with a verifier (the option, else the client's)
 * it counts only when an `operator` key signed it, valid at the record's broker timestamp.
 */
export async function readQuarantine(client: AgdxClient, options: ReadQuarantineOptions = {}): Promise<QuarantineView> {
  const stream = client.defaultStream;
  if (stream === undefined) throw new InvalidError('readQuarantine needs a client with a default stream');
  const verifier = options.verifier === null ? undefined : (options.verifier ?? client.verifier);
  const transport = client.transport;
  const facts: Fact[] = [];
  let description;
  try {
    description = await transport.describeTopic({ stream, topic: AgentTopic.Registry }, { signal: options.signal });
  } catch (error) {
    // No registry topic yet means no facts yet.
    if (AgdxError.is(error, 'not-found')) return view(new Set(), 0, 0);
    throw error;
  }
  for (const { partition, nextOffset } of description.partitions) {
    let offset = 0n;
    while (offset < nextOffset) {
      const records = await transport.read({ stream, topic: AgentTopic.Registry, partition, offset, maxCount: 1000, signal: options.signal });
      if (records.length === 0) break;
      for (const record of records) facts.push({ record, partition });
      offset = (records[records.length - 1] as LogRecord).offset + 1n;
    }
  }
  facts.sort((a, b) =>
    a.record.timestampMicros !== b.record.timestampMicros
      ? a.record.timestampMicros < b.record.timestampMicros ? -1 : 1
      : a.partition !== b.partition ? a.partition - b.partition : a.record.offset < b.record.offset ? -1 : a.record.offset > b.record.offset ? 1 : 0,
  );
  const quarantined = new Set<string>();
  const seen = new Set<string>();
  let applied = 0;
  let ignored = 0;
  for (const { record, partition } of facts) {
    let envelope: AgentEnvelope | undefined;
    try {
      envelope = readAgentMessage(record, { stream, topic: AgentTopic.Registry }).envelope;
    } catch {
      envelope = undefined;
    }
    if (envelope === undefined || envelope.kind !== 'status') continue;
    const operation = envelope.operation;
    if (operation !== QuarantineOperation.Quarantine && operation !== QuarantineOperation.Unquarantine) continue;
    const id = envelope.record?.toString() ?? `${partition}:${record.offset}`;
    const target = factTarget(envelope);
    if (seen.has(id) || target === undefined) {
      ignored += 1;
      continue;
    }
    seen.add(id);
    if (verifier !== undefined) {
      let signer: VerifiedPrincipal;
      try {
        signer = await verifier.verifyAt(envelope, record.timestampMicros, record.headers);
      } catch {
        ignored += 1;
        continue;
      }
      // An operator key counts only when the fact speaks as the operator it is enrolled for.
      if (signer.kind !== 'operator' || !speaksAsSigner(envelope, signer)) {
        ignored += 1;
        continue;
      }
    }
    if (operation === QuarantineOperation.Quarantine) quarantined.add(target);
    else quarantined.delete(target);
    applied += 1;
  }
  return view(quarantined, applied, ignored);
}

function view(quarantined: Set<string>, applied: number, ignored: number): QuarantineView {
  return {
    quarantined,
    applied,
    ignored,
    isQuarantined: (agent) => quarantined.has(typeof agent === 'string' ? agent : agent.value),
  };
}
