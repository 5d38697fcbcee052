/** The metric instruments of one instrumentation. */
import type { Counter, Histogram, Meter } from '@opentelemetry/api';
import { MetricName } from './semantic-conventions.js';

/** Counters and histograms the telemetry hook records into. */
export interface AgdxMetrics {
  /** Envelopes appended. */
  readonly sent: Counter;
  /** Records that reached a handler, by outcome. */
  readonly handled: Counter;
  /** Records dead-lettered, by reason. */
  readonly deadLettered: Counter;
  /** Handler time per record, seconds. */
  readonly handlerDuration: Histogram;
  /** Request-to-reply (and prompt-to-decision) time, seconds. */
  readonly replyLatency: Histogram;
  /** Chunks appended. */
  readonly chunks: Counter;
  /** Tokens reported in envelope usage, by `gen_ai.token.type`. */
  readonly tokenUsage: Histogram;
}

/** Creates the instruments on `meter`. */
export function createMetrics(meter: Meter): AgdxMetrics {
  return {
    sent: meter.createCounter(MetricName.sent, { description: 'AGDX envelopes appended to the log', unit: '{record}' }),
    handled: meter.createCounter(MetricName.handled, { description: 'AGDX records that reached a handler, by outcome', unit: '{record}' }),
    deadLettered: meter.createCounter(MetricName.deadLettered, { description: 'AGDX records written to the dead-letter topic', unit: '{record}' }),
    handlerDuration: meter.createHistogram(MetricName.handlerDuration, { description: 'Time an agent spent on one record', unit: 's' }),
    replyLatency: meter.createHistogram(MetricName.replyLatency, { description: 'Time from sending a request to its correlated answer', unit: 's' }),
    chunks: meter.createCounter(MetricName.chunks, { description: 'AGDX stream chunks appended', unit: '{chunk}' }),
    tokenUsage: meter.createHistogram(MetricName.tokenUsage, { description: 'Tokens reported in AGDX envelope usage', unit: '{token}' }),
  };
}
