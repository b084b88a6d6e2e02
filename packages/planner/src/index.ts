// Moved to @org/core (every package's `onEvent` takes them); re-exported so existing imports keep working.
export { combineListeners, type RunEventListeners } from '@org/core';
export {
  type AgentConfigGateway,
  type AgentConfigOptions,
  agentOptionsFromConfig,
  type LoadedAgentConfig,
  TOOL_CHOICE_ENVIRONMENT_VARIABLE,
} from './agent-config.js';
export type {
  AgentFinishReason,
  AgentHooks,
  AgentOptions,
  AgentResult,
  AgentState,
  AgentStep,
  ApprovalDecision,
  StopCondition,
  StopContext,
} from './agent-types.js';
export { isArgumentEcho } from './argument-leak.js';
export {
  type AgentConfigProblem,
  DecisionExtractionError,
  type FailedToolCall,
  InvalidAgentConfigError,
  InvalidAgentOptionsError,
  InvalidCompiledMessagesError,
  InvalidResumeStateError,
  type InvalidResumeStateReason,
  InvalidToolExecutorResultError,
  type PlannerErrorCode,
  ResumeAlreadyClaimedError,
  StructuredOutputError,
  ToolCallFailedError,
  ToolCallLoopError,
} from './errors.js';
export {
  createFunctionCallingPlanner,
  type FunctionCallingPlannerOptions,
} from './function-calling-planner.js';
export {
  currentRunToolTraces,
  type MessageCompiler,
  type MessageCompilerContext,
  recentToolTraces,
  type StepMessages,
} from './message-compiler.js';
export type { InferenceRecord, Planner, PlannerTurn, PlanningContext, RejectedToolCall } from './planner.js';
export type {
  PrepareStep,
  PrepareStepContext,
  StepSettings,
} from './prepare-step.js';
export { parseReActDecision, type ReActDecision, type ReActDecisionResult } from './react-decision.js';
export { createReActPlanner, type ReActPlannerOptions, renderDecision } from './react-planner.js';
export { renderReActInstructions } from './react-prompt.js';
export {
  createInMemoryResumeTokenStore,
  type InMemoryResumeTokenStoreOptions,
  type ResumeTokenStore,
} from './resume-token-store.js';
export { runAgent } from './run-agent.js';
export { inProcessRunEffects, type ModelCallInfo, type RunEffects, type RunIdKind } from './run-effects.js';
export type { StateSecret } from './state-seal.js';
export { type AgentStream, streamAgent } from './stream-agent.js';
export { buildSystemPrompt, DEFAULT_MAX_STRATEGIC_PLAN_CHARACTERS } from './system-prompt.js';
export {
  forceToolUse,
  preventToolUse,
  type ToolChoiceContext,
  type ToolChoicePolicy,
} from './tool-choice-policy.js';
export { defaultToolExecutor, type ToolExecutor, type ToolExecutorContext } from './tool-executor.js';
export type { ToolSelectionStats, ToolStats } from './tool-stats.js';
