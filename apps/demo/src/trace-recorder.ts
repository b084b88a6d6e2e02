import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { formatSpanTree, type OtelListener, otelListener } from '@org/otel';

/** Records the spans of runs in memory and prints each run's trace tree (`--trace`). */
export interface TraceRecorder {
  /** The listener to pass as a run's `onEvent` (it must see the loop's events as emitted). */
  readonly listener: OtelListener;
  /** The trace tree of the spans finished since the last call, and forgets them. */
  takeTree(): string;
}

/**
 * A tracer provider with an in-memory exporter and an `otelListener` on it: what `--trace` prints, and a minimal
 * example of wiring `@org/otel` (an application would register an OTLP exporter instead).
 *
 * @example
 * const recorder = createTraceRecorder('org-demo');
 * await runAgent({ model, tools, task, onEvent: recorder.listener });
 * console.log(recorder.takeTree());
 */
export function createTraceRecorder(agentName: string): TraceRecorder {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const listener = otelListener({ tracer: provider.getTracer('@org/demo'), agentName });
  return {
    listener,
    takeTree(): string {
      const tree = formatSpanTree(exporter.getFinishedSpans());
      exporter.reset();
      return tree;
    },
  };
}
