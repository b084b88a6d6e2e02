import { setMaxListeners } from 'node:events';
import {
  AbortedError,
  type Action,
  errorMessageOf,
  type ObservationError,
  type ObservationStatus,
  type RunEventListener,
  timerDelayProblem,
} from '@org/core';
import { type Tool, type ToolRegistry, toolNeedsApproval } from '@org/tools';
import { fillArguments, pathToText, type TemplateSite } from './argument-template.js';
import { type Clock, systemClock } from './clock.js';
import { createInProcessStepRunner } from './in-process-step-runner.js';
import { measureJsonValue } from './json-limits.js';
import { NEVER_ABORTED } from './never-aborted-signal.js';
import { type PlanLimits, resolvePlanLimits } from './plan-limits.js';
import { PlanOptionsError } from './plan-options-error.js';
import type { MissingReference, PlanResult, PlanStatus, PlanStepResult } from './plan-result.js';
import {
  MISSING,
  parseJsonContainer,
  readPath,
  toInterpolatedText,
  UnreadableOutput,
} from './read-reference.js';
import type { Reference } from './reference.js';
import { checkStepArguments, type StepArgumentsCheck } from './step-arguments.js';
import type { StepObservation, StepRunner } from './step-runner.js';
import { graphOf, type PlanGraph, validatePlan } from './validate-plan.js';

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
  /** Receives `plan-step-started` and `plan-step-finished` events. A throwing listener is ignored. */
  readonly onEvent?: RunEventListener;
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
const PENDING = 0;
const RUNNING = 1;
const DONE = 2;
const NOT_PARSED: unique symbol = Symbol('not-parsed');

type Mutable<T> = { -readonly [Key in keyof T]: T[Key] };

const FAILURE_STATUSES: ReadonlySet<string> = new Set(['error', 'skipped', 'blocked', 'timeout', 'aborted']);

function approvalRequired(stepId: string, toolName: string, cause?: unknown): ObservationError {
  return {
    code: 'approval_required',
    message:
      cause === undefined
        ? `Step '${stepId}' was not run: tool '${toolName}' needs approval, which a plan cannot ask for. Call '${toolName}' directly instead.`
        : `Step '${stepId}' was not run: deciding whether tool '${toolName}' needs approval failed (${errorMessageOf(cause)}).`,
    details: { stepId, toolName },
  };
}

const emptyCounts = (): Record<ObservationStatus, number> => ({
  success: 0,
  error: 0,
  skipped: 0,
  blocked: 0,
  timeout: 0,
  aborted: 0,
});

/** The options a run uses, checked. */
interface CheckedOptions {
  readonly maxConcurrency: number;
  /** `undefined` for none (unset or `Infinity`). */
  readonly stepTimeoutMs: number | undefined;
  readonly timeoutMs: number | undefined;
  readonly limits: PlanLimits;
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
  };
}

/** A step's arguments would grow past `maxArgumentsBytes` as its references are filled in. */
class ArgumentsTooLarge {
  constructor(readonly actual: number) {}
}

/** One execution of a validated plan. Typed arrays and precomputed edges keep the per-step path allocation-light. */
class PlanRun {
  private readonly count: number;
  private readonly state: Uint8Array;
  private readonly remaining: Int32Array;
  /** Smallest index of a dependency that did not succeed (`count` while none). */
  private readonly firstFailed: Int32Array;
  /** For a failed step itself, for a skipped step the failed step it traces back to. */
  private readonly rootCause: Int32Array;
  private readonly startedAt: Float64Array;
  private readonly results: PlanStepResult[];
  private readonly values: unknown[];
  private readonly parsedValues: unknown[];
  private readonly queue: Int32Array;
  private queueHead = 0;
  private queueTail = 0;
  private readonly skipStack: Int32Array;
  private skipTop = 0;
  private running = 0;
  private finished = 0;
  private pumping = false;
  private aborted = false;
  /** Why the plan stopped early: the caller's abort, or its own deadline. Once set, no step starts. */
  private stopReason: 'aborted' | 'timeout' | undefined;
  private ended = false;
  /** Cancels the plan's deadline timer once the plan has ended. */
  private deadlineTimer: AbortController | undefined;
  private abortReason: string | undefined;
  private timedOut = false;
  /** The plan's own controller, linked to the caller's signal by one listener; absent when there is no signal. */
  private readonly planController: AbortController | undefined;
  /** What runners listen to: the plan's own signal (the caller's is never modified), or one that never aborts. */
  private readonly planSignal: AbortSignal;
  private readonly stepControllers: (AbortController | undefined)[] | undefined;
  private readonly runStartedAt: number;
  private resolveRun!: (result: PlanResult) => void;
  readonly done: Promise<PlanResult>;
  private readonly missing: (MissingReference[] | undefined)[];
  private currentMissing: MissingReference[] | undefined;
  private readonly resolveSite = (site: TemplateSite): unknown => this.valueForSite(site);
  /** Bytes the step being filled may still take (`maxArgumentsBytes` less what is written and filled so far). */
  private fillRemaining = 0;
  /** Output strings read as JSON, each read once however many references go through it. */
  private readonly readTexts = new Map<string, unknown>();
  private readonly readText = (text: string): unknown => {
    let read = this.readTexts.get(text);
    if (read === undefined && !this.readTexts.has(text)) {
      read = parseJsonContainer(text, this.limits.maxReferencedOutputBytes);
      this.readTexts.set(text, read);
    }
    return read;
  };

  constructor(
    private readonly graph: PlanGraph,
    private readonly runner: StepRunner,
    private readonly clock: Clock,
    private readonly maxConcurrency: number,
    private readonly stepTimeoutMs: number | undefined,
    private readonly onEvent: RunEventListener | undefined,
    private readonly actionIdPrefix: string,
    private readonly externalSignal: AbortSignal | undefined,
    private readonly approveStep: ExecutePlanOptions['approveStep'],
    private readonly planId: string | undefined,
    /** The whole plan's deadline on `clock`, as an absolute time; undefined for none. */
    private readonly deadline: number | undefined,
    private readonly timeoutMs: number | undefined,
    private readonly limits: PlanLimits,
  ) {
    const count = graph.steps.length;
    this.count = count;
    this.state = new Uint8Array(count);
    this.remaining = new Int32Array(count);
    this.firstFailed = new Int32Array(count).fill(count);
    this.rootCause = new Int32Array(count).fill(-1);
    this.startedAt = new Float64Array(count);
    this.results = new Array(count);
    this.values = new Array(count);
    this.parsedValues = new Array(count).fill(NOT_PARSED);
    this.missing = new Array(count);
    this.queue = new Int32Array(count);
    this.skipStack = new Int32Array(count);
    this.stepControllers = stepTimeoutMs === undefined ? undefined : new Array(count);
    this.planController =
      externalSignal === undefined && deadline === undefined ? undefined : new AbortController();
    this.planSignal = this.planController?.signal ?? NEVER_ABORTED;
    this.done = new Promise<PlanResult>((resolve) => {
      this.resolveRun = resolve;
    });
    this.runStartedAt = clock.now();
    const { dependencyStart } = graph;
    for (let step = 0; step < count; step++) {
      const needed = dependencyStart[step + 1]! - dependencyStart[step]!;
      this.remaining[step] = needed;
      if (needed === 0) this.queue[this.queueTail++] = step;
    }
  }

  start(): void {
    // Every running step listens to the plan's own signal (through its runner): many listeners by design, not a leak.
    if (this.planController !== undefined) setMaxListeners(0, this.planController.signal);
    const signal = this.externalSignal;
    if (signal !== undefined) {
      if (signal.aborted) {
        this.abort();
        return;
      }
      signal.addEventListener('abort', this.onAbort, { once: true });
    }
    if (this.deadline !== undefined) {
      const timer = new AbortController();
      this.deadlineTimer = timer;
      const onDeadline = (): void => {
        if (!timer.signal.aborted) this.stop('timeout');
      };
      this.clock
        .sleep(Math.max(0, this.deadline - this.clock.now()), timer.signal)
        .then(onDeadline, onDeadline);
    }
    this.pump();
  }

  private readonly onAbort = (): void => this.abort();

  private abort(): void {
    this.stop('aborted');
  }

  private emit(event: Parameters<RunEventListener>[0]): void {
    try {
      this.onEvent!(event);
    } catch {
      // A listener must not break the plan; RunEventListener's contract says listeners are isolated.
    }
  }

  /** Dispatches ready steps while there is room. Re-entrant calls return at once; the outer loop continues. */
  private pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    while (
      this.queueHead < this.queueTail &&
      this.running < this.maxConcurrency &&
      this.stopReason === undefined
    ) {
      this.dispatch(this.queue[this.queueHead++]!);
    }
    this.pumping = false;
    if (this.finished === this.count) this.finish();
  }

  /**
   * The value of one reference site, charged to the step's byte budget before anything is built: a whole reference
   * costs the JSON size of the value it inserts (measured by a walk that stops at the budget), a reference inside
   * text the length of the text it adds. Throws `ArgumentsTooLarge` once the budget is spent.
   */
  private valueForSite(site: TemplateSite): unknown {
    const template = site.template;
    if (template.kind === 'whole') {
      const value = this.lookup(template.reference, site);
      if (value === MISSING) return null;
      this.charge(value);
      return value;
    }
    const pieces: string[] = [];
    for (const part of template.parts) {
      if (typeof part === 'string') {
        this.spend(part.length);
        pieces.push(part);
        continue;
      }
      const value = this.lookup(part, site);
      // Strings and scalars cost their length; an object is measured before `JSON.stringify` builds its text.
      const isObject = value !== null && typeof value === 'object';
      if (isObject) this.charge(value);
      const text = toInterpolatedText(value);
      if (!isObject) this.spend(text.length);
      pieces.push(text);
    }
    return pieces.join('');
  }

  private spend(bytes: number): void {
    this.fillRemaining -= bytes;
    if (this.fillRemaining < 0)
      throw new ArgumentsTooLarge(this.limits.maxArgumentsBytes - this.fillRemaining);
  }

  private charge(value: unknown): void {
    if (typeof value === 'string') {
      this.spend(value.length + 2);
      return;
    }
    const budget = Math.max(0, this.fillRemaining);
    const measured = measureJsonValue(value, budget, this.limits.maxDepth);
    if (measured.violation?.limit === 'bytes') {
      throw new ArgumentsTooLarge(this.limits.maxArgumentsBytes - budget + measured.bytes);
    }
    this.spend(measured.bytes);
  }

  private lookup(reference: Reference, site: TemplateSite): unknown {
    const index = reference.stepIndex;
    let value: unknown;
    if (reference.path.length === 0) value = this.values[index];
    else {
      let root = this.parsedValues[index];
      if (root === NOT_PARSED) {
        root = this.values[index];
        if (typeof root === 'string') root = this.readText(root);
        this.parsedValues[index] = root;
      }
      value = readPath(root, reference.path, this.readText);
    }
    if (value === MISSING || value === undefined || value instanceof UnreadableOutput) {
      this.currentMissing ??= [];
      this.currentMissing.push({
        reference: reference.text,
        argumentPath: pathToText(site.path),
        ...(value instanceof UnreadableOutput ? { reason: value.reason } : {}),
      });
      return MISSING;
    }
    return value;
  }

  private dispatch(step: number): void {
    const graph = this.graph;
    const planStep = graph.steps[step]!;
    this.state[step] = RUNNING;
    this.running++;
    const startedAt = this.clock.now();
    this.startedAt[step] = startedAt;
    if (this.onEvent !== undefined) {
      this.emit({
        type: 'plan-step-started',
        timestamp: startedAt,
        ...(this.planId === undefined ? {} : { planId: this.planId }),
        stepId: planStep.id,
        toolName: this.graph.stepTools[step]!.name,
      });
      // The listener may have aborted the plan, which already ended this step.
      if (this.state[step] !== RUNNING) return;
    }
    const template = graph.templates[step];
    let args: Record<string, unknown> = planStep.arguments as Record<string, unknown>;
    let checked: StepArgumentsCheck;
    try {
      if (template !== undefined) {
        this.currentMissing = undefined;
        this.fillRemaining =
          this.limits.maxArgumentsBytes -
          measureJsonValue(planStep.arguments, this.limits.maxArgumentsBytes, Number.POSITIVE_INFINITY).bytes;
        args = fillArguments(planStep.arguments, template, this.resolveSite);
        if (this.currentMissing !== undefined) this.missing[step] = this.currentMissing;
        this.currentMissing = undefined;
      }
      checked = checkStepArguments(graph.stepTools[step]!, args);
    } catch (error) {
      this.currentMissing = undefined;
      if (error instanceof ArgumentsTooLarge) {
        const maximum = this.limits.maxArgumentsBytes;
        checked = {
          ok: false,
          error: {
            code: 'limit_exceeded',
            message:
              `The arguments of step '${planStep.id}' grow past ${maximum} bytes once their references are filled in ` +
              `(at least ${error.actual}); the limit 'maxArgumentsBytes' is ${maximum}. Refer to the part of an ` +
              `output the step needs ($ref:step.field), or split the work.`,
            details: { limit: 'maxArgumentsBytes', maximum, actual: error.actual },
          },
        };
      } else {
        // Only a caller-built plan can get here (an argument or output getter that throws); JSON never does.
        checked = {
          ok: false,
          error: {
            code: 'step_preparation_failed',
            message: `The arguments of step '${planStep.id}' could not be prepared: ${errorMessageOf(error)}`,
          },
        };
      }
    }
    if (!checked.ok) {
      this.settle(step, 'error', undefined, checked.error, undefined, args);
      return;
    }
    const action: Action = {
      id: this.actionIdPrefix + planStep.id,
      toolName: this.graph.stepTools[step]!.name,
      args: checked.value,
    };
    const tool = graph.stepTools[step]!;
    // Approval is checked here, not in a runner, so that no runner can skip it; the common case stays synchronous.
    if (tool.needsApproval !== false) {
      this.decideApproval(tool, action).then(
        (approved) => {
          if (this.state[step] !== RUNNING) return;
          if (approved) this.launch(step, action, checked.value);
          else
            this.settle(
              step,
              'blocked',
              undefined,
              approvalRequired(planStep.id, planStep.tool),
              undefined,
              args,
            );
        },
        (error: unknown) => {
          if (this.state[step] !== RUNNING) return;
          this.settle(
            step,
            'blocked',
            undefined,
            approvalRequired(planStep.id, planStep.tool, error),
            undefined,
            args,
          );
        },
      );
      return;
    }
    this.launch(step, action, checked.value);
  }

  /** True when the step may run: its tool needs no approval for these arguments, or `approveStep` approved it. */
  private async decideApproval(tool: Tool, action: Action): Promise<boolean> {
    if (!(await toolNeedsApproval(tool, action.args))) return true;
    return (await this.approveStep?.(action)) === true;
  }

  private launch(step: number, action: Action, args: Record<string, unknown>): void {
    const planStep = this.graph.steps[step]!;
    let signal = this.planSignal;
    let cancelTimer: AbortController | undefined;
    if (this.stepControllers !== undefined) {
      const stepController = new AbortController();
      this.stepControllers[step] = stepController;
      signal = stepController.signal;
      cancelTimer = new AbortController();
      const timeoutMs = this.stepTimeoutMs!;
      const timerSignal = cancelTimer.signal;
      this.clock.sleep(timeoutMs, timerSignal).then(
        () => this.onTimeout(step, timerSignal, timeoutMs),
        () => this.onTimeout(step, timerSignal, timeoutMs),
      );
    }
    let pending: Promise<StepObservation>;
    try {
      pending = this.runner.run({ stepId: planStep.id, action, signal });
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      (observation) => {
        cancelTimer?.abort();
        this.onObservation(step, observation, args);
      },
      (error: unknown) => {
        cancelTimer?.abort();
        this.onRunnerFailure(step, error, args);
      },
    );
  }

  private onTimeout(step: number, timerSignal: AbortSignal, timeoutMs: number): void {
    if (timerSignal.aborted || this.state[step] !== RUNNING) return;
    const planStep = this.graph.steps[step]!;
    this.stepControllers![step]?.abort(new AbortedError({ operation: `step '${planStep.id}' (timed out)` }));
    this.settle(step, 'timeout', undefined, {
      code: 'timeout',
      message: `Step '${planStep.id}' (tool '${planStep.tool}') timed out after ${timeoutMs} ms.`,
      details: { timeoutMs },
    });
  }

  private onObservation(step: number, observation: StepObservation, args: Record<string, unknown>): void {
    if (this.state[step] !== RUNNING) return; // finished by a timeout or an abort; a late result is discarded
    const status = observation?.status;
    if (status === 'success') {
      const value = 'rawOutput' in observation ? observation.rawOutput : observation.output;
      this.settle(step, 'success', value, undefined, observation, args);
      return;
    }
    if (status !== undefined && FAILURE_STATUSES.has(status)) {
      this.settle(
        step,
        status,
        undefined,
        observation.error ?? {
          code: status,
          message: `Step '${this.graph.steps[step]!.id}' ended with '${status}'.`,
        },
        observation,
        args,
      );
      return;
    }
    this.settle(step, 'error', undefined, {
      code: 'invalid_step_observation',
      message: `The step runner answered step '${this.graph.steps[step]!.id}' with something that is not an Observation.`,
    });
  }

  private onRunnerFailure(step: number, error: unknown, args: Record<string, unknown>): void {
    if (this.state[step] !== RUNNING) return;
    this.settle(
      step,
      'error',
      undefined,
      { code: 'step_runner_failed', message: `The step runner failed: ${errorMessageOf(error)}` },
      undefined,
      args,
    );
  }

  /** Records a final state for a step and releases its dependents. */
  private settle(
    step: number,
    status: ObservationStatus,
    output: unknown,
    error: ObservationError | undefined,
    observation?: StepObservation,
    args?: Record<string, unknown>,
  ): void {
    if (this.state[step] === DONE) return;
    const wasRunning = this.state[step] === RUNNING;
    if (wasRunning) this.running--;
    this.record(step, status, output, error, observation, args, wasRunning);
    this.releaseDependents(step, status);
    while (this.skipTop > 0) {
      const skipped = this.skipStack[--this.skipTop]!;
      // An event listener may have aborted the plan meanwhile, which already gave this step its final state.
      if (this.state[skipped] === DONE) continue;
      this.recordSkipped(skipped);
      this.releaseDependents(skipped, 'skipped');
    }
    this.pump();
  }

  private releaseDependents(step: number, status: ObservationStatus): void {
    const { dependentStart, dependentList } = this.graph;
    // A step ended by the plan's stop did not fail: its dependents end as not started, not as skipped.
    const failed = status !== 'success' && !(this.stopReason !== undefined && status === this.stopReason);
    for (let edge = dependentStart[step]!; edge < dependentStart[step + 1]!; edge++) {
      const dependent = dependentList[edge]!;
      if (failed && step < this.firstFailed[dependent]!) this.firstFailed[dependent] = step;
      if (
        --this.remaining[dependent]! === 0 &&
        this.state[dependent] === PENDING &&
        this.stopReason === undefined
      ) {
        if (this.firstFailed[dependent]! < this.count) this.skipStack[this.skipTop++] = dependent;
        else this.queue[this.queueTail++] = dependent;
      }
    }
  }

  private recordSkipped(step: number): void {
    const cause = this.rootCause[this.firstFailed[step]!]!;
    this.rootCause[step] = cause;
    const causeId = this.graph.steps[cause]!.id;
    this.record(
      step,
      'skipped',
      undefined,
      {
        code: 'dependency_failed',
        message: `Skipped because dependency '${causeId}' failed`,
        details: { dependency: causeId, dependencyStatus: this.results[cause]?.status ?? 'error' },
      },
      undefined,
      undefined,
      false,
    );
  }

  private record(
    step: number,
    status: ObservationStatus,
    output: unknown,
    error: ObservationError | undefined,
    observation: StepObservation | undefined,
    args: Record<string, unknown> | undefined,
    started: boolean,
  ): void {
    const planStep = this.graph.steps[step]!;
    this.state[step] = DONE;
    this.finished++;
    if (status !== 'success' && status !== 'skipped') this.rootCause[step] = step;
    this.values[step] = output;
    const finishedAt = this.clock.now();
    const durationMs = started ? finishedAt - this.startedAt[step]! : 0;
    // Built field by field (no conditional spreads): this runs once per step on the hot path.
    const result: Mutable<PlanStepResult> = {
      id: planStep.id,
      tool: planStep.tool,
      status,
      finishedAt,
      durationMs,
    };
    if (status === 'success') result.output = output;
    if (error !== undefined) result.error = error;
    if (observation !== undefined) result.observation = observation;
    if (args !== undefined) result.arguments = args;
    const missing = this.missing[step];
    if (missing !== undefined) result.missingReferences = missing;
    if (planStep.argumentRepairs !== undefined) result.argumentRepairs = planStep.argumentRepairs;
    if (status === 'skipped') result.skippedBecauseOf = this.graph.steps[this.rootCause[step]!]!.id;
    if (started) result.startedAt = this.startedAt[step]!;
    this.results[step] = result;
    if (this.onEvent !== undefined) {
      this.emit({
        type: 'plan-step-finished',
        timestamp: finishedAt,
        ...(this.planId === undefined ? {} : { planId: this.planId }),
        stepId: planStep.id,
        toolName: this.graph.stepTools[step]!.name,
        status,
        durationMs,
        ...(error === undefined ? {} : { error }),
      });
    }
  }

  /**
   * Ends the plan early: the caller aborted it, or its deadline passed. Running steps are signalled and end at once
   * (a runner that ignores its signal cannot hold the plan); steps not started end too, or as skipped when a
   * dependency had already failed. Every finished step keeps its result.
   */
  private stop(kind: 'aborted' | 'timeout'): void {
    if (this.stopReason !== undefined || this.finished === this.count) return;
    this.stopReason = kind;
    let stopError: AbortedError;
    let stopped: (planStep: { id: string; tool: string }) => ObservationError;
    let notStarted: (planStep: { id: string; tool: string }) => ObservationError;
    if (kind === 'aborted') {
      this.aborted = true;
      const reason = this.externalSignal?.reason;
      this.abortReason = reason === undefined ? 'The plan was aborted.' : errorMessageOf(reason);
      stopError = new AbortedError({ operation: 'The plan', cause: reason });
      this.planController?.abort(reason);
      stopped = (planStep) => ({
        code: 'aborted',
        message: `Step '${planStep.id}' was stopped: the plan was aborted.`,
      });
      notStarted = (planStep) => ({
        code: 'aborted',
        message: `Step '${planStep.id}' did not start: the plan was aborted.`,
      });
    } else {
      this.timedOut = true;
      stopError = new AbortedError({ operation: 'The plan (its time limit passed)' });
      this.planController?.abort(stopError);
      const timeoutMs = this.timeoutMs;
      stopped = (planStep) => ({
        code: 'plan_timeout',
        message: `Step '${planStep.id}' (tool '${planStep.tool}') was stopped: the plan's time limit of ${timeoutMs} ms passed while it ran. It may or may not have taken effect.`,
        details: { timeoutMs, started: true },
      });
      notStarted = (planStep) => ({
        code: 'plan_timeout',
        message: `Step '${planStep.id}' (tool '${planStep.tool}') did not start: the plan's time limit of ${timeoutMs} ms passed first.`,
        details: { timeoutMs, started: false },
      });
    }
    const { order } = this.graph;
    for (let position = 0; position < order.length; position++) {
      const step = order[position]!;
      const state = this.state[step];
      if (state === DONE) continue;
      const planStep = this.graph.steps[step]!;
      if (state === RUNNING) {
        this.stepControllers?.[step]?.abort(stopError);
        this.running--;
        this.record(step, kind, undefined, stopped(planStep), undefined, undefined, true);
        this.releaseDependents(step, kind);
      } else if (this.firstFailed[step]! < this.count) {
        this.recordSkipped(step);
        this.releaseDependents(step, 'skipped');
      } else {
        this.record(step, kind, undefined, notStarted(planStep), undefined, undefined, false);
        this.releaseDependents(step, kind);
      }
    }
    this.finish();
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.externalSignal?.removeEventListener('abort', this.onAbort);
    this.deadlineTimer?.abort();
    const finishedAt = this.clock.now();
    const counts = emptyCounts();
    for (const result of this.results) counts[result.status]++;
    const status: PlanStatus = this.aborted
      ? 'aborted'
      : counts.success === this.count
        ? 'success'
        : counts.success === 0
          ? 'failed'
          : 'partial';
    const outputStepIds = Array.from(this.graph.outputIndexes, (index) => this.graph.steps[index]!.id);
    this.resolveRun({
      status,
      aborted: this.aborted,
      ...(this.abortReason === undefined ? {} : { abortReason: this.abortReason }),
      ...(this.timedOut ? { timedOut: true, timeoutMs: this.timeoutMs! } : {}),
      steps: this.results,
      outputStepIds,
      counts,
      startedAt: this.runStartedAt,
      finishedAt,
      durationMs: finishedAt - this.runStartedAt,
    });
  }
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
  // Not an async function: one promise per plan (the run's own), and invalid input still rejects, never throws.
  let run: PlanRun;
  try {
    const clock = options.clock ?? systemClock;
    const checked = checkPlanOptions(options);
    // The deadline counts from the call, so validation time is inside it.
    const deadline = checked.timeoutMs === undefined ? undefined : clock.now() + checked.timeoutMs;
    const validated = validatePlan(plan, { tools: options.tools, limits: checked.limits });
    if (!validated.ok) return Promise.reject(validated.error);
    run = new PlanRun(
      graphOf(validated.plan)!,
      options.runner ?? createInProcessStepRunner(options.tools),
      clock,
      checked.maxConcurrency,
      checked.stepTimeoutMs,
      options.onEvent,
      options.actionIdPrefix ?? '',
      options.signal,
      options.approveStep,
      options.planId,
      deadline,
      checked.timeoutMs,
      checked.limits,
    );
  } catch (error) {
    return Promise.reject(error);
  }
  run.start();
  return run.done;
}
