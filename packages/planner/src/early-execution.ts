import type { Action, ToolCall } from '@org/core';
import {
  type ExecuteActionOptions,
  executeAction,
  type ToolObservation,
  type ToolRegistry,
  toolNeedsApproval,
} from '@org/tools';
import type { EarlyStarts } from './planner.js';

/** What the loop gives a step's early execution. */
export interface EarlyExecutionSetup {
  readonly registry: ToolRegistry;
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

/** One call started before the answer was complete. */
interface Started {
  readonly controller: AbortController;
  /** Resolves once approval is known: the running call, or `undefined` when it must wait for the step. */
  readonly execution: Promise<Running | undefined>;
}

/**
 * Eager tool execution for one step: a call of an `eager` tool starts the moment its arguments are complete in the
 * stream, while the model is still writing, unless it needs approval. The loop creates one only when early starts are
 * allowed at all (`eagerToolExecution`, the default executor, no `beforeToolUse` hook to ask first). The step then
 * takes each started call's observation instead of running it again; a discarded answer aborts them.
 */
export class EarlyExecution implements EarlyStarts {
  readonly #setup: EarlyExecutionSetup;
  readonly #started = new Map<string, Started>();
  /** The calls written so far, which an early call sees as its step's calls (`context.run.toolCalls`). */
  readonly #toolCalls: ToolCall[] = [];

  constructor(setup: EarlyExecutionSetup) {
    this.#setup = setup;
  }

  callStarted(_toolCallId: string, _toolName: string): void {}

  argumentsDelta(_toolCallId: string, _delta: string): void {}

  callReady(action: Action, toolCall: ToolCall): void {
    this.#toolCalls.push(toolCall);
    const tool = this.#setup.registry.resolve(action.toolName);
    if (tool === undefined || !isEager(tool) || this.#started.has(action.id)) return;
    if (this.#started.size >= this.#setup.maxConcurrency) return;
    const controller = new AbortController();
    const runSignal = this.#setup.signal;
    const signal =
      runSignal === undefined ? controller.signal : AbortSignal.any([runSignal, controller.signal]);
    const options = { ...this.#setup.options(this.#toolCalls), signal };
    const execution = toolNeedsApproval(tool, action.args).then(
      (needsApproval): Running | undefined =>
        needsApproval ? undefined : { observation: executeAction(this.#setup.registry, action, options) },
      // A predicate that throws fails closed: the call waits for the step, where approval is decided again.
      () => undefined,
    );
    this.#started.set(action.id, { controller, execution });
  }

  callRejected(_toolCallId: string, _reason: unknown): void {}

  /** How many calls started early. */
  get size(): number {
    return this.#started.size;
  }

  /** The observation of a call that started early, or `undefined` when it did not (the step runs it). */
  async take(actionId: string): Promise<Running | undefined> {
    const started = this.#started.get(actionId);
    if (started === undefined) return undefined;
    this.#started.delete(actionId);
    return started.execution;
  }

  /**
   * The step pauses for approval: the calls that started early finish (they are not run again on resume), and their
   * observations are returned for the paused state.
   */
  async settle(): Promise<ToolObservation[]> {
    const running = await Promise.all([...this.#started.values()].map((started) => started.execution));
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
      started.controller.abort(reason);
      const running = await started.execution;
      if (running !== undefined) discarded.set(id, await running.observation);
    });
    this.#started.clear();
    await Promise.all(pending);
    return discarded;
  }
}

function isEager(tool: object): boolean {
  return (tool as { readonly eager?: boolean }).eager === true;
}
