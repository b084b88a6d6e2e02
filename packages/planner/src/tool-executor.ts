import {
  type Action,
  errorMessageOf,
  isObservationStatus,
  OBSERVATION_STATUSES,
  type RunEvent,
} from '@org/core';
import {
  executeActions,
  serializeOutput,
  type ToolObservation,
  type ToolRegistry,
  type ToolRunView,
} from '@org/tools';
import type { AgentHooks } from './agent-types.js';
import { InvalidToolExecutorResultError } from './errors.js';

/**
 * What a tool executor receives for one step's calls: everything `executeActions` of `@org/tools` needs, as the loop
 * resolved it. `hooks.beforeToolUse` answers each of the step's calls with the decision the loop screened before
 * deciding approval (the hook is asked once per call); calls it has not seen (a plan's steps) ask the hook itself.
 */
export interface ToolExecutorContext {
  readonly registry: ToolRegistry;
  readonly hooks: AgentHooks | undefined;
  /** Values of the tools' hidden parameters (`injected` of `runAgent`). */
  readonly injected: Readonly<Record<string, unknown>> | undefined;
  readonly signal: AbortSignal | undefined;
  /** Calls run at once (`maxConcurrency` of `runAgent`, default 8). */
  readonly maxConcurrency: number;
  /** The per-call deadline (`toolTimeoutMs`), or `undefined` for the tools' own. */
  readonly timeoutMs: number | undefined;
  /** The output budget in the model's context (`outputBudgetBytes`), or `undefined` for the default. */
  readonly outputBudgetBytes: number | undefined;
  /** The run as the tools may read it: pass it on as `run` so tools see it in `context.run`. */
  readonly run: ToolRunView;
  /** Emits the calls' events (`tool-call-started`, `-progress`, `-intercepted`, `-finished`). */
  emit(event: RunEvent): void;
  /** The run's clock. */
  now(): number;
}

/**
 * Runs a step's approved calls (seed 004's `CanExecuteToolCalls`: resolve, inject, validate, run, intercept, emit)
 * and resolves with one observation per action. The loop decides everything around it: approval (on the arguments
 * the hooks will run), the loop guard, `stopOnToolBlock`, `throwOnToolFailure`; the executor only runs what it is
 * given. A custom executor's result is checked (`InvalidToolExecutorResultError`), and the loop completes the events
 * it did not emit, so every `tool-call-started` has exactly one `tool-call-finished`.
 *
 * The seam for durable runs: an executor that journals each call's observation (plain data) and returns the journaled
 * one on replay, delegating the first execution to `defaultToolExecutor`.
 *
 * @example
 * const journaling: ToolExecutor = {
 *   async execute(actions, context) {
 *     const saved = actions.map((action) => journal.get(action.id));
 *     if (saved.every((observation) => observation !== undefined)) return saved;
 *     const observations = await defaultToolExecutor.execute(actions, context);
 *     for (const observation of observations) journal.set(observation.actionId, observation);
 *     return observations;
 *   },
 * };
 * await runAgent({ model, tools, task, toolExecutor: journaling });
 */
export interface ToolExecutor {
  /** Runs a step's approved actions and resolves with exactly one observation per action (checked by the loop). */
  execute(actions: readonly Action[], context: ToolExecutorContext): Promise<readonly ToolObservation[]>;
}

/**
 * The executor `runAgent` uses by default: `executeActions` of `@org/tools` (parallel up to `maxConcurrency`,
 * hooks, injected values, deadlines, output budget, events), with the run view passed to every tool.
 *
 * @example
 * const logged: ToolExecutor = {
 *   execute: (actions, context) => {
 *     console.log(`step ${context.run.step}: ${actions.map((action) => action.toolName).join(', ')}`);
 *     return defaultToolExecutor.execute(actions, context);
 *   },
 * };
 */
export const defaultToolExecutor: ToolExecutor = Object.freeze({
  execute(actions: readonly Action[], context: ToolExecutorContext): Promise<ToolObservation[]> {
    return executeActions(context.registry, actions, {
      maxConcurrency: context.maxConcurrency,
      onEvent: context.emit,
      now: context.now,
      run: context.run,
      ...(context.signal === undefined ? {} : { signal: context.signal }),
      ...(context.hooks === undefined ? {} : { hooks: context.hooks }),
      ...(context.injected === undefined ? {} : { injected: context.injected }),
      ...(context.timeoutMs === undefined ? {} : { timeoutMs: context.timeoutMs }),
      ...(context.outputBudgetBytes === undefined ? {} : { outputBudgetBytes: context.outputBudgetBytes }),
    });
  },
});

/**
 * Runs a custom executor under the contract the default one keeps by construction: its events are paired (a second
 * `tool-call-started` or `tool-call-finished` for a call is not passed on; a call it resolved without announcing gets
 * both events, after the fact), and its result must answer each action exactly once. On a throw or an invalid result,
 * the calls it left open are closed with `tool_executor_failed` results, then the error is thrown.
 */
export async function executeWithCustomExecutor(
  executor: ToolExecutor,
  actions: readonly Action[],
  context: ToolExecutorContext,
): Promise<readonly ToolObservation[]> {
  const byId = new Map(actions.map((action) => [action.id, action]));
  const started = new Set<string>();
  const finished = new Set<string>();
  const emit = (event: RunEvent): void => {
    if (event.type === 'tool-call-started' && byId.has(event.action.id)) {
      if (started.has(event.action.id)) return;
      started.add(event.action.id);
    } else if (event.type === 'tool-call-finished' && byId.has(event.observation.actionId)) {
      const id = event.observation.actionId;
      if (finished.has(id)) return;
      if (!started.has(id)) {
        started.add(id);
        context.emit({
          type: 'tool-call-started',
          timestamp: event.timestamp,
          action: byId.get(id) as Action,
        });
      }
      finished.add(id);
    }
    context.emit(event);
  };
  const close = (observation: ToolObservation): void => {
    // The wrapper announces the call first when the executor never did.
    if (!finished.has(observation.actionId)) {
      emit({ type: 'tool-call-finished', timestamp: context.now(), observation });
    }
  };
  let result: unknown;
  try {
    result = await executor.execute(actions, { ...context, emit });
  } catch (thrown) {
    for (const action of actions) close(executorFailure(action, thrown));
    throw thrown;
  }
  let observations: readonly ToolObservation[];
  try {
    observations = checkedResult(actions, result);
  } catch (error) {
    for (const action of actions) close(executorFailure(action, error));
    throw error;
  }
  // What the executor returned reaches the model within the run's output budget, as the default executor's does.
  const bounded = observations.map((observation) => withinBudget(observation, context.outputBudgetBytes));
  for (const observation of bounded) close(observation);
  return bounded;
}

/** The observation with its output cut to the budget (with the marker), when it does not fit. */
function withinBudget(observation: ToolObservation, budgetBytes: number | undefined): ToolObservation {
  if (observation.output === undefined) return observation;
  const serialized = serializeOutput(observation.output, budgetBytes);
  if (!serialized.truncated) return observation;
  return { ...observation, output: serialized.output, truncated: true };
}

/** The observation answering a call the executor could not: it threw, or broke its contract. */
export function executorFailure(action: Action, thrown: unknown): ToolObservation {
  return {
    actionId: action.id,
    toolName: action.toolName,
    status: 'error',
    error: {
      code: 'tool_executor_failed',
      message: `The call was not answered: the tool executor failed (${errorMessageOf(thrown)}).`,
    },
    durationMs: 0,
  };
}

/** The executor's observations in action order, or an `InvalidToolExecutorResultError` naming what is wrong. */
function checkedResult(actions: readonly Action[], result: unknown): readonly ToolObservation[] {
  if (!Array.isArray(result)) {
    throw new InvalidToolExecutorResultError({
      message: `expected an array of observations, got ${result === null ? 'null' : typeof result}.`,
    });
  }
  const byId = new Map<string, ToolObservation>();
  for (const [index, item] of result.entries()) {
    if (typeof item !== 'object' || item === null) {
      throw new InvalidToolExecutorResultError({ message: `item ${index} is not an observation.` });
    }
    const observation = item as Partial<ToolObservation>;
    const actionId = observation.actionId;
    if (typeof actionId !== 'string') {
      throw new InvalidToolExecutorResultError({ message: `item ${index} has no actionId.` });
    }
    const action = actions.find((candidate) => candidate.id === actionId);
    if (action === undefined) {
      throw new InvalidToolExecutorResultError({
        message: `item ${index} answers '${actionId}', which is not one of the step's actions (${actions.map((candidate) => candidate.id).join(', ')}).`,
        actionId,
      });
    }
    if (byId.has(actionId)) {
      throw new InvalidToolExecutorResultError({ message: `'${actionId}' is answered twice.`, actionId });
    }
    if (observation.toolName !== action.toolName) {
      throw new InvalidToolExecutorResultError({
        message: `the observation of '${actionId}' names tool ${JSON.stringify(observation.toolName)}, the action '${action.toolName}'.`,
        actionId,
      });
    }
    if (!isObservationStatus(observation.status)) {
      throw new InvalidToolExecutorResultError({
        message: `the observation of '${actionId}' has status ${JSON.stringify(observation.status)}; expected one of ${OBSERVATION_STATUSES.join(', ')}.`,
        actionId,
      });
    }
    if (typeof observation.durationMs !== 'number' || !(observation.durationMs >= 0)) {
      throw new InvalidToolExecutorResultError({
        message: `the observation of '${actionId}' has no durationMs (a number >= 0).`,
        actionId,
      });
    }
    if (observation.status !== 'success' && typeof observation.error?.message !== 'string') {
      throw new InvalidToolExecutorResultError({
        message: `the observation of '${actionId}' has status ${observation.status} but no error { code, message }.`,
        actionId,
      });
    }
    byId.set(actionId, observation as ToolObservation);
  }
  const missing = actions.filter((action) => !byId.has(action.id));
  if (missing.length > 0) {
    throw new InvalidToolExecutorResultError({
      message: `no observation for ${missing.map((action) => `'${action.id}'`).join(', ')}; every action needs exactly one.`,
      actionId: missing[0]?.id as string,
    });
  }
  return actions.map((action) => byId.get(action.id) as ToolObservation);
}
