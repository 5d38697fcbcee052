/** Turning the instrumentation on for one client. */
import { metrics, trace, type MeterProvider, type TracerProvider } from '@opentelemetry/api';
import type { AgdxClient } from '@agdx/agents';
import { InvalidError } from '@agdx/wire';
import { createMetrics } from './agdx-metrics.js';
import { OtelTelemetry } from './otel-telemetry.js';

/** The instrumentation scope name of every tracer and meter this package creates. */
export const INSTRUMENTATION_NAME = '@agdx/otel';
/** The instrumentation scope version. */
export const INSTRUMENTATION_VERSION = '0.1.0';

/** Options of {@link instrument}. */
export interface InstrumentOptions {
  /** Where spans go (default the global provider, a no-op until an SDK registers one). */
  readonly tracerProvider?: TracerProvider | undefined;
  /** Where measurements go (default the global provider). */
  readonly meterProvider?: MeterProvider | undefined;
}

/** An installed instrumentation. */
export interface Instrumentation {
  /** The hook installed on the client. */
  readonly telemetry: OtelTelemetry;
  /** Removes the hook from the client (when it is still the installed one). */
  uninstall(): void;
}

/**
 * Instruments `client` and everything derived from it: sends, handlers of agents spawned on it
 * afterwards, correlated waits and dead letters report spans and metrics, and every record the
 * client appends carries its W3C trace context in the `traceparent`/`tracestate` headers.
 * Install it before spawning agents: an agent reads the hook when it starts.
 * @throws InvalidError when `client` is not an AGDX client.
 */
export function instrument(client: AgdxClient, options: InstrumentOptions = {}): Instrumentation {
  if (typeof (client as { instrument?: unknown } | null)?.instrument !== 'function') {
    throw new InvalidError('instrument() needs an AgdxClient', { context: { field: 'client' } });
  }
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION);
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION);
  const telemetry = new OtelTelemetry(tracer, createMetrics(meter));
  client.instrument(telemetry);
  return {
    telemetry,
    uninstall(): void {
      if (client.telemetry === telemetry) client.instrument(undefined);
    },
  };
}
