import { brandError, OrgError } from '@org/core';
import type { PlanProblem } from './plan-problem.js';
import type { PlanStepResult } from './plan-result.js';

const MAX_LISTED_PROBLEMS = 50;

/** What ran of a plan found invalid only once it was complete (a plan run while the model wrote it). */
export interface PlanValidationErrorOptions {
  /** The steps that had started before the plan was complete: stopped, or finished with their results. */
  readonly startedSteps?: readonly PlanStepResult[];
  /** Those steps as the model reads a plan result (`formatPlanResult`), added to the message. */
  readonly startedSummary?: string;
}

/**
 * A plan that cannot run. `problems` lists every problem found, each typed by its `code`; the message lists them
 * too, so a model shown only the message can fix them all in one answer. Nothing was executed, except for a plan run
 * while it streamed: steps that started before the plan was complete are in `startedSteps` (each stopped, or with
 * the result it finished with), and the message says what they did, so the model does not repeat what took effect.
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
  /** Steps that started before the plan was found invalid (a streamed plan); empty otherwise. */
  readonly startedSteps: readonly PlanStepResult[];

  constructor(problems: readonly PlanProblem[], options: PlanValidationErrorOptions = {}) {
    const listed = problems.slice(0, MAX_LISTED_PROBLEMS).map((problem) => `- ${problem.message}`);
    if (problems.length > MAX_LISTED_PROBLEMS) {
      listed.push(`- ... and ${problems.length - MAX_LISTED_PROBLEMS} more problems`);
    }
    const started = options.startedSteps ?? [];
    const count = `${problems.length} problem${problems.length === 1 ? '' : 's'}`;
    const head =
      started.length === 0
        ? `The plan is invalid (${count}); no step was run.`
        : `The plan is invalid (${count}). ${started.length} step${started.length === 1 ? '' : 's'} had started ` +
          'while it was written (listed after the problems: what succeeded took effect, do not repeat it); no ' +
          'other step ran.';
    const tail =
      started.length === 0
        ? ''
        : `\nSteps that started: ${options.startedSummary ?? started.map((step) => `${step.id} (${step.status})`).join(', ')}`;
    super('invalid_plan', { message: `${head}\n${listed.join('\n')}${tail}` });
    this.problems = problems;
    this.startedSteps = started;
  }
}
brandError(PlanValidationError, 'PlanValidationError');
