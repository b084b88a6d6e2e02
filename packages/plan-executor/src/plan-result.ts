import type { ObservationError, ObservationStatus } from '@org/core';
import type { StepObservation } from './step-runner.js';

/** A `$ref` whose field or index did not exist when the step ran; `null` was inserted in its place. */
export interface MissingReference {
  /** The reference as written, e.g. `$ref:search.items.3.id`. */
  readonly reference: string;
  /** Where in the step's arguments it was, e.g. `query` or `filters[0].value`. */
  readonly argumentPath: string;
  /**
   * Why the value could not be read, when the field may exist but the output holding it could not be read exactly
   * (a key repeated with another value, an integer a double cannot hold, an output over `maxReferencedOutputBytes`).
   */
  readonly reason?: string;
}

/** How one step ended. Exactly one per step, whatever happened to the plan. */
export interface PlanStepResult {
  readonly id: string;
  /** The tool as the step names it: the name the model was shown (`orders_get`), or the registered one. */
  readonly tool: string;
  /**
   * `success`; `error` (the tool failed, or its arguments were invalid once references were filled);
   * `timeout`; `skipped` (a dependency did not succeed); `aborted` (the plan was aborted before or while it ran);
   * or `blocked` when a runner's hook refused it. A step ended by the plan's own deadline is `timeout` with the
   * error code `plan_timeout`.
   */
  readonly status: ObservationStatus;
  /** The tool's output (the raw value when the runner kept it), for `success`. */
  readonly output?: unknown;
  /** Present for every status but `success`. */
  readonly error?: ObservationError;
  /** The observation the runner returned, when the step ran to an answer. */
  readonly observation?: StepObservation;
  /** The arguments the tool received: references filled in, then validated and coerced. */
  readonly arguments?: Readonly<Record<string, unknown>>;
  /** The safe repairs applied when reading the step's `arguments` string (a code fence, trailing commas, ...). */
  readonly argumentRepairs?: readonly string[];
  /** References that pointed at nothing and were filled with `null`. */
  readonly missingReferences?: readonly MissingReference[];
  /** For `skipped`: the failed step that caused it (the first failed dependency, traced to its root). */
  readonly skippedBecauseOf?: string;
  /** Clock time the step was dispatched; absent when it never started. */
  readonly startedAt?: number;
  /** Clock time the step reached its final state. */
  readonly finishedAt: number;
  /** `finishedAt - startedAt`, or 0 when it never started. */
  readonly durationMs: number;
}

/**
 * `success`: every step succeeded. `partial`: some did. `failed`: none did. `aborted`: the plan was aborted
 * (the results that finished before the abort are kept).
 */
export type PlanStatus = 'success' | 'partial' | 'failed' | 'aborted';

/** The outcome of a plan: one result per step, in plan order. */
export interface PlanResult {
  readonly status: PlanStatus;
  /** Whether the caller's signal aborted the plan. */
  readonly aborted: boolean;
  /** The abort reason's message, when aborted. */
  readonly abortReason?: string;
  /**
   * Whether the plan's own deadline (`timeoutMs`) passed: steps still running or not started then ended as `timeout`
   * (code `plan_timeout`); every step that finished before keeps its result.
   */
  readonly timedOut?: boolean;
  /** The plan's deadline, when it passed. */
  readonly timeoutMs?: number;
  readonly steps: readonly PlanStepResult[];
  /** The steps the model asked to see (`output_steps`, or all). */
  readonly outputStepIds: readonly string[];
  /** How many steps ended in each state. */
  readonly counts: Readonly<Record<ObservationStatus, number>>;
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly durationMs: number;
}
