/** An SDK tracer and meter provider recording into memory, for assertions. */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type MetricData } from '@opentelemetry/sdk-metrics';

/** Providers plus readers of what they recorded. */
export interface MemorySdk {
  readonly tracerProvider: BasicTracerProvider;
  readonly meterProvider: MeterProvider;
  spans(): ReadableSpan[];
  metrics(): Promise<Map<string, MetricData>>;
  shutdown(): Promise<void>;
}

/** Fresh in-memory providers. */
export function memorySdk(): MemorySdk {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  // The interval is never reached: tests collect on demand.
  const reader = new PeriodicExportingMetricReader({ exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracerProvider,
    meterProvider,
    spans: () => exporter.getFinishedSpans(),
    async metrics() {
      const { resourceMetrics } = await reader.collect();
      const out = new Map<string, MetricData>();
      for (const scope of resourceMetrics.scopeMetrics) for (const metric of scope.metrics) out.set(metric.descriptor.name, metric);
      return out;
    },
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

/** Sum of a counter's data points matching `filter`. */
export function counterSum(metric: MetricData | undefined, filter: (attributes: Record<string, unknown>) => boolean = () => true): number {
  if (metric === undefined) return 0;
  let sum = 0;
  for (const point of metric.dataPoints) if (filter(point.attributes)) sum += point.value as number;
  return sum;
}

/** Number of recordings in a histogram's data points. */
export function histogramCount(metric: MetricData | undefined): number {
  if (metric === undefined) return 0;
  let count = 0;
  for (const point of metric.dataPoints) count += (point.value as { count: number }).count;
  return count;
}

/** Polls `condition` until it holds (bounded: `rounds` of 25 ms, default 800, 20 s). */
export async function until(condition: () => boolean, what: string, rounds = 800): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}
