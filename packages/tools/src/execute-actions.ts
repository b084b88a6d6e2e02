import type { Action } from '@org/core';
import { InvalidToolOptionError } from './errors.js';
import { type ExecuteActionOptions, executeAction, type ToolObservation } from './execute-action.js';
import { timeoutProblem } from './timeout.js';
import type { ToolRegistry } from './tool-registry.js';

/** Options of `executeActions`: those of `executeAction`, plus the parallelism limit. */
export interface ExecuteActionsOptions extends ExecuteActionOptions {
  /** How many actions run at once; default 8. */
  readonly maxConcurrency?: number;
}

/**
 * Runs several actions with at most `maxConcurrency` at once and returns their observations in input order.
 * Like `executeAction`, it never throws for a tool's failure; an invalid `timeoutMs` rejects before any action runs.
 *
 * @example
 * const observations = await executeActions(registry, actions, { maxConcurrency: 4, signal });
 */
export async function executeActions(
  registry: ToolRegistry,
  actions: readonly Action[],
  options: ExecuteActionsOptions = {},
): Promise<ToolObservation[]> {
  if (options.timeoutMs !== undefined) {
    const problem = timeoutProblem(options.timeoutMs);
    if (problem !== undefined) throw new InvalidToolOptionError({ option: 'timeoutMs', reason: problem });
  }
  const limit = options.maxConcurrency ?? 8;
  const concurrency = Number.isFinite(limit) && limit >= 1 ? Math.floor(limit) : 1;
  const results = new Array<ToolObservation>(actions.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < actions.length) {
      const index = next++;
      results[index] = await executeAction(registry, actions[index] as Action, options);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, actions.length) }, worker));
  return results;
}
