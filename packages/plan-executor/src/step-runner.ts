import type { Action, Observation } from '@org/core';

/** What a runner receives for one step: a validated action (references resolved, arguments coerced). */
export interface StepRunRequest {
  /** The plan step this action comes from. */
  readonly stepId: string;
  /** `id`, `toolName` and the final `args`: plain JSON when the plan's inputs were, ready to serialise. */
  readonly action: Action;
  /** Aborts when the plan is aborted or the step times out; a runner should stop its work then. */
  readonly signal: AbortSignal;
}

/**
 * What a runner returns: an `Observation`, optionally with the tool's raw output. `$ref`s to this step read
 * `rawOutput` when present, otherwise `output`. A runner reports failures as observations; a rejected promise
 * is recorded as an error observation too.
 */
export type StepObservation = Observation & { readonly rawOutput?: unknown };

/**
 * The seam through which every step runs. The default runs tools in process (`createInProcessStepRunner`); a
 * runner that sends steps to a queue on other machines needs only this: serialise `action`, await the
 * worker's `Observation`, and stop waiting when `signal` aborts. Scheduling, references, validation, timeouts
 * and events stay with the executor.
 *
 * @example
 * const queueRunner: StepRunner = {
 *   async run({ action, signal }) {
 *     const job = await queue.enqueue(JSON.stringify(action));
 *     return await job.result({ signal }); // an Observation produced by the worker
 *   },
 * };
 */
export interface StepRunner {
  /**
   * Runs one ready step and resolves with its observation; report a failure as an observation (a rejection is
   * recorded as one too).
   */
  run(request: StepRunRequest): Promise<StepObservation>;
}
