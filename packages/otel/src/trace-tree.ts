/**
 * A plain-text tree of finished spans (what `agdx demo --otel` prints): one block per trace,
 * children under their parent in start order, with the attributes that say who did what.
 */
import { SpanKind, SpanStatusCode, type Attributes, type HrTime } from '@opentelemetry/api';
import { GenAiAttr } from './semantic-conventions.js';

/** The parts of a finished span the tree reads (an SDK `ReadableSpan` fits). */
export interface TreeSpan {
  /** Span name. */
  readonly name: string;
  /** Span kind. */
  readonly kind: SpanKind;
  /** Its own ids. */
  spanContext(): { readonly traceId: string; readonly spanId: string };
  /** The parent's context (SDK 2.x). */
  readonly parentSpanContext?: { readonly spanId: string } | undefined;
  /** Attributes. */
  readonly attributes: Attributes;
  /** Start time. */
  readonly startTime: HrTime;
  /** End time. */
  readonly endTime: HrTime;
  /** Status. */
  readonly status?: { readonly code: SpanStatusCode } | undefined;
}

/** Options of {@link renderTraceTree}. */
export interface TraceTreeOptions {
  /** Print durations (off gives output that is stable across runs). Default true. */
  readonly durations?: boolean | undefined;
}

/** At most this many spans are drawn; the rest are counted, so a runaway trace cannot flood a terminal. */
export const MAX_TREE_SPANS = 2000;

const KIND_NAMES: Readonly<Record<number, string>> = {
  [SpanKind.INTERNAL]: 'internal',
  [SpanKind.SERVER]: 'server',
  [SpanKind.CLIENT]: 'client',
  [SpanKind.PRODUCER]: 'producer',
  [SpanKind.CONSUMER]: 'consumer',
};

/** Renders `spans` as one text tree per trace (spans whose parent is missing become roots). */
export function renderTraceTree(spans: readonly TreeSpan[], options: TraceTreeOptions = {}): string {
  const shown = spans.slice(0, MAX_TREE_SPANS);
  const ids = new Set(shown.map((s) => s.spanContext().spanId));
  const children = new Map<string, TreeSpan[]>();
  const roots = new Map<string, TreeSpan[]>();
  for (const span of [...shown].sort((a, b) => hrMicros(a.startTime) - hrMicros(b.startTime))) {
    const parent = span.parentSpanContext?.spanId;
    if (parent !== undefined && ids.has(parent)) push(children, parent, span);
    else push(roots, span.spanContext().traceId, span);
  }
  const lines: string[] = [];
  for (const [traceId, top] of roots) {
    lines.push(`trace ${traceId}`);
    top.forEach((span, i) => draw(span, '', i === top.length - 1, children, lines, options.durations !== false));
  }
  if (spans.length > shown.length) lines.push(`… ${spans.length - shown.length} more spans not shown`);
  return lines.join('\n');
}

function draw(span: TreeSpan, prefix: string, last: boolean, children: Map<string, TreeSpan[]>, lines: string[], durations: boolean): void {
  const details = [KIND_NAMES[span.kind] ?? 'span'];
  const a = span.attributes;
  const agent = a[GenAiAttr.agentId];
  if (agent !== undefined) details.push(`agent=${String(agent)}`);
  const tool = a[GenAiAttr.toolName];
  if (tool !== undefined) details.push(`tool=${String(tool)}`);
  const finish = a[GenAiAttr.finishReasons];
  if (Array.isArray(finish)) details.push(`finish=${finish.join(',')}`);
  const input = a[GenAiAttr.inputTokens];
  const output = a[GenAiAttr.outputTokens];
  if (input !== undefined || output !== undefined) details.push(`tokens=${String(input ?? 0)}/${String(output ?? 0)}`);
  const chunks = a['agdx.chunks'];
  if (chunks !== undefined) details.push(`chunks=${String(chunks)}`);
  if (span.status?.code === SpanStatusCode.ERROR) details.push('ERROR');
  if (durations) details.push(`${((hrMicros(span.endTime) - hrMicros(span.startTime)) / 1000).toFixed(1)}ms`);
  lines.push(`${prefix}${last ? '└─ ' : '├─ '}${span.name}  [${details.join(' ')}]`);
  const kids = children.get(span.spanContext().spanId) ?? [];
  const next = prefix + (last ? '   ' : '│  ');
  kids.forEach((kid, i) => draw(kid, next, i === kids.length - 1, children, lines, durations));
}

function push(map: Map<string, TreeSpan[]>, key: string, span: TreeSpan): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [span]);
  else list.push(span);
}

function hrMicros(time: HrTime): number {
  return time[0] * 1e6 + time[1] / 1e3;
}
