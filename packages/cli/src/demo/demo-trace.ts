/**
 * `agdx demo --otel`: the demo's client is instrumented with @agdx/otel and an in-memory span
 * exporter, and the traces of the demo's conversation are printed as a tree at the end.
 */
import type { AgdxClient } from '@agdx/agents';
import { instrument, renderTraceTree, type Instrumentation } from '@agdx/otel';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

/** Polling bound while the last handler spans end: 200 rounds of 10 ms. */
const SETTLE_ROUNDS = 200;

/** The demo's trace recorder. */
export class DemoTrace {
  readonly #exporter = new InMemorySpanExporter();
  readonly #provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(this.#exporter)] });
  readonly #instrumentation: Instrumentation;

  /** Instruments `laser`; call before any agent is spawned. */
  constructor(laser: AgdxClient) {
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

  /** Removes the instrumentation and stops the provider. */
  async close(): Promise<void> {
    this.#instrumentation.uninstall();
    await this.#provider.shutdown();
  }
}
