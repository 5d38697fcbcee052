import { AgentEnvelope, AgentId, ContentType, ConversationId, CorrelationId, decodeEnvelope, RecordId } from '@agdx/wire';

/** A fixture envelope in the oracle's logical JSON form (the fields these tests use). */
export interface LogicalEnvelope {
  readonly kind: 'command' | 'response' | 'event' | 'error' | 'status' | 'chunk';
  readonly record?: string;
  readonly conversation: string;
  readonly source: string;
  readonly target?: string;
  readonly correlation?: string;
  readonly task_state?: { readonly code: number };
  readonly operation?: string;
  readonly tool?: string;
  readonly last: boolean;
  readonly body_hex?: string;
}

/** Bytes of a hex string. */
export function hex(text: string): Uint8Array {
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** The envelope a logical fixture envelope describes. */
export function envelopeOf(logical: LogicalEnvelope): AgentEnvelope {
  return AgentEnvelope.fromFields({
    kind: logical.kind,
    ...(logical.record !== undefined ? { record: RecordId.parse(logical.record) } : {}),
    conversation: ConversationId.parse(logical.conversation),
    source: AgentId.new(logical.source),
    ...(logical.target !== undefined ? { target: AgentId.new(logical.target) } : {}),
    ...(logical.correlation !== undefined ? { correlation: CorrelationId.parse(logical.correlation) } : {}),
    ...(logical.task_state !== undefined ? { taskState: logical.task_state.code } : {}),
    ...(logical.operation !== undefined ? { operation: logical.operation } : {}),
    ...(logical.tool !== undefined ? { tool: logical.tool } : {}),
    last: logical.last,
    body: hex(logical.body_hex ?? ''),
  });
}

/** The content type a fixture envelope is published with (errors carry a CBOR error body). */
export function contentTypeOf(logical: LogicalEnvelope): number {
  return logical.kind === 'error' ? ContentType.cbor : ContentType.raw;
}

/** A fixture transport batch (what the reference handed to the log). */
export interface PublishedBatch {
  readonly topic: string;
  readonly messages: readonly { readonly payload_hex: string; readonly headers: readonly { readonly name: string; readonly value?: unknown }[] }[];
}

/** Decodes the payloads of fixture batches. */
export function publishedEnvelopes(batches: readonly PublishedBatch[]): { topic: string; envelope: AgentEnvelope; contentType: unknown }[] {
  return batches.flatMap((b) =>
    b.messages.map((m) => ({ topic: b.topic, envelope: decodeEnvelope(hex(m.payload_hex)), contentType: m.headers.find((h) => h.name === 'agdx.ct')?.value })),
  );
}
