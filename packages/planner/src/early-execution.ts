import type { Action, ToolCall } from '@org/core';
import {
  type ExecuteActionOptions,
  executeAction,
  executeStreamingAction,
  type StreamingActionExecution,
  type ToolObservation,
  type ToolRegistry,
  toolNeedsApproval,
} from '@org/tools';
import type { EarlyStarts } from './planner.js';

/** What the loop gives a step's early execution. */
export interface EarlyExecutionSetup {
  /** The step's tools (`prepareStep`'s active tools): a call of another tool never starts early. */
  readonly registry: ToolRegistry;
  /** Whether the loop guard lets this call run (a call it would refuse never starts early). */
  readonly mayRun: (action: Action) => boolean;
  /** Calls that may run at once (`maxConcurrency`): early starts beyond it wait for the end of the answer. */
  readonly maxConcurrency: number;
  /** The run's signal. */
  readonly signal: AbortSignal | undefined;
  /** The options every call of the step runs with (hooks, injected values, deadline, budget, events, run view). */
  readonly options: (toolCalls: readonly ToolCall[]) => ExecuteActionOptions;
}

/** A call running (wrapped, so the promise of its observation is not flattened into the approval check's). */
interface Running {
  readonly observation: Promise<ToolObservation>;
}

/** An `eager` call started once its arguments were complete. */
interface EagerStart {
  readonly kind: 'eager';
  readonly controller: AbortController;
  /** Resolves once approval is known: the running call, or `undefined` when it must wait for the step. */
  readonly execution: Promise<Running | undefined>;
}

/** A call of a tool that reads its arguments as they stream (`executeStreaming`: the plan tool), started at once. */
interface StreamingStart {
  readonly kind: 'streaming';
  readonly toolName: string;
  readonly execution: StreamingActionExecution;
  /** The call as it will run, once its arguments are complete and valid. */
  action?: Action;
}

type Started = EagerStart | StreamingStart;

/**
 * Early execution for one step, while the model's answer streams:
 * - a call of a tool that reads its arguments as they stream (`executeStreaming`, such as the plan tool, which
 *   dispatches each plan step as soon as it is complete) starts when the model begins writing it, if the tool never
 *   needs approval;
 * - a call of an `eager` tool starts the moment its arguments are complete, unless it needs approval.
 * The loop creates one only when early starts are allowed at all (`eagerToolExecution`, the default executor, no
 * `beforeToolUse` hook to ask first). The step takes each started call's observation instead of running it again
 * (a streaming call is completed then: what it must not do before the answer is final, it does after); a discarded
 * answer aborts them.
 */
export class EarlyExecution implements EarlyStarts {
  readonly #setup: EarlyExecutionSetup;
  readonly #started = new Map<string, Started>();
  /** The calls written so far, which an early call sees as its step's calls (`context.run.toolCalls`). */
  readonly #toolCalls: ToolCall[] = [];

  constructor(setup: EarlyExecutionSetup) {
    this.#setup = setup;
  }

  callStarted(toolCallId: string, toolName: string): void {
    const tool = this.#setup.registry.resolve(toolName);
    // Its arguments are unknown yet: only a tool that never needs approval may start on them.
    if (tool?.executeStreaming === undefined || tool.needsApproval !== false) return;
    if (this.#started.has(toolCallId) || this.running() >= this.#setup.maxConcurrency) return;
    const execution = executeStreamingAction(
      this.#setup.registry,
      { id: toolCallId, toolName },
      { ...this.#setup.options(this.#toolCalls), ...this.#signalOption() },
    );
    this.#started.set(toolCallId, { kind: 'streaming', toolName, execution });
    this.#track(execution.observation);
  }

  argumentsDelta(toolCallId: string, delta: string): void {
    const started = this.#started.get(toolCallId);
    if (started?.kind === 'streaming') started.execution.push(delta);
  }

  callReady(action: Action, toolCall: ToolCall): void {
    this.#toolCalls.push(toolCall);
    const started = this.#started.get(action.id);
    if (started?.kind === 'streaming') {
      // A stream that names another tool at the end of a call than at its start: what started is not this call.
      if (this.#setup.registry.resolve(started.toolName) !== this.#setup.registry.resolve(action.toolName)) {
        started.execution.abort(
          `the model began this call as '${started.toolName}' and completed it as '${action.toolName}'`,
        );
        return;
      }
      started.action = action;
      return;
    }
    const tool = this.#setup.registry.resolve(action.toolName);
    if (tool?.eager !== true || started !== undefined) return;
    if (this.running() >= this.#setup.maxConcurrency || !this.#setup.mayRun(action)) return;
    const controller = new AbortController();
    const options = { ...this.#setup.options(this.#toolCalls), ...this.#signalOption(controller) };
    const execution = toolNeedsApproval(tool, action.args).then(
      (needsApproval): Running | undefined => {
        if (needsApproval) return undefined;
        const observation = executeAction(this.#setup.registry, action, options);
        this.#track(observation);
        return { observation };
      },
      // A predicate that throws fails closed: the call waits for the step, where approval is decided again.
      () => undefined,
    );
    this.#started.set(action.id, { kind: 'eager', controller, execution });
  }

  async restart(reason: unknown): Promise<void> {
    await this.discard(reason);
    this.#toolCalls.length = 0;
  }

  /** Calls started early that are still running (they count against `maxConcurrency` with the step's others). */
  running(): number {
    return this.#running;
  }

  /**
   * How many more calls may run now beside those started early, at least one: waits, while every slot is taken by
   * an early call, for one of them to end.
   */
  async freeSlots(maxConcurrency: number): Promise<number> {
    while (this.#running >= maxConcurrency && this.#pending.size > 0) await Promise.race(this.#pending);
    return Math.max(1, maxConcurrency - this.#running);
  }

  #running = 0;
  readonly #pending = new Set<Promise<unknown>>();

  #track(observation: Promise<ToolObservation>): void {
    this.#running++;
    const settled = observation.then(
      () => undefined,
      () => undefined,
    );
    this.#pending.add(settled);
    void settled.then(() => {
      this.#running--;
      this.#pending.delete(settled);
    });
  }

  callRejected(toolCallId: string, reason: unknown): void {
    const started = this.#started.get(toolCallId);
    if (started?.kind === 'streaming') started.execution.abort(reason);
  }

  /** How many calls started early. */
  get size(): number {
    return this.#started.size;
  }

  /** Whether a call was announced by its early start (its `tool-call-*` events are its own). */
  announced(toolCallId: string): boolean {
    return this.#started.get(toolCallId)?.kind === 'streaming';
  }

  /**
   * The observation of a call that started early, or `undefined` when it did not (the step runs it). A streaming call
   * is completed here: the answer is final, so it may do what a discarded answer would have regretted.
   */
  async take(action: Action): Promise<Running | undefined> {
    const started = this.#started.get(action.id);
    if (started === undefined) return undefined;
    this.#started.delete(action.id);
    if (started.kind === 'eager') return started.execution;
    try {
      started.execution.complete(action);
    } catch (error) {
      // Not the call it started for (a stream that renamed its call): it does not run.
      started.execution.abort(error);
    }
    return { observation: started.execution.observation };
  }

  /**
   * A call the step will not run (it was rejected: invalid arguments, beyond the parallel limit) that started on its
   * streaming arguments: it is aborted and its own events closed; the step records the rejection.
   */
  async drop(toolCallId: string, reason: unknown): Promise<void> {
    const started = this.#started.get(toolCallId);
    if (started?.kind !== 'streaming') return;
    this.#started.delete(toolCallId);
    started.execution.abort(reason);
    await started.execution.observation;
  }

  /**
   * The step pauses for approval (of another call: calls started early need none): they finish, and their
   * observations are returned for the paused state, so the resume does not run them again.
   */
  async settle(): Promise<ToolObservation[]> {
    const running = await Promise.all(
      [...this.#started.values()].map(async (started): Promise<Running | undefined> => {
        if (started.kind === 'eager') return started.execution;
        if (started.action === undefined) {
          started.execution.abort('the call was not valid');
          return undefined;
        }
        try {
          started.execution.complete(started.action);
        } catch (error) {
          started.execution.abort(error);
        }
        return { observation: started.execution.observation };
      }),
    );
    this.#started.clear();
    return Promise.all(running.flatMap((entry) => (entry === undefined ? [] : [entry.observation])));
  }

  /**
   * The answer was discarded (a stream error, a step that will not run its calls): every call started early is aborted
   * through its signal, and its observation (status `aborted`, its events already emitted) is returned by id.
   */
  async discard(reason: unknown): Promise<Map<string, ToolObservation>> {
    const discarded = new Map<string, ToolObservation>();
    const pending = [...this.#started].map(async ([id, started]) => {
      if (started.kind === 'streaming') {
        started.execution.abort(reason);
        discarded.set(id, await started.execution.observation);
        return;
      }
      started.controller.abort(reason);
      const running = await started.execution;
      if (running !== undefined) discarded.set(id, await running.observation);
    });
    this.#started.clear();
    await Promise.all(pending);
    return discarded;
  }

  /** The call's signal: the run's, and this step's own controller when it has one. */
  #signalOption(controller?: AbortController): { signal?: AbortSignal } {
    const runSignal = this.#setup.signal;
    if (controller === undefined) return runSignal === undefined ? {} : { signal: runSignal };
    return {
      signal: runSignal === undefined ? controller.signal : AbortSignal.any([runSignal, controller.signal]),
    };
  }
}
