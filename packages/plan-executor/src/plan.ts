/** One step of a plan as a model writes it: `arguments` is a JSON string or an object. */
export interface PlanStepInput {
  readonly id: string;
  readonly tool: string;
  readonly arguments?: string | Readonly<Record<string, unknown>>;
}

/**
 * One step of the steps-object form, under its id: `{"<tool>": <arguments>}` (arguments an object or a JSON string),
 * or `{"tool", "arguments"}`.
 *
 * @example
 * const step: PlanObjectStepInput = { get_weather: { city: 'Paris' } };
 */
export type PlanObjectStepInput =
  | Readonly<Record<string, string | Readonly<Record<string, unknown>>>>
  | { readonly tool: string; readonly arguments?: string | Readonly<Record<string, unknown>> };

/**
 * A plan as a model writes it: `steps` an object of steps by id (the form `execute_tool_plan` teaches, where `$id` is
 * a reference too) or a list of `{id, tool, arguments}`. `output_steps` omitted: the steps no step uses (object form)
 * or every step (list form).
 */
export interface PlanInput {
  readonly steps: readonly PlanStepInput[] | Readonly<Record<string, PlanObjectStepInput>>;
  readonly output_steps?: readonly string[];
}

/** One step of a parsed plan: `arguments` is always an object. */
export interface PlanStep {
  readonly id: string;
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** The safe repairs the reader applied to an `arguments` string (a code fence, trailing commas, ...), if any. */
  readonly argumentRepairs?: readonly string[];
}

/** A parsed plan: the shape is checked, argument strings are parsed. Not yet checked against tools or for cycles. */
export interface Plan {
  readonly steps: readonly PlanStep[];
  readonly output_steps?: readonly string[];
}

/**
 * The name of the plan tool; a plan step may not call it.
 *
 * @example
 * if (toolCall.toolName === TOOL_PLAN_TOOL_NAME) console.log('the model sent a whole plan');
 */
export const TOOL_PLAN_TOOL_NAME = 'execute_tool_plan';
