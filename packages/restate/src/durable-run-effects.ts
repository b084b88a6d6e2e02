import type { Action, ModelResponse } from '@org/core';
import { defaultToolExecutor, type RunEffects, type ToolExecutorContext } from '@org/planner';
import type { ToolObservation, ToolRunView } from '@org/tools';
import { CancelledError, type RunOptions, TerminalError } from '@restatedev/restate-sdk';
import type { DurableRuntime } from './durable-runtime.js';
import { DurableModelCallError } from './errors.js';
import { journaledModelResponse } from './journal-values.js';
import { mapInOrder } from './map-in-order.js';
import { fromEngineFailure, toEngineFailure } from './model-call-failure.js';
import type { DurableRetryPolicy } from './restate-agent-types.js';

/** Options of {@link durableRunEffects}. */
export interface DurableRunEffectsOptions {
  readonly runtime: DurableRuntime;
  /**
   * Tools whose calls run in the workflow body, not as one journaled step: the plan tool (each of its steps is
   * journaled) and the tool services' tools (each call is a durable call).
   */
  readonly inBodyTools: ReadonlySet<string>;
  /**
   * Tools whose call runs alone: a step with a call of one runs its calls one at a time. The code tool: its program's
   * calls reach the journal when a worker thread makes them, so a call running beside it (another program, a plan)
   * could journal its own effects in another order on replay. Default none.
   */
  readonly aloneTools?: ReadonlySet<string>;
  readonly modelRetry: DurableRetryPolicy | undefined;
  /** Told the run view of each step's calls, for plan steps to pass on to their tools. */
  readonly onRunView: (run: ToolRunView) => void;
}

/** Attempts of a journaled tool call whose executor threw (a bug: tool failures are observations, not throws). */
const TOOL_CALL_ATTEMPTS = 3;

/** The retry options of model calls: retryable provider errors are retried by the engine, with backoff. */
function modelRetryOptions(policy: DurableRetryPolicy | undefined): RunOptions<unknown> {
  return {
    maxRetryAttempts: policy?.maxAttempts ?? 6,
    initialRetryInterval: policy?.initialIntervalMs ?? 1_000,
    maxRetryInterval: policy?.maxIntervalMs ?? 30_000,
    retryIntervalFactor: 2,
  };
}

/** The context of a call that runs in the workflow body: no wall-clock deadline there (see `JournalClock`). */
function inBody(context: ToolExecutorContext): ToolExecutorContext {
  return { ...context, timeoutMs: undefined };
}

/**
 * The `RunEffects` of a durable run: each model call and each tool call is a journaled step, time is the journal's,
 * ids are seeded on the invocation. On replay every journaled effect resolves with its first result, without calling
 * the model or the tool again.
 *
 * - A model call journals its response (JSON). A retryable provider error is retried by the engine (`modelRetry`);
 *   any other, or the last retry's, is journaled as the call's failure and ends the run with `error`.
 * - A tool call journals its observation: validation, hooks, the deadline and the output budget all run inside the
 *   journaled step. Calls of the plan tool and of the tool services' tools run in the workflow body instead: a plan's
 *   steps are journaled one by one, a remote call is a durable call.
 */
export function durableRunEffects(options: DurableRunEffectsOptions): RunEffects {
  const { runtime, inBodyTools } = options;
  const retry = modelRetryOptions(options.modelRetry);

  const journaledToolCall = async (
    action: Action,
    context: ToolExecutorContext,
  ): Promise<ToolObservation> => {
    return runtime.journalToolCall(
      `tool ${action.toolName} (${action.id})`,
      async () => {
        const [observation] = await defaultToolExecutor.execute([action], {
          ...context,
          signal: runtime.callSignal(context.signal),
          now: Date.now,
        });
        return observation as ToolObservation;
      },
      TOOL_CALL_ATTEMPTS,
    );
  };

  return {
    async callModel(info, call): Promise<ModelResponse> {
      const what = `model call ${info.step}.${info.index}`;
      let journaled: { response: ModelResponse; at: number };
      try {
        journaled = await runtime.journal(
          what,
          async () => {
            let response: ModelResponse;
            try {
              // The request hears this attempt's signal (joined to the run's): a cut attempt (node lost, connection
              // dropped) aborts its model call rather than letting it run on beside its re-run, whatever the run's
              // own signal is.
              response = await call(runtime.attemptSignal);
            } catch (error) {
              throw toEngineFailure(error);
            }
            try {
              return {
                response: journaledModelResponse(response, `the response of ${what}`),
                at: Date.now(),
              };
            } catch (error) {
              throw toEngineFailure(error);
            }
          },
          retry as RunOptions<{ response: ModelResponse; at: number }>,
        );
      } catch (error) {
        // A cancelled run (Restate's cancel API) stays cancelled; anything else the engine kept retrying is its own.
        if (!(error instanceof TerminalError) || error instanceof CancelledError) throw error;
        const { message, failure } = fromEngineFailure(error);
        throw new DurableModelCallError({
          step: info.step,
          message,
          ...(failure === undefined ? {} : { causeCode: failure.code }),
          ...(failure?.statusCode === undefined ? {} : { causeStatusCode: failure.statusCode }),
          cause: error,
        });
      }
      runtime.clock.advanceTo(journaled.at);
      return journaled.response;
    },
    toolExecutor: {
      execute(actions, context) {
        options.onRunView(context.run);
        const alone = actions.some((action) => options.aloneTools?.has(action.toolName) === true);
        return mapInOrder(actions, alone ? 1 : context.maxConcurrency, async (action) => {
          if (!inBodyTools.has(action.toolName)) return journaledToolCall(action, context);
          const [observation] = await defaultToolExecutor.execute([action], {
            ...inBody(context),
            signal: runtime.callSignal(context.signal),
          });
          return observation as ToolObservation;
        });
      },
    },
    now: runtime.clock.now,
    newId: (kind) => `${kind}_${runtime.newId()}`,
  };
}
