import { runEventListenersProblem } from '@org/core';
import { type ExecuteActionOptions, executeAction, type ToolRegistry } from '@org/tools';
import { NEVER_ABORTED } from './never-aborted-signal.js';
import { PlanOptionsError } from './plan-options-error.js';
import type { StepRunner } from './step-runner.js';

/** Options of {@link createInProcessStepRunner}: passed to `executeAction` for every step. */
export type InProcessStepRunnerOptions = Omit<ExecuteActionOptions, 'signal' | 'timeoutMs'>;

/**
 * The default runner: each step runs in this process through `executeAction` of `@org/tools` (the tool's own
 * timeout, hooks, output budget and injected context apply; failures come back as observations).
 *
 * @example
 * const runner = createInProcessStepRunner(tools, { injected: { userId: 'u-42' } });
 * await executePlan(plan, { tools, runner });
 */
export function createInProcessStepRunner(
  tools: ToolRegistry,
  options: InProcessStepRunnerOptions = {},
): StepRunner {
  // Checked here, as `executePlan` checks its own, rather than failing every step with the tools' error.
  const listenersProblem = runEventListenersProblem(options.onEvent);
  if (listenersProblem !== undefined)
    throw new PlanOptionsError({ option: 'onEvent', value: options.onEvent, problem: listenersProblem });
  // A signal that can never abort is not passed on: subscribing each call to it would cost time for nothing.
  return {
    run: ({ action, signal }) =>
      executeAction(tools, action, signal === NEVER_ABORTED ? options : { ...options, signal }),
  };
}
