export {
  type Artifact,
  artifactFromBytes,
  createArtifact,
  hasArtifacts,
  type ToolOutputWithArtifacts,
  withArtifacts,
} from './artifacts.js';
export {
  DuplicateToolError,
  InvalidArtifactError,
  InvalidToolArgumentsError,
  InvalidToolDefinitionError,
  InvalidToolDescriptionError,
  InvalidToolNameError,
  InvalidToolOptionError,
  InvalidToolSchemaError,
  MalformedToolArgumentsError,
  type ToolArgumentIssue,
  type ToolErrorCode,
  UnknownToolError,
  UnsafePatternError,
} from './errors.js';
export {
  type AfterToolUseContext,
  type AfterToolUseDecision,
  type BeforeToolUseContext,
  type BeforeToolUseDecision,
  type ExecuteActionOptions,
  executeAction,
  type NestedExecuteOptions,
  type ToolHooks,
  type ToolInterception,
  type ToolObservation,
} from './execute-action.js';
export { type ExecuteActionsOptions, executeActions } from './execute-actions.js';
export {
  executeStreamingAction,
  type StreamingActionExecution,
  type StreamingActionOptions,
  type StreamingCall,
} from './execute-streaming-action.js';
export { type FormatObservationOptions, formatObservationForModel } from './format-observation.js';
export { type ArgumentLimits, DEFAULT_ARGUMENT_LIMITS } from './limits.js';
export { normalizeJsonSchema } from './normalize-json-schema.js';
export { type OwnWorkDeadline, ownWorkDeadline } from './own-work-deadline.js';
export {
  type ParseToolArgumentsError,
  type ParseToolArgumentsOptions,
  type ParseToolArgumentsResult,
  parseToolArguments,
} from './parse-tool-arguments.js';
export type { Coercion, CoercionKind } from './schema-walker.js';
export {
  DEFAULT_OUTPUT_BUDGET_BYTES,
  MAX_SERIALIZED_BYTES,
  type SerializedOutput,
  serializeOutput,
  type ToJsonValueOptions,
  toJsonValue,
} from './serialize-output.js';
export {
  SCHEMA_TARGETS,
  type SchemaTarget,
  type ToJsonSchemaOptions,
  toJsonSchema,
} from './to-json-schema.js';
export {
  defineTool,
  type InferToolArgs,
  type Tool,
  type ToolApprovalPredicate,
  type ToolDefinition,
  type ToolExecuteResult,
  type ToolExecutionContext,
  type ToolRunView,
  toolNeedsApproval,
} from './tool.js';
export {
  type ToolCallError,
  type ToolCallToActionOptions,
  type ToolCallToActionResult,
  toolCallToAction,
} from './tool-call-to-action.js';
export {
  MAX_TOOL_CONTENT_BYTES,
  type ToolMediaPart,
  type ToolOutputWithContent,
  toolMessageContent,
  withContent,
} from './tool-content.js';
export {
  type LoadToolDescriptionsOptions,
  loadToolDescriptions,
  type ToolDescription,
  type ToolDescriptionArgs,
  type ToolDescriptionExecute,
  toolFromDescription,
} from './tool-from-description.js';
export type { ToolInputStream } from './tool-input-stream.js';
export { assertValidToolName, PROVIDER_TOOL_NAME_PATTERN, ToolNameMapping } from './tool-name.js';
export { ToolRegistry, type ToolSpecsOptions, toToolSpec } from './tool-registry.js';
export { type AmbiguousResult, ambiguous, type NotFoundResult, notFound } from './tool-results.js';
export { type UnattendedCall, unattendedApprovalRefusal } from './unattended-approval.js';
export {
  type ValidateToolArgumentsOptions,
  type ValidateToolArgumentsResult,
  validateToolArguments,
} from './validate-tool-arguments.js';
export type { LooseJsonSchema, ZodSchema } from './zod-schema.js';
