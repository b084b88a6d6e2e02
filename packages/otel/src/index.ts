export {
  boundText,
  DEFAULT_MAX_CONTENT_BYTES,
  MAX_MESSAGE_BYTES,
  TRUNCATION_MARKER,
} from './bounded-content.js';
export { type FormatSpanTreeOptions, formatSpanTree, type SpanTreeNode } from './format-span-tree.js';
export {
  INSTRUMENTATION_SCOPE,
  type OtelListener,
  type OtelListenerOptions,
  otelListener,
} from './otel-listener.js';
export {
  ATTR as OTEL_ATTRIBUTES,
  OPERATION as GEN_AI_OPERATIONS,
  SPAN_EVENT as OTEL_SPAN_EVENTS,
} from './semantic-conventions.js';
