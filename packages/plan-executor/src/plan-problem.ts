/** Fields every plan problem carries. */
interface PlanProblemBase {
  /** One sentence for a person or a model, naming the step and what to change. */
  readonly message: string;
  /** Where in the plan, e.g. `steps[2].arguments.city` or `output_steps[0]`. */
  readonly path: string;
  /** The step concerned, when there is one. */
  readonly stepId?: string;
}

/** The plan (or a step) does not have the required shape: `steps` missing, `id` not a string, ... */
export interface MalformedPlanProblem extends PlanProblemBase {
  readonly code: 'malformed_plan';
}

/** A step's `arguments` string is not valid JSON, or not a JSON object. */
export interface InvalidArgumentsJsonProblem extends PlanProblemBase {
  readonly code: 'invalid_arguments_json';
  readonly stepId: string;
}

/** A step id is empty or uses characters other than letters, digits, `_` and `-` (they would break `$ref`). */
export interface InvalidStepIdProblem extends PlanProblemBase {
  readonly code: 'invalid_step_id';
  readonly stepId: string;
}

/** Two or more steps share an id. */
export interface DuplicateStepIdProblem extends PlanProblemBase {
  readonly code: 'duplicate_step_id';
  readonly stepId: string;
  /** Positions of every step with this id. */
  readonly indexes: readonly number[];
}

/** A step names a tool that is not in the registry. */
export interface UnknownToolProblem extends PlanProblemBase {
  readonly code: 'unknown_tool';
  readonly stepId: string;
  readonly toolName: string;
  /** The closest registered tool name, when one is close. */
  readonly suggestion?: string;
}

/** A step calls `execute_tool_plan`: plans do not nest. */
export interface NestedPlanProblem extends PlanProblemBase {
  readonly code: 'nested_plan';
  readonly stepId: string;
}

/** A `$ref` (or an `output_steps` entry) names a step that does not exist. */
export interface UnknownStepProblem extends PlanProblemBase {
  readonly code: 'unknown_step';
  /** The step that holds the reference (absent for `output_steps`). */
  readonly stepId?: string;
  readonly reference: string;
  readonly missingStepId: string;
  readonly suggestion?: string;
}

/** A step refers to its own output. */
export interface SelfReferenceProblem extends PlanProblemBase {
  readonly code: 'self_reference';
  readonly stepId: string;
  readonly reference: string;
}

/** Steps that depend on each other in a circle; `cycle` lists them, the first repeated at the end. */
export interface CycleProblem extends PlanProblemBase {
  readonly code: 'cycle';
  readonly cycle: readonly string[];
}

/** A `$ref` that is not well formed, or whose path uses a name reserved by JavaScript objects (`__proto__`). */
export interface InvalidReferenceProblem extends PlanProblemBase {
  readonly code: 'invalid_reference';
  readonly stepId: string;
  readonly reference: string;
  /** The offending path segment, when one is. */
  readonly segment?: string;
}

/** A `$ref` path names a field that the referenced tool's output schema does not have. */
export interface UnknownOutputFieldProblem extends PlanProblemBase {
  readonly code: 'unknown_output_field';
  readonly stepId: string;
  readonly reference: string;
  /** The tool whose output schema lacks the field. */
  readonly toolName: string;
  readonly field: string;
  /** The fields the schema declares at that point. */
  readonly available: readonly string[];
  readonly suggestion?: string;
}

/** A size limit was exceeded (steps, argument bytes, nesting depth, `$ref` path length). */
export interface LimitExceededProblem extends PlanProblemBase {
  readonly code: 'limit_exceeded';
  /** `maxSteps`, `maxArgumentsBytes`, `maxPlanBytes`, `maxDepth` or `maxReferencePathSegments`. */
  readonly limit: string;
  readonly maximum: number;
  /** The size found, or a lower bound of it when counting stopped at the limit. */
  readonly actual: number;
}

/** One thing wrong with a plan. Validation reports every problem it finds, not just the first. */
export type PlanProblem =
  | MalformedPlanProblem
  | InvalidArgumentsJsonProblem
  | InvalidStepIdProblem
  | DuplicateStepIdProblem
  | UnknownToolProblem
  | NestedPlanProblem
  | UnknownStepProblem
  | SelfReferenceProblem
  | CycleProblem
  | InvalidReferenceProblem
  | UnknownOutputFieldProblem
  | LimitExceededProblem;

/** The `code` of every kind of plan problem. */
export type PlanProblemCode = PlanProblem['code'];
