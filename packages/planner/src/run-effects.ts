import type { ModelRequest, ModelResponse } from '@org/core';
import type { InferenceRecord } from './planner.js';
import { newResumeToken } from './resume-token-store.js';
import type { ToolExecutor } from './tool-executor.js';

/** What a model call is, for a runtime that journals it. */
export interface ModelCallInfo {
  /** The run it belongs to. */
  readonly runId: string;
  /** The step it plans (zero-based). */
  readonly step: number;
  /** Its place among the step's model calls (a ReAct retry is the second). */
  readonly index: number;
  readonly purpose: InferenceRecord['purpose'];
  /** The request as it will be sent (its `signal` is not part of any journal). */
  readonly request: ModelRequest;
}

/** The kinds of id a run generates. */
export type RunIdKind = 'run' | 'resume-token';

/**
 * Every nondeterministic effect of a run, behind one interface: model calls, tool calls (and so plan steps, which run
 * inside the plan tool's call), time and generated ids. By default everything runs in this process
 * (`inProcessRunEffects`). A durable runtime (`@org/restate`) journals each effect, so a run replayed from its journal
 * takes every decision it took before without calling the model or a tool again.
 *
 * The contract: `callModel` resolves with exactly what `call()` resolved with (or, on replay, what it resolved with
 * the first time: a JSON copy); `now` and `newId` return values a replay sees again.
 */
export interface RunEffects {
  /**
   * Runs one model call. `call()` makes it (streaming, if the model streams); a journal records what it returns. A
   * runtime may call `call()` again after a failed attempt: listeners have then seen that attempt's deltas, and what it
   * started early is aborted before the next attempt.
   *
   * `call(signal)` may be given a signal of the effects' own for this call (a durable runtime's attempt, so a cut
   * attempt's request stops rather than runs on beside its re-run): the model request then aborts when either it or
   * the run's `signal` does. Without one, the request carries the run's signal alone.
   */
  callModel(
    info: ModelCallInfo,
    call: (signal?: AbortSignal) => Promise<ModelResponse>,
  ): Promise<ModelResponse>;
  /**
   * Runs each step's approved tool calls. Default: `options.toolExecutor`, else the in-process executor. A durable
   * runtime journals each call here (`executeActions` calls every tool through its `execute`).
   */
  readonly toolExecutor?: ToolExecutor;
  /** The time, in milliseconds, for event timestamps and durations. */
  now(): number;
  /** A fresh id of a kind: the run's id when none is given, a paused state's resume token. */
  newId(kind: RunIdKind): string;
}

let runCounter = 0;

/** The effects of a run in this process: the model called directly, `Date.now()` (or the run's `clock`), fresh ids. */
export function inProcessRunEffects(clock: { now(): number } = Date): RunEffects {
  return {
    callModel: (_info, call) => call(),
    now: () => clock.now(),
    newId: (kind) => (kind === 'run' ? `run_${++runCounter}` : newResumeToken()),
  };
}
