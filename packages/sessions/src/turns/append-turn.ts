import { PolicyBlockedError, withTelemetryHeaders, type ActionGovernor, type MessagePosition } from '@agdx/agents';
import type { LogTransport, RecordHeaders } from '@agdx/transport';
import { AgdxError, encodeProvenanceHeaders, type ConversationId } from '@agdx/wire';
import { MissingTopicError } from '../errors.js';

/** Where and what a plain agent message goes: the seed's `sendAgent(topic, data, {conversationId})`. */
export interface PlainAppend {
  readonly transport: LogTransport;
  readonly governor: ActionGovernor | undefined;
  readonly stream: string;
  readonly topic: string;
  readonly conversation: ConversationId;
  readonly payload: Uint8Array;
  /** Extra headers beside the provenance block (for example `agdx.mem.ns`). */
  readonly extraHeaders?: RecordHeaders | undefined;
  /**
   * A telemetry hook's string pairs (W3C trace context) for the record, added within the
   * header-block limits and never over a provenance or extra header.
   */
  readonly telemetryHeaders?: ReadonlyArray<readonly [string, string]> | undefined;
  /** Provenance idempotency key. */
  readonly idempotencyKey?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Appends a plain (envelope-less) agent message keyed by its conversation: provenance headers
 * only, the raw bytes as payload. The governor sees a `send` with `signed: false` and may refuse
 * it (PolicyBlockedError, nothing written) or rewrite the payload.
 */
export async function appendPlain(request: PlainAppend): Promise<MessagePosition> {
  let payload = request.payload;
  const conversation = request.conversation.toString();
  if (request.governor !== undefined) {
    const verdict = await request.governor.check({
      kind: 'send',
      stream: request.stream,
      topic: request.topic,
      source: '',
      target: undefined,
      conversation,
      correlation: undefined,
      operation: undefined,
      tool: undefined,
      onBehalfOf: undefined,
      purpose: undefined,
      dataClassification: undefined,
      payload,
      signed: false,
    });
    if (verdict.kind === 'deny') {
      throw new PolicyBlockedError(verdict.reason ?? 'the action governor denied the session append', {
        context: { topic: request.topic },
      });
    }
    if (verdict.kind === 'rewrite') payload = verdict.body;
  }
  const provenance = encodeProvenanceHeaders({ conversation: request.conversation, idempotencyKey: request.idempotencyKey });
  let headers: RecordHeaders = provenance;
  if (request.extraHeaders !== undefined) {
    headers = new Map([...provenance, ...request.extraHeaders].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
  }
  if (request.telemetryHeaders !== undefined && request.telemetryHeaders.length > 0) headers = withTelemetryHeaders(headers, request.telemetryHeaders);
  let result;
  try {
    result = await request.transport.append({
      stream: request.stream,
      topic: request.topic,
      records: [{ headers, payload }],
      routing: { key: conversation },
      signal: request.signal,
    });
  } catch (error) {
    if (AgdxError.is(error, 'not-found')) {
      throw new MissingTopicError(
        `topic ${JSON.stringify(request.topic)} does not exist on stream ${JSON.stringify(request.stream)}; run bootstrap(partitions) for the default layout, or ensure custom topics first`,
        { cause: error, context: { stream: request.stream, topic: request.topic } },
      );
    }
    throw error;
  }
  return { stream: request.stream, topic: request.topic, partition: result.partition, offset: result.baseOffset };
}
