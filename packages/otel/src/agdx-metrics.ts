/** The metric instruments of one instrumentation. */
import { createNoopMeter, type Counter, type Histogram, type Meter } from '@opentelemetry/api';
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
  /**
   * false when every instrument is the API's no-op (a meter from the global no-op provider):
   * the hook then skips building the attributes and reading the clock for measurements nobody
   * keeps. Absent means true.
   */
  readonly measuring?: boolean | undefined;
}

// The API hands out one shared instance per no-op instrument kind; an instrument that is one of
// them records nothing. A meter from another copy of the API is taken as measuring (safe, only slower).
const NOOP_METER = createNoopMeter();
const NOOP_COUNTER = NOOP_METER.createCounter('noop');
const NOOP_HISTOGRAM = NOOP_METER.createHistogram('noop');

/** Creates the instruments on `meter`. */
export function createMetrics(meter: Meter): AgdxMetrics {
  const instruments = {
    sent: meter.createCounter(MetricName.sent, { description: 'AGDX envelopes appended to the log', unit: '{record}' }),
    handled: meter.createCounter(MetricName.handled, { description: 'AGDX records that reached a handler, by outcome', unit: '{record}' }),
    deadLettered: meter.createCounter(MetricName.deadLettered, { description: 'AGDX records written to the dead-letter topic', unit: '{record}' }),
    handlerDuration: meter.createHistogram(MetricName.handlerDuration, { description: 'Time an agent spent on one record', unit: 's' }),
    replyLatency: meter.createHistogram(MetricName.replyLatency, { description: 'Time from sending a request to its correlated answer', unit: 's' }),
    chunks: meter.createCounter(MetricName.chunks, { description: 'AGDX stream chunks appended', unit: '{chunk}' }),
    tokenUsage: meter.createHistogram(MetricName.tokenUsage, { description: 'Tokens reported in AGDX envelope usage', unit: '{token}' }),
  };
  const counters = [instruments.sent, instruments.handled, instruments.deadLettered, instruments.chunks];
  const histograms = [instruments.handlerDuration, instruments.replyLatency, instruments.tokenUsage];
  const measuring = counters.some((c) => c !== NOOP_COUNTER) || histograms.some((h) => h !== NOOP_HISTOGRAM);
  return { ...instruments, measuring };
}
