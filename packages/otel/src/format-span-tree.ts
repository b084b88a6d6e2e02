import { type HrTime, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { ATTR } from './semantic-conventions.js';

/**
 * What {@link formatSpanTree} reads of a finished span: a subset of the SDK's `ReadableSpan`
 * (`@opentelemetry/sdk-trace-base`), so any exporter's spans fit without this package depending on the SDK. Kinds and
 * status codes are plain numbers, so spans typed by another copy of `@opentelemetry/api` fit too.
 */
export interface SpanTreeNode {
  readonly name: string;
  /** A `SpanKind`. */
  readonly kind: number;
  /** The span's ids, as on an SDK `ReadableSpan`: `spanId` links children to it through `parentSpanId`. */
  spanContext(): { readonly spanId: string; readonly traceId: string };
  /** The parent, as SDK 2.x reports it. */
  readonly parentSpanContext?: { readonly spanId: string } | undefined;
  /** The parent's id, as SDK 1.x reports it. */
  readonly parentSpanId?: string | undefined;
  readonly attributes: Readonly<Record<string, unknown>>;
  /** `code` is a `SpanStatusCode`. */
  readonly status: { readonly code: number; readonly message?: string | undefined };
  readonly startTime: HrTime;
  readonly endTime: HrTime;
}

/** Options of {@link formatSpanTree}. */
export interface FormatSpanTreeOptions {
  /** Show each span's duration. Default true. */
  readonly durations?: boolean;
}

const milliseconds = (time: HrTime): number => time[0] * 1000 + time[1] / 1e6;

function describe(span: SpanTreeNode, durations: boolean): string {
  const attributes = span.attributes;
  const details: string[] = [];
  if (span.kind === SpanKind.CLIENT) details.push('CLIENT');
  const stepId = attributes[ATTR.planStepId];
  if (stepId !== undefined) details.push(`step ${String(stepId)}`);
  const input = attributes[ATTR.usageInputTokens];
  const output = attributes[ATTR.usageOutputTokens];
  if (input !== undefined || output !== undefined) details.push(`tokens ${String(input)}→${String(output)}`);
  const finish = attributes[ATTR.responseFinishReasons] ?? attributes[ATTR.runFinishReason];
  if (finish !== undefined) details.push(Array.isArray(finish) ? finish.join(',') : String(finish));
  if (durations) details.push(`${Math.round(milliseconds(span.endTime) - milliseconds(span.startTime))} ms`);
  const error =
    span.status.code === SpanStatusCode.ERROR
      ? `  ERROR ${String(attributes[ATTR.errorType] ?? '')}${span.status.message ? `: ${span.status.message}` : ''}`
      : '';
  return `${span.name}${details.length > 0 ? `  (${details.join(', ')})` : ''}${error}`;
}

/**
 * Renders finished spans as an indented tree, children under their parent in start order, one line per span
 * with what matters at a glance: kind (CLIENT), plan step, tokens, finish reason, duration, and the error.
 * Spans whose parent is not among them are roots.
 *
 * @example
 * const exporter = new InMemorySpanExporter();
 * // ... run an agent with otelListener({ tracer: provider.getTracer('demo') })
 * console.log(formatSpanTree(exporter.getFinishedSpans()));
 * // invoke_agent weather  (tokens 310→42, final-answer, 1840 ms)
 * // ├─ chat scripted-model  (CLIENT, tokens 120→30, tool-calls, 600 ms)
 * // └─ execute_tool execute_tool_plan  (640 ms)
 * //    ├─ execute_tool get_weather  (step paris, 300 ms)
 * //    └─ execute_tool get_weather  (step rome, 310 ms)
 */
export function formatSpanTree(spans: readonly SpanTreeNode[], options: FormatSpanTreeOptions = {}): string {
  const durations = options.durations ?? true;
  const ids = new Set(spans.map((span) => span.spanContext().spanId));
  const children = new Map<string | undefined, SpanTreeNode[]>();
  for (const span of spans) {
    const parentId = span.parentSpanContext?.spanId ?? span.parentSpanId;
    const key = parentId !== undefined && ids.has(parentId) ? parentId : undefined;
    const siblings = children.get(key) ?? [];
    siblings.push(span);
    children.set(key, siblings);
  }
  const byStart = (left: SpanTreeNode, right: SpanTreeNode): number =>
    milliseconds(left.startTime) - milliseconds(right.startTime) || left.name.localeCompare(right.name);
  const lines: string[] = [];
  const walk = (span: SpanTreeNode, prefix: string, connector: string, childPrefix: string): void => {
    lines.push(`${prefix}${connector}${describe(span, durations)}`);
    const below = [...(children.get(span.spanContext().spanId) ?? [])].sort(byStart);
    below.forEach((child, index) => {
      const last = index === below.length - 1;
      walk(child, `${prefix}${childPrefix}`, last ? '└─ ' : '├─ ', last ? '   ' : '│  ');
    });
  };
  for (const root of [...(children.get(undefined) ?? [])].sort(byStart)) walk(root, '', '', '');
  return lines.join('\n');
}
