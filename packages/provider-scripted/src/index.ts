export { type Clock, realClock } from './clock.js';
export { SCRIPTED_CONTENT_LIMITS, SCRIPTED_IMAGE_MEDIA_TYPES } from './content-limits.js';
export {
  InvalidDurationError,
  InvalidScriptError,
  ScriptExhaustedError,
  type ScriptedErrorCode,
  ScriptMismatchError,
} from './errors.js';
export { LATENCY_PROFILES, type LatencyProfile } from './latency.js';
export {
  createScriptedModel,
  type Script,
  type ScriptContext,
  type ScriptedCall,
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedReasoning,
  type ScriptedToolCall,
  type ScriptedTurn,
  type ScriptFunction,
} from './scripted-model.js';
export {
  createTaskScripts,
  type TaskAggregate,
  type TaskCall,
  type TaskOutputs,
  type TaskScriptOptions,
  type TaskScripts,
} from './task-scripts.js';
export {
  countContentTokens,
  countMessageTokens,
  countOutputTokens,
  countReasoningTokens,
  countRequestTokens,
  countTokens,
  countToolCallTokens,
  countToolSpecTokens,
  FILE_PART_TOKENS,
  IMAGE_PART_TOKENS,
  MESSAGE_OVERHEAD_TOKENS,
  REQUEST_OVERHEAD_TOKENS,
  renderResponseFormat,
  renderToolSpec,
  TOOL_CALL_OVERHEAD_TOKENS,
} from './token-counter.js';
export { createVirtualClock, type VirtualClock, type VirtualClockOptions } from './virtual-clock.js';
