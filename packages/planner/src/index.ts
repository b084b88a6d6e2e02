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
  DecisionExtractionError,
  InvalidAgentOptionsError,
  InvalidResumeStateError,
  type PlannerErrorCode,
  ToolCallLoopError,
} from './errors.js';
export {
  createFunctionCallingPlanner,
  type FunctionCallingPlannerOptions,
} from './function-calling-planner.js';
export type { InferenceRecord, Planner, PlannerTurn, PlanningContext, RejectedToolCall } from './planner.js';
export { parseReActDecision, type ReActDecision, type ReActDecisionResult } from './react-decision.js';
export { createReActPlanner, type ReActPlannerOptions, renderDecision } from './react-planner.js';
export { renderReActInstructions } from './react-prompt.js';
export { runAgent } from './run-agent.js';
export { type AgentStream, streamAgent } from './stream-agent.js';
export { buildSystemPrompt, DEFAULT_MAX_STRATEGIC_PLAN_CHARACTERS } from './system-prompt.js';
export {
  forceToolUse,
  preventToolUse,
  type ToolChoiceContext,
  type ToolChoicePolicy,
} from './tool-choice-policy.js';
export type { ToolSelectionStats, ToolStats } from './tool-stats.js';
