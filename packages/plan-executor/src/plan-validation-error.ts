import { brandError, OrgError } from '@org/core';
import type { PlanProblem } from './plan-problem.js';

const MAX_LISTED_PROBLEMS = 50;

/**
 * A plan that cannot run. Nothing was executed. `problems` lists every problem found, each typed by its `code`;
 * the message lists them too, so a model shown only the message can fix them all in one answer.
 *
 * @example
 * const parsed = parsePlan(text, { tools });
 * if (!parsed.ok) {
 *   for (const problem of parsed.error.problems) {
 *     if (problem.code === 'unknown_tool') console.log(problem.toolName, problem.suggestion);
 *   }
 * }
 */
export class PlanValidationError extends OrgError {
  readonly problems: readonly PlanProblem[];

  constructor(problems: readonly PlanProblem[]) {
    const listed = problems.slice(0, MAX_LISTED_PROBLEMS).map((problem) => `- ${problem.message}`);
    if (problems.length > MAX_LISTED_PROBLEMS) {
      listed.push(`- ... and ${problems.length - MAX_LISTED_PROBLEMS} more problems`);
    }
    super('invalid_plan', {
      message:
        `The plan is invalid (${problems.length} problem${problems.length === 1 ? '' : 's'}); no step was run.\n` +
        listed.join('\n'),
    });
    this.problems = problems;
  }
}
brandError(PlanValidationError, 'PlanValidationError');
