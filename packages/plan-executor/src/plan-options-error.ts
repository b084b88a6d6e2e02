import { brandError, OrgError } from '@org/core';

/**
 * An option of `executePlan` / `createToolPlanTool` has a value it cannot take (`maxConcurrency: 0`, ...).
 *
 * @example
 * try {
 *   await executePlan(plan, { tools, maxConcurrency: 0 });
 * } catch (error) {
 *   if (PlanOptionsError.isInstance(error)) console.error(error.option); // 'maxConcurrency'
 * }
 */
export class PlanOptionsError extends OrgError {
  /** The option concerned, e.g. `maxConcurrency`. */
  readonly option: string;
  readonly value: unknown;

  constructor(options: { option: string; value: unknown; expected: string }) {
    super('invalid_plan_options', {
      message: `Option '${options.option}' must be ${options.expected}; got ${String(options.value)}.`,
    });
    this.option = options.option;
    this.value = options.value;
  }
}
brandError(PlanOptionsError, 'PlanOptionsError');
