import { setMaxListeners } from 'node:events';
import {
  AbortedError,
  type Action,
  type Clock,
  errorMessageOf,
  OBSERVATION_STATUSES,
  type ObservationError,
  type ObservationStatus,
  type RunEventListener,
} from '@org/core';
import { type Tool, unattendedApprovalRefusal } from '@org/tools';
import type { ArgumentTemplate } from './argument-template.js';
import { ArgumentsTooLarge, ReferenceFiller } from './fill-references.js';
import { NEVER_ABORTED } from './never-aborted-signal.js';
import type { PlanStep } from './plan.js';
import type { PlanLimits } from './plan-limits.js';
import type { MissingReference, PlanResult, PlanStatus, PlanStepResult } from './plan-result.js';
import { RunColumns } from './run-columns.js';
import { checkStepArguments, type StepArgumentsCheck } from './step-arguments.js';
import type { StepObservation, StepRunner } from './step-runner.js';
import type { PlanGraph } from './validate-plan.js';

/** What a run is given besides its steps: the checked options of `executePlan` and the plan tool. */
export interface PlanRunSetup {
  readonly runner: StepRunner;
  readonly clock: Clock;
  readonly maxConcurrency: number;
  readonly stepTimeoutMs: number | undefined;
  readonly onEvent: RunEventListener | undefined;
  readonly actionIdPrefix: string;
  readonly signal: AbortSignal | undefined;
  readonly approveStep: ((action: Action) => boolean | Promise<boolean>) | undefined;
  readonly planId: string | undefined;
  /** The whole plan's deadline on `clock`, as an absolute time; undefined for none. */
  readonly deadline: number | undefined;
  readonly timeoutMs: number | undefined;
  readonly limits: PlanLimits;
}

const PENDING = 0;
const RUNNING = 1;
const DONE = 2;

type Mutable<T> = { -readonly [Key in keyof T]: T[Key] };

const FAILURE_STATUSES: ReadonlySet<string> = new Set(['error', 'skipped', 'blocked', 'timeout', 'aborted']);

/**
 * Each step's final status is kept as a byte, an index into core's `OBSERVATION_STATUSES` (see {@link PlanRun}'s
 * columns); `statusIndex` is the hot path's way there, checked against that order when this module loads.
 */
const STATUSES = OBSERVATION_STATUSES;

function statusIndex(status: ObservationStatus): number {
  switch (status) {
    case 'success':
      return 0;
    case 'error':
      return 1;
    case 'skipped':
      return 2;
    case 'blocked':
      return 3;
    case 'timeout':
      return 4;
    default:
      return 5;
  }
}
for (const [index, status] of STATUSES.entries()) {
  if (statusIndex(status) !== index) throw new Error(`plan-run: status '${status}' is not at index ${index}`);
}

const emptyCounts = (): Record<ObservationStatus, number> => ({
  success: 0,
  error: 0,
  skipped: 0,
  blocked: 0,
  timeout: 0,
  aborted: 0,
});

/** The error of a step the plan's stop ended. */
type StepError = (planStep: { readonly id: string; readonly tool: string }) => ObservationError;

/** How a run ended early: the caller's abort, its own deadline, or (streaming) a plan found invalid once complete. */
type StopKind = 'aborted' | 'timeout' | 'invalid';

/** The whole plan, once a streamed run has read it: what {@link PlanRun.seal} needs, in the run's positions. */
export interface SealedSteps {
  /** Positions in the plan's order, for the results. */
  readonly planOrder: readonly number[];
  /** Positions in an order where each step comes after its dependencies. */
  readonly executionOrder: readonly number[];
  /** Positions of the steps whose results go back to the model. */
  readonly outputPositions: readonly number[];
  /** Each position's index in the plan, which decides which failed dependency a skip names. */
  readonly ranks: readonly number[];
}

/**
 * One execution of a plan. Typed arrays and precomputed edges keep the per-step path allocation-light. A step's
 * outcome is kept in columns (status, times, the observation and arguments it produced) and its `PlanStepResult` is
 * built once the plan ends: a result object per finished step, alive until the end of a long plan, survived every
 * young-generation collection of the run and was copied and promoted each time (at 10,000 no-op steps, 2.1-2.5 µs
 * per step with them kept, 1.3 without). A run is made
 * from a validated plan ({@link PlanRun.forPlan}), or empty while a plan streams ({@link PlanRun.forStream}): steps
 * are then added as they are read (`addStep`), those that must wait for the whole plan held, until `seal` gives the
 * whole plan (or `abandon` an invalid one). A step's index is its position in the run: its place in the plan for a
 * validated plan, the order it was read in for a streamed one.
 */
export class PlanRun {
  private count: number;
  private readonly state: Uint8Array;
  private readonly remaining: Int32Array;
  /** A dependency that did not succeed, the first in plan order (`-1` while none). */
  private readonly firstFailed: Int32Array;
  /** For a failed step itself, for a skipped step the failed step it traces back to. */
  private readonly rootCause: Int32Array;
  private readonly startedAt: Float64Array;
  // A finished step's outcome, by column; `resultOf` makes its `PlanStepResult` from them when the plan ends.
  private readonly finishedAt: Float64Array;
  /** The final status, as an index into `STATUSES`. */
  private readonly statusCode: Uint8Array;
  /** 1 when the step was dispatched (it has a `startedAt` and a duration). */
  private readonly wasStarted: Uint8Array;
  private readonly observations: (StepObservation | undefined)[];
  private readonly stepArguments: (Record<string, unknown> | undefined)[];
  /** Written only for steps that did not succeed, so left sparse. */
  private readonly errors: (ObservationError | undefined)[] = [];
  private readonly queue: Int32Array;
  private queueHead = 0;
  private queueTail = 0;
  private readonly skipStack: Int32Array;
  private skipTop = 0;
  private running = 0;
  /**
   * A clock reading that the next clock read may use instead, once (`NaN`: none). Set only by `settle`, for the
   * steps it dispatches, and cleared when it returns: see there.
   */
  private reading = Number.NaN;
  private finished = 0;
  private pumping = false;
  private aborted = false;
  /** The error of a step that did not start because the plan stopped (for a streamed step added after the stop). */
  private notStarted: StepError | undefined;
  /** Why the plan stopped early. Once set, no step starts. */
  private stopReason: StopKind | undefined;
  /** The status the steps the stop ended get: `aborted`, or `timeout` for the plan's deadline. */
  private stopStatus: ObservationStatus | undefined;
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
  /** Written only for steps with a reference to nothing, so left sparse. */
  private readonly missing: (MissingReference[] | undefined)[] = [];
  /** Fills each step's references from the outputs it uses. */
  private readonly filler: ReferenceFiller;

  // The steps, as the run knows them. A validated plan's arrays are used as they are; a streamed run's grow.
  private readonly steps: PlanStep[];
  private readonly stepTools: Tool[];
  private readonly templates: (ArgumentTemplate | undefined)[];
  /** Dependents in CSR form (a validated plan)... */
  private readonly dependentStart: Int32Array | undefined;
  private readonly dependentList: Int32Array | undefined;
  /** ...or per step (a streamed run). */
  private readonly dependents: number[][] | undefined;
  private order: ArrayLike<number>;
  private outputIndexes: ArrayLike<number>;
  /** The output steps' ids, when the plan was validated whole (copied per run: reading 10,000 steps' ids is not free). */
  private readonly outputStepIds: readonly string[] | undefined;
  /** Plan order of each position (a streamed run, where it differs from the order read); absent: the position. */
  private readonly rank: Float64Array | undefined;
  /** Positions in plan order, for the results (a streamed run). */
  private planOrder: readonly number[] | undefined;
  /** Steps that wait for the whole plan (a streamed run, before `seal`). */
  private readonly held: Uint8Array | undefined;
  /** Whether every step of the plan is known: always for a validated plan; for a streamed one after `seal`. */
  private sealed: boolean;
  private readonly runner: StepRunner;
  private readonly clock: Clock;
  private readonly maxConcurrency: number;
  private readonly stepTimeoutMs: number | undefined;
  private readonly onEvent: RunEventListener | undefined;
  private readonly actionIdPrefix: string;
  private readonly externalSignal: AbortSignal | undefined;
  private readonly approveStep: PlanRunSetup['approveStep'];
  private readonly planId: string | undefined;
  private readonly deadline: number | undefined;
  private readonly timeoutMs: number | undefined;
  private readonly limits: PlanLimits;

  /** A run of a validated plan. */
  static forPlan(graph: PlanGraph, setup: PlanRunSetup): PlanRun {
    return new PlanRun(graph, setup, graph.steps.length);
  }

  /** An empty run for a plan that is still streaming, with room for `capacity` steps (the plan's `maxSteps`). */
  static forStream(setup: PlanRunSetup, capacity: number): PlanRun {
    return new PlanRun(undefined, setup, capacity);
  }

  private constructor(graph: PlanGraph | undefined, setup: PlanRunSetup, capacity: number) {
    this.runner = setup.runner;
    this.clock = setup.clock;
    this.maxConcurrency = setup.maxConcurrency;
    this.stepTimeoutMs = setup.stepTimeoutMs;
    this.onEvent = setup.onEvent;
    this.actionIdPrefix = setup.actionIdPrefix;
    this.externalSignal = setup.signal;
    this.approveStep = setup.approveStep;
    this.planId = setup.planId;
    this.deadline = setup.deadline;
    this.timeoutMs = setup.timeoutMs;
    this.limits = setup.limits;
    const streamed = graph === undefined;
    this.count = graph?.steps.length ?? 0;
    const columns = new RunColumns(capacity, {
      float64: streamed ? 3 : 2,
      int32: 5,
      uint8: streamed ? 4 : 3,
    });
    this.startedAt = columns.float64();
    this.finishedAt = columns.float64();
    const rank = streamed ? columns.float64() : undefined;
    this.remaining = columns.int32();
    this.firstFailed = columns.int32().fill(-1);
    this.rootCause = columns.int32().fill(-1);
    this.queue = columns.int32();
    this.skipStack = columns.int32();
    this.state = columns.uint8();
    this.statusCode = columns.uint8();
    this.wasStarted = columns.uint8();
    const held = streamed ? columns.uint8() : undefined;
    this.observations = new Array(capacity);
    this.stepArguments = new Array(capacity);
    this.filler = new ReferenceFiller(setup.limits);
    this.stepControllers = setup.stepTimeoutMs === undefined ? undefined : new Array(capacity);
    // A streamed run can always be stopped (its plan may turn out invalid); a validated one only by a signal or a
    // deadline.
    this.planController =
      !streamed && setup.signal === undefined && setup.deadline === undefined
        ? undefined
        : new AbortController();
    this.planSignal = this.planController?.signal ?? NEVER_ABORTED;
    this.done = new Promise<PlanResult>((resolve) => {
      this.resolveRun = resolve;
    });
    this.runStartedAt = this.clock.now();
    if (graph === undefined) {
      this.steps = [];
      this.stepTools = [];
      this.templates = [];
      this.dependentStart = undefined;
      this.dependentList = undefined;
      this.dependents = [];
      this.order = [];
      this.outputIndexes = [];
      this.outputStepIds = undefined;
      this.rank = rank;
      this.held = held;
      this.sealed = false;
      return;
    }
    this.steps = graph.steps as PlanStep[];
    this.stepTools = graph.stepTools as Tool[];
    this.templates = graph.templates as (ArgumentTemplate | undefined)[];
    this.dependentStart = graph.dependentStart;
    this.dependentList = graph.dependentList;
    this.dependents = undefined;
    this.order = graph.order;
    this.outputIndexes = graph.outputIndexes;
    this.outputStepIds = graph.outputStepIds;
    this.rank = undefined;
    this.held = undefined;
    this.sealed = true;
    const { dependencyStart } = graph;
    for (let step = 0; step < this.count; step++) {
      const needed = dependencyStart[step + 1]! - dependencyStart[step]!;
      this.remaining[step] = needed;
      if (needed === 0) this.queue[this.queueTail++] = step;
    }
  }

  /** How many steps the run knows. */
  get stepCount(): number {
    return this.count;
  }

  /** The step at a position. */
  stepAt(position: number): PlanStep {
    return this.steps[position]!;
  }

  /** The tool the step at a position calls. */
  toolAt(position: number): Tool {
    return this.stepTools[position]!;
  }

  /** Whether the step at a position started (it may have finished since). */
  startedStep(position: number): boolean {
    const state = this.state[position];
    return state === RUNNING || (state === DONE && this.wasStarted[position] === 1);
  }

  /** Whether the run stopped early (an abort, its deadline, an invalid plan): no step starts any more. */
  get stopped(): boolean {
    return this.stopReason !== undefined;
  }

  /**
   * Adds a step read from the stream (a streamed run, before `seal`): `dependencies` are the distinct positions of
   * the steps it refers to, all added already; `rank` its place in plan order. A `held` step waits for `seal`; any
   * other starts as soon as its dependencies succeed. Returns its position.
   */
  addStep(
    step: PlanStep,
    tool: Tool,
    template: ArgumentTemplate | undefined,
    dependencies: readonly number[],
    rank: number,
    held: boolean,
  ): number {
    const position = this.count++;
    this.steps.push(step);
    this.stepTools.push(tool);
    this.templates.push(template);
    this.dependents!.push([]);
    this.rank![position] = rank;
    this.held![position] = held ? 1 : 0;
    let remaining = 0;
    for (const dependency of dependencies) {
      this.dependents![dependency]!.push(position);
      if (this.state[dependency] !== DONE) remaining++;
      else if (this.failedAsDependency(this.statusOf(dependency))) this.noteFailed(position, dependency);
    }
    this.remaining[position] = remaining;
    if (this.stopReason !== undefined) {
      // Stopped while the plan streamed: the step ends at once, as the stop ended the steps before it.
      if (this.firstFailed[position] !== -1) this.recordSkipped(position);
      else
        this.record(
          position,
          this.stopStatus!,
          undefined,
          this.notStarted!(step),
          undefined,
          undefined,
          false,
        );
      return position;
    }
    if (remaining === 0) {
      if (this.firstFailed[position] !== -1) {
        this.skipStack[this.skipTop++] = position;
        this.drainSkips();
      } else if (!held) this.queue[this.queueTail++] = position;
    }
    this.pump();
    return position;
  }

  /**
   * The whole plan is known and valid (a streamed run): every step was added, held ones are released, and the run
   * ends once all have a final state.
   */
  seal(steps: SealedSteps): void {
    if (this.sealed) return;
    this.sealed = true;
    for (let position = 0; position < this.count; position++) this.rank![position] = steps.ranks[position]!;
    this.order = steps.executionOrder;
    this.outputIndexes = steps.outputPositions;
    this.planOrder = steps.planOrder;
    if (this.stopReason === undefined) {
      for (let position = 0; position < this.count; position++) {
        if (this.held![position] === 0) continue;
        this.held![position] = 0;
        if (
          this.state[position] === PENDING &&
          this.remaining[position] === 0 &&
          this.firstFailed[position] === -1
        )
          this.queue[this.queueTail++] = position;
      }
    }
    this.pump();
    if (this.finished === this.count) this.finish();
  }

  /**
   * The whole plan turned out invalid (a streamed run): running steps are signalled and end `aborted`, steps not
   * started end too; what finished keeps its result. Resolves `done`.
   */
  abandon(): void {
    this.stop('invalid');
    this.sealed = true;
    this.finish();
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

  /** The time now: the reading a settle left for reuse (once), or the clock's. */
  private now(): number {
    const reading = this.reading;
    if (Number.isNaN(reading)) return this.clock.now();
    this.reading = Number.NaN;
    return reading;
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
    if (this.sealed && this.finished === this.count) this.finish();
  }

  private dispatch(step: number): void {
    const planStep = this.steps[step]!;
    this.state[step] = RUNNING;
    this.running++;
    const startedAt = this.now();
    this.startedAt[step] = startedAt;
    if (this.onEvent !== undefined) {
      this.emit({
        type: 'plan-step-started',
        timestamp: startedAt,
        ...(this.planId === undefined ? {} : { planId: this.planId }),
        stepId: planStep.id,
        toolName: this.stepTools[step]!.name,
      });
      // The listener may have aborted the plan, which already ended this step.
      if (this.state[step] !== RUNNING) return;
    }
    const template = this.templates[step];
    let args: Record<string, unknown> = planStep.arguments as Record<string, unknown>;
    let checked: StepArgumentsCheck;
    try {
      if (template !== undefined) {
        const filled = this.filler.fill(planStep.arguments, template);
        args = filled.args;
        if (filled.missing !== undefined) this.missing[step] = filled.missing;
      }
      checked = checkStepArguments(this.stepTools[step]!, args);
    } catch (error) {
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
      toolName: this.stepTools[step]!.name,
      args: checked.value,
    };
    const tool = this.stepTools[step]!;
    // Approval is checked here, not in a runner, so that no runner can skip it; the common case stays synchronous.
    if (tool.needsApproval !== false) {
      // The rule program calls follow too (`unattendedApprovalRefusal`): the same decision, the same words.
      unattendedApprovalRefusal(tool, action, {
        subject: `Step '${planStep.id}'`,
        container: 'plan',
        toolName: planStep.tool,
        approve: this.approveStep,
        details: { stepId: planStep.id },
      }).then((refusal) => {
        if (this.state[step] !== RUNNING) return;
        if (refusal === undefined) this.launch(step, action, checked.value);
        else this.settle(step, 'blocked', undefined, refusal, undefined, args);
      });
      return;
    }
    this.launch(step, action, checked.value);
  }

  private launch(step: number, action: Action, args: Record<string, unknown>): void {
    const planStep = this.steps[step]!;
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
    const planStep = this.steps[step]!;
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
          message: `Step '${this.steps[step]!.id}' ended with '${status}'.`,
        },
        observation,
        args,
      );
      return;
    }
    this.settle(step, 'error', undefined, {
      code: 'invalid_step_observation',
      message: `The step runner answered step '${this.steps[step]!.id}' with something that is not an Observation.`,
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
    // The steps this one releases are dispatched below, synchronously: the first of them takes this step's finish
    // time as its start, which is the same instant to within the executor's own bookkeeping (no runner, tool or
    // listener runs in between; with a listener the reading is not reused). A clock read costs 70-400 ns on a
    // virtual machine, as much as the rest of a step's bookkeeping; this saves one for most steps of a DAG.
    if (this.onEvent === undefined) this.reading = this.finishedAt[step]!;
    this.releaseDependents(step, status);
    this.drainSkips();
    this.pump();
    this.reading = Number.NaN;
  }

  /** Records every step whose dependency failed, transitively. */
  private drainSkips(): void {
    while (this.skipTop > 0) {
      const skipped = this.skipStack[--this.skipTop]!;
      // An event listener may have aborted the plan meanwhile, which already gave this step its final state.
      if (this.state[skipped] === DONE) continue;
      this.recordSkipped(skipped);
      this.releaseDependents(skipped, 'skipped');
    }
  }

  /** A step ended by the plan's stop did not fail: its dependents end as not started, not as skipped. */
  private failedAsDependency(status: ObservationStatus): boolean {
    return status !== 'success' && !(this.stopReason !== undefined && status === this.stopStatus);
  }

  /** Keeps the failed dependency first in plan order, which names the cause of a skip. */
  private noteFailed(dependent: number, dependency: number): void {
    const current = this.firstFailed[dependent]!;
    if (current === -1) this.firstFailed[dependent] = dependency;
    else if (this.rank === undefined ? dependency < current : this.rank[dependency]! < this.rank[current]!)
      this.firstFailed[dependent] = dependency;
  }

  private releaseDependents(step: number, status: ObservationStatus): void {
    const failed = this.failedAsDependency(status);
    const dependents = this.dependents;
    if (dependents !== undefined) {
      for (const dependent of dependents[step]!) this.release(dependent, step, failed);
      return;
    }
    // A validated plan (the hot path): the edges of the CSR, released inline.
    const dependentStart = this.dependentStart!;
    const dependentList = this.dependentList!;
    const remaining = this.remaining;
    const firstFailed = this.firstFailed;
    for (let edge = dependentStart[step]!; edge < dependentStart[step + 1]!; edge++) {
      const dependent = dependentList[edge]!;
      if (failed) {
        const current = firstFailed[dependent]!;
        if (current === -1 || step < current) firstFailed[dependent] = step;
      }
      if (
        --remaining[dependent]! === 0 &&
        this.state[dependent] === PENDING &&
        this.stopReason === undefined
      ) {
        if (firstFailed[dependent] !== -1) this.skipStack[this.skipTop++] = dependent;
        else this.queue[this.queueTail++] = dependent;
      }
    }
  }

  private release(dependent: number, step: number, failed: boolean): void {
    if (failed) this.noteFailed(dependent, step);
    if (
      --this.remaining[dependent]! === 0 &&
      this.state[dependent] === PENDING &&
      this.stopReason === undefined
    ) {
      if (this.firstFailed[dependent] !== -1) this.skipStack[this.skipTop++] = dependent;
      else if (this.held?.[dependent] !== 1) this.queue[this.queueTail++] = dependent;
    }
  }

  private recordSkipped(step: number): void {
    const cause = this.rootCause[this.firstFailed[step]!]!;
    this.rootCause[step] = cause;
    const causeId = this.steps[cause]!.id;
    this.record(
      step,
      'skipped',
      undefined,
      {
        code: 'dependency_failed',
        message: `Skipped because dependency '${causeId}' failed`,
        details: {
          dependency: causeId,
          dependencyStatus: this.state[cause] === DONE ? this.statusOf(cause) : 'error',
        },
      },
      undefined,
      undefined,
      false,
    );
  }

  /** The final status of a finished step. */
  private statusOf(step: number): ObservationStatus {
    return STATUSES[this.statusCode[step]!]!;
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
    this.state[step] = DONE;
    this.finished++;
    if (status !== 'success' && status !== 'skipped') this.rootCause[step] = step;
    // The output is kept by the filler, for references and for the result.
    this.filler.setOutput(step, output);
    const finishedAt = this.clock.now();
    this.statusCode[step] = statusIndex(status);
    this.finishedAt[step] = finishedAt;
    this.wasStarted[step] = started ? 1 : 0;
    if (error !== undefined) this.errors[step] = error;
    if (observation !== undefined) this.observations[step] = observation;
    if (args !== undefined) this.stepArguments[step] = args;
    if (this.onEvent !== undefined) {
      const planStep = this.steps[step]!;
      this.emit({
        type: 'plan-step-finished',
        timestamp: finishedAt,
        ...(this.planId === undefined ? {} : { planId: this.planId }),
        stepId: planStep.id,
        toolName: this.stepTools[step]!.name,
        status,
        durationMs: started ? finishedAt - this.startedAt[step]! : 0,
        ...(error === undefined ? {} : { error }),
      });
    }
  }

  /** The result of a finished step, from its columns (see the class comment for why it is built at the end). */
  private resultOf(step: number): PlanStepResult {
    const planStep = this.steps[step]!;
    const status = this.statusOf(step);
    const started = this.wasStarted[step] === 1;
    const finishedAt = this.finishedAt[step]!;
    const durationMs = started ? finishedAt - this.startedAt[step]! : 0;
    const observation = this.observations[step];
    const args = this.stepArguments[step];
    const missing = this.missing[step];
    if (
      status === 'success' &&
      started &&
      observation !== undefined &&
      args !== undefined &&
      missing === undefined &&
      planStep.argumentRepairs === undefined
    ) {
      // The common case as one literal (same keys, same order as below): one shape, no properties added one by one.
      return {
        id: planStep.id,
        tool: planStep.tool,
        status,
        finishedAt,
        durationMs,
        output: this.filler.outputOf(step),
        observation,
        arguments: args,
        startedAt: this.startedAt[step]!,
      };
    }
    // Built field by field (no conditional spreads), in the order every result has.
    const result: Mutable<PlanStepResult> = {
      id: planStep.id,
      tool: planStep.tool,
      status,
      finishedAt,
      durationMs,
    };
    if (status === 'success') result.output = this.filler.outputOf(step);
    const error = this.errors[step];
    if (error !== undefined) result.error = error;
    if (observation !== undefined) result.observation = observation;
    if (args !== undefined) result.arguments = args;
    if (missing !== undefined) result.missingReferences = missing;
    if (planStep.argumentRepairs !== undefined) result.argumentRepairs = planStep.argumentRepairs;
    if (status === 'skipped') result.skippedBecauseOf = this.steps[this.rootCause[step]!]!.id;
    if (started) result.startedAt = this.startedAt[step]!;
    return result;
  }

  /**
   * Ends the plan early: the caller aborted it, or its deadline passed. Running steps are signalled and end at once
   * (a runner that ignores its signal cannot hold the plan); steps not started end too, or as skipped when a
   * dependency had already failed. Every finished step keeps its result.
   */
  private stop(kind: StopKind): void {
    if (this.stopReason !== undefined || (this.sealed && this.finished === this.count)) return;
    this.stopReason = kind;
    const status: ObservationStatus = kind === 'timeout' ? 'timeout' : 'aborted';
    this.stopStatus = status;
    let stopError: AbortedError;
    let stopped: (planStep: { id: string; tool: string }) => ObservationError;
    let notStarted: StepError;
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
    } else if (kind === 'invalid') {
      this.aborted = true;
      this.abortReason = 'The complete plan is invalid.';
      stopError = new AbortedError({ operation: 'The plan (invalid once complete)' });
      this.planController?.abort(stopError);
      stopped = (planStep) => ({
        code: 'aborted',
        message: `Step '${planStep.id}' was stopped: the complete plan is invalid. It may or may not have taken effect.`,
      });
      notStarted = (planStep) => ({
        code: 'aborted',
        message: `Step '${planStep.id}' did not start: the complete plan is invalid.`,
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
    this.notStarted = notStarted;
    // Before a streamed plan is sealed its steps were added in dependency order: their positions are an order.
    const order = this.sealed ? this.order : Array.from({ length: this.count }, (_, position) => position);
    for (let position = 0; position < order.length; position++) {
      const step = order[position]!;
      const state = this.state[step];
      if (state === DONE) continue;
      const planStep = this.steps[step]!;
      if (state === RUNNING) {
        this.stepControllers?.[step]?.abort(stopError);
        this.running--;
        this.record(step, status, undefined, stopped(planStep), undefined, undefined, true);
        this.releaseDependents(step, status);
      } else if (this.firstFailed[step] !== -1) {
        this.recordSkipped(step);
        this.releaseDependents(step, 'skipped');
      } else {
        this.record(step, status, undefined, notStarted(planStep), undefined, undefined, false);
        this.releaseDependents(step, status);
      }
    }
    this.finish();
  }

  private finish(): void {
    if (this.ended) return;
    this.externalSignal?.removeEventListener('abort', this.onAbort);
    this.deadlineTimer?.abort();
    // A streamed plan stopped before it was complete ends once the rest of it is known (`seal`, `abandon`): the
    // steps still to come get their final state then.
    if (!this.sealed) return;
    this.ended = true;
    // Inside the last step's settle this is that step's finish time: the plan's end.
    const finishedAt = this.now();
    const planOrder = this.planOrder;
    const results: PlanStepResult[] = [];
    const counts = emptyCounts();
    for (let index = 0; index < this.count; index++) {
      const result = this.resultOf(planOrder === undefined ? index : planOrder[index]!);
      results.push(result);
      counts[result.status]++;
    }
    const status: PlanStatus = this.aborted
      ? 'aborted'
      : counts.success === this.count
        ? 'success'
        : counts.success === 0
          ? 'failed'
          : 'partial';
    const outputStepIds =
      this.outputStepIds?.slice() ?? Array.from(this.outputIndexes, (index) => this.steps[index]!.id);
    this.resolveRun({
      status,
      aborted: this.aborted,
      ...(this.abortReason === undefined ? {} : { abortReason: this.abortReason }),
      ...(this.timedOut ? { timedOut: true, timeoutMs: this.timeoutMs! } : {}),
      steps: results,
      outputStepIds,
      counts,
      startedAt: this.runStartedAt,
      finishedAt,
      durationMs: finishedAt - this.runStartedAt,
    });
  }
}
