import type { LanguageModel, RunEvent, ToolChoice } from '@org/core';
import { createToolPlanTool, type PlanResult, TOOL_PLAN_TOOL_NAME } from '@org/plan-executor';
import { type AgentResult, createFunctionCallingPlanner, createReActPlanner, runAgent } from '@org/planner';
import { ToolRegistry } from '@org/tools';
import type { ConnectedTools, DemoTask, ToolClock } from './demo-task.js';
import { buildPlanTimeline, type PlanTimeline } from './plan-timeline.js';

/** The three ways the demo runs a task. */
export type Mode = 'react' | 'native' | 'plan';

/**
 * Every mode, in the order the demo runs and prints them.
 *
 * @example
 * for (const mode of MODES) await runTaskInMode(task, mode, { model: models[mode], clock });
 */
export const MODES: readonly Mode[] = ['react', 'native', 'plan'];

/**
 * How each mode is named in output.
 *
 * @example
 * MODE_LABELS.native; // 'function calling'
 */
export const MODE_LABELS: Readonly<Record<Mode, string>> = {
  react: 'ReAct',
  native: 'function calling',
  plan: 'plan mode',
};

/** Options of {@link runTaskInMode}. */
export interface RunTaskInModeOptions {
  /** The model for this run (a scripted one answers from the task's scripts; a real one decides for itself). */
  readonly model: LanguageModel;
  /** Tools sleep on it, events are stamped with it, plans are scheduled on it. */
  readonly clock: ToolClock;
  /** Every event of the run: the loop's and the plan executor's. */
  readonly onEvent?: (event: RunEvent) => void;
  /**
   * Every event exactly as the loop emits it, each naming its run (plan steps included, once): for a tracer such as
   * `otelListener` of `@org/otel`.
   */
  readonly runListener?: (event: RunEvent) => void;
  /** Plan steps and tool calls running at once. Default 8. */
  readonly maxConcurrency?: number;
  /** Planning steps before the run stops. Default: the task's calls + 3. */
  readonly maxSteps?: number;
  readonly signal?: AbortSignal;
  /** Default `auto`. */
  readonly toolChoice?: ToolChoice;
  /** Native function calling: calls accepted from one model answer (`1` also turns parallel calls off). */
  readonly maxParallelToolCalls?: number;
}

/** The outcome of one task in one mode. */
export interface ModeRun {
  readonly task: DemoTask;
  readonly mode: Mode;
  readonly result: AgentResult;
  /** On the run's clock: simulated milliseconds on a virtual clock, real ones otherwise. */
  readonly wallTimeMs: number;
  /** One timeline per `execute_tool_plan` call (plan mode only). */
  readonly plans: readonly PlanTimeline[];
  /**
   * For a task whose tools are connected (`connectTools`, an MCP server): where they ran and the measured real
   * duration of each call, which `wallTimeMs` includes (on a virtual clock too, where the model's time is simulated).
   */
  readonly connectedTools?: { readonly source: string; readonly realCallTimesMs: readonly number[] };
}

/**
 * Runs a task in one mode: ReAct (the ReAct planner, decisions as text), native function calling (the
 * function-calling planner, parallel calls) or plan mode (the function-calling planner with `execute_tool_plan`
 * offered beside the tools). Collects a timeline of every plan the model ran. A task with `connectTools` (an MCP
 * server) is connected first and closed after the run, also when it fails or is aborted.
 *
 * @example
 * const clock = createVirtualClock();
 * const scripts = createTaskScripts({ calls: weatherTask.calls, answer: weatherTask.answer });
 * const model = createScriptedModel({ script: scripts.plan, clock, latency: LATENCY_PROFILES.typical });
 * const run = await runTaskInMode(weatherTask, 'plan', { model, clock });
 * console.log(run.result.text, run.result.roundTrips, run.wallTimeMs);
 */
export async function runTaskInMode(
  task: DemoTask,
  mode: Mode,
  options: RunTaskInModeOptions,
): Promise<ModeRun> {
  const { clock } = options;
  if (task.createTools !== undefined) return runWithTools(task, mode, options, task.createTools(clock));
  // A connected task's tools are a server process: closed however the run ends (an error, an abort on Ctrl-C).
  const connected = await task.connectTools(clock);
  try {
    return await runWithTools(task, mode, options, connected.tools, connected);
  } finally {
    await connected.close();
  }
}

async function runWithTools(
  task: DemoTask,
  mode: Mode,
  options: RunTaskInModeOptions,
  tools: ToolRegistry,
  connected?: ConnectedTools,
): Promise<ModeRun> {
  const { clock, onEvent } = options;
  const planArguments = new Map<string, unknown>();
  const planResults: { toolCallId: string; result: PlanResult }[] = [];
  const registry =
    mode === 'plan'
      ? ToolRegistry.compose(
          tools,
          new ToolRegistry([
            createToolPlanTool({
              tools,
              clock,
              maxConcurrency: options.maxConcurrency ?? 8,
              ...(onEvent === undefined ? {} : { onEvent }),
              onPlanResult: (result, toolCallId) => planResults.push({ toolCallId, result }),
            }),
          ]),
        )
      : tools;
  const startedAt = clock.now();
  const result = await runAgent({
    model: options.model,
    tools: registry,
    planner:
      mode === 'react'
        ? createReActPlanner()
        : createFunctionCallingPlanner(
            options.maxParallelToolCalls === undefined
              ? {}
              : { maxParallelToolCalls: options.maxParallelToolCalls },
          ),
    ...(options.toolChoice === undefined ? {} : { toolChoice: options.toolChoice }),
    systemPrompt: task.systemPrompt,
    task: task.prompt,
    clock,
    maxSteps: options.maxSteps ?? task.calls.length + 3,
    maxConcurrency: options.maxConcurrency ?? 8,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    onEvent: (event) => {
      options.runListener?.(event);
      if (event.type === 'tool-call-started' && event.action.toolName === TOOL_PLAN_TOOL_NAME) {
        planArguments.set(event.action.id, event.action.args);
      }
      // Plan steps reach `onEvent` straight from the plan executor (above). The loop may also surface them from
      // the plan tool's progress reports; dropping those here shows each step once whichever way it arrives.
      if (
        event.type !== 'tool-call-progress' &&
        event.type !== 'plan-step-started' &&
        event.type !== 'plan-step-finished'
      ) {
        onEvent?.(event);
      }
    },
  });
  const wallTimeMs = clock.now() - startedAt;
  const plans = planResults.map(({ toolCallId, result: planResult }, index) =>
    buildPlanTimeline(
      `${task.title}: plan ${index + 1} (${MODE_LABELS[mode]})`,
      planResult,
      planArguments.get(toolCallId),
    ),
  );
  return {
    task,
    mode,
    result,
    wallTimeMs,
    plans,
    ...(connected === undefined
      ? {}
      : { connectedTools: { source: connected.source, realCallTimesMs: connected.realCallTimesMs() } }),
  };
}
