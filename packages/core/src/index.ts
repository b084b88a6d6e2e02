export type { Adjustment, AdjustmentKind } from './adjustment.js';
export {
  cutToUtf8Bytes,
  stringifyPrefix,
  stringifyWithin,
  type TruncateTextOptions,
  truncateText,
  truncationMarker,
  utf8ByteLength,
} from './bounded-text.js';
export type { Clock } from './clock.js';
export { closestMatch } from './closest-match.js';
export { collectStream } from './collect-stream.js';
export {
  AbortedError,
  AuthenticationError,
  abortReasonOf,
  brandError,
  ContentTooLargeError,
  ContextLengthExceededError,
  type CoreErrorCode,
  type ErrorCode,
  errorMessageOf,
  eventErrorOf,
  IncompleteToolCallError,
  InvalidMessageHistoryError,
  InvalidProviderOptionsError,
  InvalidRequestError,
  InvalidToolChoiceError,
  LimitExceededError,
  OrgError,
  type OrgErrorOptions,
  ProviderError,
  type ProviderErrorOptions,
  ProviderUnavailableError,
  RateLimitError,
  StreamInterruptedError,
  TimeoutError,
  UnsupportedSpecificationVersionError,
  UnsupportedToolChoiceError,
} from './errors.js';
export type {
  AdjustmentEvent,
  ApprovalRequestedEvent,
  DecisionExtractionFailedEvent,
  EventError,
  InferenceFailedEvent,
  InferenceFinishedEvent,
  InferenceStartedEvent,
  PlanStepFinishedEvent,
  PlanStepStartedEvent,
  ReasoningDeltaEvent,
  RunEvent,
  RunEventListener,
  RunEventOf,
  RunEventType,
  RunFinishedEvent,
  RunStartedEvent,
  TextDeltaEvent,
  ToolCallArgumentsCompleteEvent,
  ToolCallArgumentsDeltaEvent,
  ToolCallFinishedEvent,
  ToolCallInterceptedEvent,
  ToolCallProgressEvent,
  ToolCallStartedEvent,
  ToolCallStreamingStartedEvent,
  ValidationFailedEvent,
} from './events.js';
export {
  GEMINI_OPENAPI_SCHEMA_KEYWORDS,
  type GeminiSchemaConversion,
  type GeminiSchemaRefusal,
  toGeminiOpenApiSchema,
} from './gemini-schema-dialect.js';
export type {
  JsonArray,
  JsonObject,
  JsonPrimitive,
  JsonSchema,
  JsonSchemaTypeName,
  JsonValue,
} from './json.js';
export { JsonKeyRewriter, type JsonKeyScope, rewriteJsonKeys } from './json-key-rewriter.js';
export {
  assertLanguageModel,
  type ErrorPart,
  type FinishPart,
  type FinishReason,
  type LanguageModel,
  type ModelRequest,
  type ModelResponse,
  type ProviderOptions,
  type ReasoningDeltaPart,
  type ReasoningStreamPart,
  type ResponseFormat,
  SPECIFICATION_VERSION,
  type SpecificationVersion,
  type StreamPart,
  type TextDeltaPart,
  type ToolCallDeltaPart,
  type ToolCallPart,
  type ToolCallStartPart,
} from './language-model.js';
export { type LimitValueRule, limitValueProblem } from './limit-value.js';
export {
  describeOptionValue,
  MAX_TIMER_DELAY_MS,
  type TimerDelayRule,
  timerDelayProblem,
} from './max-timer-delay.js';
export {
  type AssistantMessage,
  assertContentWithinLimits,
  assertToolCallPairing,
  base64ByteLength,
  type ContentLimits,
  type ContentPart,
  contentPartProblem,
  contentText,
  type FileContentPart,
  type ImageContentPart,
  type Message,
  type MessageContent,
  type MessageRole,
  type ReasoningPart,
  type SystemMessage,
  type TextContentPart,
  type ToolMessage,
  type UserMessage,
} from './message.js';
export {
  type ModelCapabilities,
  type ModelCapabilitiesOverride,
  mergeCapabilities,
  type ToolChoiceSupport,
} from './model-capabilities.js';
export { type NestedCall, nestedCallOf } from './nested-call.js';
export {
  OPENAI_STRICT_SCHEMA_FORMATS,
  OPENAI_STRICT_SCHEMA_KEYWORDS,
  OPENAI_STRICT_SCHEMA_MAX_PROPERTIES,
} from './openai-strict-dialect.js';
export {
  mapPropertyNames,
  mapToolPropertyNames,
  type PropertyNameMapping,
  type PropertyNameRules,
  type ToolPropertyNames,
} from './property-name-mapping.js';
export { createRedactingLogger, type LogFunction, type ProviderLogger } from './provider-logger.js';
export { type ProviderRetryInput, resolveProviderRetryOptions } from './provider-retry.js';
export {
  isCredentialName,
  redactCause,
  redactRegisteredSecrets,
  redactSecrets,
  redactSecretsDeep,
  registerHeaderSecrets,
  registerSecret,
} from './redact-secrets.js';
export {
  abortableSleep,
  backoffDelay,
  checkRetryOptions,
  DEFAULT_RETRY_OPTIONS,
  type HeadersLike,
  parseRetryAfterMs,
  type ResolvedRetryOptions,
  type RetryFailure,
  type RetryOptions,
  resolveRetryOptions,
  retryHintsFromHeaders,
  type WithRetriesOptions,
  withRetries,
} from './retry.js';
export {
  combineListeners,
  type RunEventListeners,
  runEventListenersProblem,
  toRunEventListener,
} from './run-event-listeners.js';
export {
  DEFAULT_STRICT_JSON_MAX_DEPTH,
  JsonParseFailure,
  jsonEqual,
  type ParseJsonStrictOptions,
  parseJsonStrict,
  type ReadStrictJsonOptions,
  readStrictJson,
  type StrictJsonResult,
} from './strict-json.js';
export {
  type Action,
  isObservationStatus,
  OBSERVATION_STATUSES,
  type Observation,
  type ObservationError,
  type ObservationStatus,
  type ToolCall,
  type ToolSpec,
} from './tool-call.js';
export {
  applyToolCallPolicy,
  isToolCallAccepted,
  reportToolCallPolicy,
  ToolCallPolicy,
  type ToolCallPolicyContext,
} from './tool-call-policy.js';
export {
  assertToolChoiceOffered,
  TOOL_CHOICE_NAMES,
  ToolChoice,
  type ToolChoiceInput,
  type ToolChoiceMode,
  toToolChoice,
} from './tool-choice.js';
export { addUsage, createUsage, EMPTY_USAGE, type Usage } from './usage.js';
