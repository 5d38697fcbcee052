/**
 * `agdx demo --otel`: the demo's client is instrumented with @agdx/otel and an in-memory span
 * exporter, and the traces of the demo's conversation are printed as a tree at the end.
 */
import type { AgdxClient } from '@agdx/agents';
import { instrument, renderTraceTree, type Instrumentation } from '@agdx/otel';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter, SimpleSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';

/** Polling bound while the last handler spans end: 200 rounds of 10 ms. */
const SETTLE_ROUNDS = 200;

/** The demo's trace recorder. */
export class DemoTrace {
  readonly #exporter = new InMemorySpanExporter();
  readonly #provider: BasicTracerProvider;
  readonly #instrumentation: Instrumentation;

  /**
   * Instruments `laser`; call before any agent is spawned. With `otlpUrl` the spans are also
   * exported with OTLP/HTTP (JSON encoding) to that URL, for example `http://127.0.0.1:4318/v1/traces`.
   */
  constructor(laser: AgdxClient, otlpUrl?: string) {
    const processors: SpanProcessor[] = [new SimpleSpanProcessor(this.#exporter)];
    if (otlpUrl !== undefined) processors.push(new BatchSpanProcessor(new OTLPTraceExporter({ url: otlpUrl })));
    this.#provider = new BasicTracerProvider({ spanProcessors: processors });
    this.#instrumentation = instrument(laser, { tracerProvider: this.#provider });
  }

  /**
   * The traces that touch `conversation`, as a text tree, once every running handler and wait
   * span has ended (bounded: what has ended after two seconds is printed).
   */
  async tree(conversation: string): Promise<string> {
    for (let round = 0; round < SETTLE_ROUNDS && this.#instrumentation.telemetry.runningScopes > 0; round++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const spans = this.#exporter.getFinishedSpans();
    const traces = new Set(spans.filter((s) => s.attributes['gen_ai.conversation.id'] === conversation).map((s) => s.spanContext().traceId));
    return renderTraceTree(spans.filter((s) => traces.has(s.spanContext().traceId)));
  }

  /**
   * Removes the instrumentation and stops the provider, which flushes the OTLP export. Resolves
   * with why the export failed, if it did: an unreachable collector is a warning, not a failed demo.
   */
  async close(): Promise<string | undefined> {
    this.#instrumentation.uninstall();
    try {
      await this.#provider.shutdown();
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }
}
