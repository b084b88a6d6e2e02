import type { StepObservation, StepRunner } from '@org/plan-executor';
import type { AgentHooks } from '@org/planner';
import { type ExecuteActionOptions, executeAction, type ToolRegistry, type ToolRunView } from '@org/tools';
import type { DurableRuntime } from './durable-runtime.js';

/** Options of {@link durableStepRunner}: the run's tools and the settings each step runs with. */
export interface DurableStepRunnerOptions {
  readonly runtime: DurableRuntime;
  /** Every tool a step may call: this process's and the tool services'. */
  readonly registry: ToolRegistry;
  /** The tool services' tools: their steps run in the workflow body, each call a durable call. */
  readonly remoteTools: ReadonlySet<string>;
  readonly hooks: AgentHooks | undefined;
  readonly injected: Readonly<Record<string, unknown>> | undefined;
  /** Each step's deadline (`toolTimeoutMs`), kept inside its journaled call. */
  readonly timeoutMs: number | undefined;
  readonly outputBudgetBytes: number | undefined;
  /** The run view of the step whose plan is running, passed on to each step's tool. */
  readonly runView: () => ToolRunView | undefined;
}

/** Attempts of a journaled step whose execution threw (a bug: tool failures are observations, not throws). */
const STEP_ATTEMPTS = 3;

/**
 * The plan executor's `StepRunner` of a durable run: each step is a journaled call of its tool (arguments already
 * validated and approved by the executor; hooks, hidden values, deadline and output budget applied inside), its
 * observation journaled. The executor's scheduling (a step starts when its last dependency finishes) is unchanged:
 * the run awaits every step through its `CompletionSequencer`, so steps settle in journal order, live and on replay.
 * A step of a tool service's tool runs in the body: its call is itself durable.
 */
export function durableStepRunner(options: DurableStepRunnerOptions): StepRunner {
  const { runtime, registry, remoteTools } = options;
  const callOptions = (now: () => number): ExecuteActionOptions => {
    const run = options.runView();
    return {
      validate: false,
      now,
      ...(run === undefined ? {} : { run }),
      ...(options.hooks === undefined ? {} : { hooks: options.hooks }),
      ...(options.injected === undefined ? {} : { injected: options.injected }),
      ...(options.outputBudgetBytes === undefined ? {} : { outputBudgetBytes: options.outputBudgetBytes }),
    };
  };
  return {
    async run({ action, signal }): Promise<StepObservation> {
      // The plan's signal (its abort) joined with the attempt's: a step of a cut attempt stops, not runs beside its re-run.
      const stepSignal = runtime.callSignal(signal);
      if (remoteTools.has(action.toolName)) {
        return executeAction(registry, action, { ...callOptions(runtime.clock.now), signal: stepSignal });
      }
      const settings = { ...callOptions(Date.now), signal: stepSignal };
      return runtime.journalToolCall(
        `plan step ${action.id} (${action.toolName})`,
        () =>
          executeAction(registry, action, {
            ...settings,
            ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
          }),
        STEP_ATTEMPTS,
      );
    },
  };
}
