export { type Clock, systemClock } from './clock.js';
export {
  createToolPlanTool,
  TOOL_PLAN_DESCRIPTION,
  type ToolPlanToolOptions,
} from './create-tool-plan-tool.js';
export { type ExecutePlanOptions, executePlan } from './execute-plan.js';
export { type FormatPlanResultOptions, formatPlanResult } from './format-plan-result.js';
export {
  createInProcessStepRunner,
  type InProcessStepRunnerOptions,
} from './in-process-step-runner.js';
export {
  type IncrementalJsonFailure,
  IncrementalJsonReader,
  type IncrementalJsonReaderOptions,
  type IncrementalJsonValue,
  type JsonPathSegment,
} from './incremental-json-reader.js';
export { type ParsePlanOptions, type ParsePlanResult, parsePlan } from './parse-plan.js';
export {
  type Plan,
  type PlanInput,
  type PlanObjectStepInput,
  type PlanStep,
  type PlanStepInput,
  TOOL_PLAN_TOOL_NAME,
} from './plan.js';
export { DEFAULT_PLAN_LIMITS, type PlanLimits } from './plan-limits.js';
export { PlanOptionsError } from './plan-options-error.js';
export type {
  CycleProblem,
  DuplicateStepIdProblem,
  InvalidArgumentsJsonProblem,
  InvalidReferenceProblem,
  InvalidStepIdProblem,
  LimitExceededProblem,
  MalformedPlanProblem,
  NestedPlanProblem,
  PlanProblem,
  PlanProblemCode,
  SelfReferenceProblem,
  UnknownOutputFieldProblem,
  UnknownStepProblem,
  UnknownToolProblem,
} from './plan-problem.js';
export type { MissingReference, PlanResult, PlanStatus, PlanStepResult } from './plan-result.js';
export { PlanValidationError, type PlanValidationErrorOptions } from './plan-validation-error.js';
export type { StepObservation, StepRunner, StepRunRequest } from './step-runner.js';
export {
  type ValidatedPlan,
  type ValidatePlanOptions,
  type ValidatePlanResult,
  validatePlan,
} from './validate-plan.js';
