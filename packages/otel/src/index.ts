/**
 * OpenTelemetry instrumentation for AGDX: `instrument(client)` turns every send, handled record,
 * correlated wait and dead letter into spans and metrics in the GenAI and messaging semantic
 * conventions, and carries W3C trace context through the log in record headers.
 * @module
 */
export { instrument, INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION } from './instrument.js';
export type { Instrumentation, InstrumentOptions } from './instrument.js';
export { OtelTelemetry } from './otel-telemetry.js';
export { createMetrics } from './agdx-metrics.js';
export type { AgdxMetrics } from './agdx-metrics.js';
export { readTraceHeaders, traceHeaders, TRACEPARENT_HEADER, TRACESTATE_HEADER } from './trace-headers.js';
export { AgdxAttr, GenAiAttr, MESSAGING_SYSTEM, MessagingAttr, MetricName } from './semantic-conventions.js';
export { MAX_TREE_SPANS, renderTraceTree } from './trace-tree.js';
export type { TraceTreeOptions, TreeSpan } from './trace-tree.js';
