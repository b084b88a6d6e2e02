import { brandError, describeOptionValue, OrgError } from '@org/core';

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

  /**
   * `expected` completes "must be ...", with the value appended; `problem` is a whole sentence from a shared rule of
   * `@org/core` (`timerDelayProblem`, `limitValueProblem`), which names the value itself.
   */
  constructor(
    options:
      | { option: string; value: unknown; expected: string }
      | { option: string; value: unknown; problem: string },
  ) {
    super('invalid_plan_options', {
      message:
        'problem' in options
          ? `Option '${options.option}' ${options.problem}.`
          : `Option '${options.option}' must be ${options.expected}; got ${describeOptionValue(options.value)}.`,
    });
    this.option = options.option;
    this.value = options.value;
  }
}
brandError(PlanOptionsError, 'PlanOptionsError');
