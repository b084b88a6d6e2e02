import {
  type Action,
  type RunEventListener,
  type RunEventListeners,
  runEventListenersProblem,
  timerDelayProblem,
  toRunEventListener,
} from '@org/core';
import type { ToolRegistry } from '@org/tools';
import { type Clock, systemClock } from './clock.js';
import { createInProcessStepRunner } from './in-process-step-runner.js';
import { type PlanLimits, resolvePlanLimits } from './plan-limits.js';
import { PlanOptionsError } from './plan-options-error.js';
import type { PlanResult } from './plan-result.js';
import { PlanRun } from './plan-run.js';
import type { StepRunner } from './step-runner.js';
import { graphOf, validatePlan } from './validate-plan.js';

/** Options of {@link executePlan}. */
export interface ExecutePlanOptions {
  /** The tools steps call; arguments are validated and coerced against their schemas. */
  readonly tools: ToolRegistry;
  /** How many steps may run at once. A positive integer or `Infinity`. Default 8. */
  readonly maxConcurrency?: number;
  /** Aborts the plan: no new step starts, running steps are signalled, every step still gets one final state. */
  readonly signal?: AbortSignal;
  /**
   * Deadline of each step, measured on `clock`: a number of ms above 0 and at most `MAX_TIMER_DELAY_MS` of
   * `@org/core` (a timer cannot wait longer: Node would fire it after 1 ms), or `Infinity` for none. Default: none (a
   * tool's own `timeoutMs` still applies). Anything else (`NaN`, 0, negative, 2^31) is a `PlanOptionsError`.
   */
  readonly stepTimeoutMs?: number;
  /**
   * Deadline of the whole plan in ms, measured on `clock` from the call. When it passes, running steps are signalled
   * and end as `timeout` (code `plan_timeout`), steps not started yet end as `timeout` too (or `skipped` when a
   * dependency had failed), and the plan resolves with every finished step's result: what took effect is never
   * lost. `execute_tool_plan` sets it from its call's deadline. Same range as `stepTimeoutMs` (`Infinity`: none).
   * Default: none.
   */
  readonly timeoutMs?: number;
  /**
   * Receives `plan-step-started` and `plan-step-finished` events (and the steps' tool events): one listener or
   * several, called in order. A throwing listener is ignored. Anything else is a `PlanOptionsError`.
   */
  readonly onEvent?: RunEventListeners;
  /** Runs each step. Default: in process, through `executeAction` of `@org/tools`. */
  readonly runner?: StepRunner;
  /** Time source for timings, timeouts and event timestamps. Default: real time. */
  readonly clock?: Clock;
  /**
   * Size limits, for validation and for what runs (filled-in arguments, outputs read for references). Each a whole
   * number of at least 1; `NaN` or a negative number is a `PlanOptionsError`, never "no limit".
   */
  readonly limits?: Partial<PlanLimits>;
  /** Prefix of each step's action id (the id is `prefix + stepId`), e.g. the plan tool call's id and a `/`. */
  readonly actionIdPrefix?: string;
  /**
   * Names the plan in its `plan-step-*` events (`planId`), so the steps of two plans running at once can be told
   * apart. `execute_tool_plan` uses its call's id.
   */
  readonly planId?: string;
  /**
   * Decides a step whose tool needs approval (`needsApproval`). A plan cannot pause for a human mid-run, so without
   * this option such a step is `blocked` (code `approval_required`) and the model is told to call the tool
   * directly, where the agent loop asks for approval. Return `true` to run the step.
   */
  readonly approveStep?: (action: Action) => boolean | Promise<boolean>;
}

const DEFAULT_MAX_CONCURRENCY = 8;
/** The options a run uses, checked. */
export interface CheckedOptions {
  readonly maxConcurrency: number;
  /** `undefined` for none (unset or `Infinity`). */
  readonly stepTimeoutMs: number | undefined;
  readonly timeoutMs: number | undefined;
  readonly limits: PlanLimits;
  /** `onEvent` as one listener; `undefined` for none. */
  readonly onEvent: RunEventListener | undefined;
}

/**
 * Checks the options with the shared rules of `@org/core`: timeouts by `timerDelayProblem` (the rule `@org/tools`
 * applies to its own), limits by `limitValueProblem` (through `resolvePlanLimits`). Throws `PlanOptionsError`.
 */
export function checkPlanOptions(options: Omit<ExecutePlanOptions, 'tools'>): CheckedOptions {
  const maxConcurrency = options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
  if (
    !(
      maxConcurrency === Number.POSITIVE_INFINITY ||
      (Number.isInteger(maxConcurrency) && maxConcurrency >= 1)
    )
  ) {
    throw new PlanOptionsError({
      option: 'maxConcurrency',
      value: maxConcurrency,
      expected: 'a positive integer or Infinity',
    });
  }
  const listenersProblem = runEventListenersProblem(options.onEvent);
  if (listenersProblem !== undefined)
    throw new PlanOptionsError({ option: 'onEvent', value: options.onEvent, problem: listenersProblem });
  const timeouts: { stepTimeoutMs?: number; timeoutMs?: number } = {};
  for (const option of ['stepTimeoutMs', 'timeoutMs'] as const) {
    const timeout = options[option];
    if (timeout === undefined) continue;
    const problem = timerDelayProblem(timeout, { infinity: true });
    if (problem !== undefined) throw new PlanOptionsError({ option, value: timeout, problem });
    if (timeout !== Number.POSITIVE_INFINITY) timeouts[option] = timeout;
  }
  return {
    maxConcurrency,
    stepTimeoutMs: timeouts.stepTimeoutMs,
    timeoutMs: timeouts.timeoutMs,
    limits: resolvePlanLimits(options.limits),
    onEvent: toRunEventListener(options.onEvent),
  };
}

/**
 * Validates and runs a plan. Each step is dispatched the moment its last dependency finishes (never held for a
 * "wave"), up to `maxConcurrency` at once; its `$ref`s are filled from the outputs it depends on, then its
 * arguments are validated and coerced against the tool's schema. A step that fails does not stop the plan:
 * its dependents, transitively, are `skipped` ("Skipped because dependency 's1' failed") and independent steps
 * go on. Resolves once every step has a final state; rejects only with a `PlanValidationError` (nothing ran)
 * or a `PlanOptionsError`.
 *
 * @example
 * const result = await executePlan(
 *   {
 *     steps: [
 *       { id: 'w', tool: 'get_weather', arguments: { city: 'Paris' } },
 *       { id: 'm', tool: 'send_message', arguments: { text: 'Paris: $ref:w.temperature C' } },
 *     ],
 *   },
 *   { tools, maxConcurrency: 4, stepTimeoutMs: 10_000 },
 * );
 * console.log(result.status, formatPlanResult(result));
 */
export function executePlan(plan: unknown, options: ExecutePlanOptions): Promise<PlanResult> {
  return startPlan(plan, options, undefined);
}

/**
 * `executePlan`, with the plan's deadline given as a time on its clock (`execute_tool_plan` derives it from its call's
 * deadline) instead of counted from now; `timeoutMs` is then only what results report. Undefined: from `timeoutMs`.
 */
export function startPlan(
  plan: unknown,
  options: ExecutePlanOptions,
  deadlineAt: number | undefined,
): Promise<PlanResult> {
  // Not an async function: one promise per plan (the run's own), and invalid input still rejects, never throws.
  let run: PlanRun;
  try {
    const clock = options.clock ?? systemClock;
    const checked = checkPlanOptions(options);
    // The deadline counts from the call, so validation time is inside it.
    const deadline =
      deadlineAt ?? (checked.timeoutMs === undefined ? undefined : clock.now() + checked.timeoutMs);
    // A plan validatePlan already accepted for these tools is run as it is (validatePlan would answer the same at
    // once, after checking the limits a second time: a cost paid on every call of a plan run many times).
    let graph = graphOf(plan);
    if (graph === undefined || graph.tools !== options.tools) {
      const validated = validatePlan(plan, { tools: options.tools, limits: checked.limits });
      if (!validated.ok) return Promise.reject(validated.error);
      graph = graphOf(validated.plan)!;
    }
    run = PlanRun.forPlan(graph, {
      runner: options.runner ?? createInProcessStepRunner(options.tools),
      clock,
      maxConcurrency: checked.maxConcurrency,
      stepTimeoutMs: checked.stepTimeoutMs,
      onEvent: checked.onEvent,
      actionIdPrefix: options.actionIdPrefix ?? '',
      signal: options.signal,
      approveStep: options.approveStep,
      planId: options.planId,
      deadline,
      timeoutMs: checked.timeoutMs,
      limits: checked.limits,
    });
  } catch (error) {
    return Promise.reject(error);
  }
  run.start();
  return run.done;
}
