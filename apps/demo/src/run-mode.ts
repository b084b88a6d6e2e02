import { createCodeModeTool } from '@org/code-mode';
import type { LanguageModel, RunEvent, ToolChoice } from '@org/core';
import { createToolPlanTool } from '@org/plan-executor';
import { type AgentResult, createFunctionCallingPlanner, createReActPlanner, runAgent } from '@org/planner';
import { ToolRegistry } from '@org/tools';
import type { ConnectedTools, DemoTask, ToolClock } from './demo-task.js';
import type { PlanTimeline } from './plan-timeline.js';
import { buildRunTimeline, type RunTimeline } from './run-timeline.js';

/** The four ways the demo runs a task. */
export type Mode = 'react' | 'native' | 'plan' | 'code';

/**
 * Every mode, in the order the demo runs and prints them.
 *
 * @example
 * for (const mode of MODES) await runTaskInMode(task, mode, { model: models[mode], clock });
 */
export const MODES: readonly Mode[] = ['react', 'native', 'plan', 'code'];

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
  code: 'code mode',
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
  /** Planning steps before the run stops. Default: the task's `maxSteps`, else its calls + 3. */
  readonly maxSteps?: number;
  readonly signal?: AbortSignal;
  /** Default `auto`. */
  readonly toolChoice?: ToolChoice;
  /** Native function calling: calls accepted from one model answer (`1` also turns parallel calls off). */
  readonly maxParallelToolCalls?: number;
  /**
   * Start calls of `eager` tools as soon as they are complete in the model's stream (`runAgent`'s
   * `eagerToolExecution`). Default true; `false` waits for each whole answer, for comparison.
   */
  readonly eagerToolExecution?: boolean;
}

/** How a run got its typed answer: the loop asks a model for it in one of three ways. */
export type TypedOutputRoute = 'final_answer tool' | 'native structured output' | 'ReAct prompt';

/** A run's typed final answer (a task with `output`). */
export interface TypedOutput {
  /** The schema's name (`OrdersReport`). */
  readonly name: string;
  /** `result.output`: parsed and validated against the schema. */
  readonly value: unknown;
  readonly route: TypedOutputRoute;
}

/** The outcome of one task in one mode. */
export interface ModeRun {
  readonly task: DemoTask;
  readonly mode: Mode;
  readonly result: AgentResult;
  /**
   * The final answer as the report says it (a typed answer in its task's words), or `undefined` when the run ended
   * without one.
   */
  readonly answer: string | undefined;
  /** For a task with `output`, when the run reached it. */
  readonly typedOutput?: TypedOutput;
  /** On the run's clock: simulated milliseconds on a virtual clock, real ones otherwise. */
  readonly wallTimeMs: number;
  /** The run against time, from its events: model calls (with their time to first token), tool calls, plan steps. */
  readonly timeline: RunTimeline;
  /** One timeline per `execute_tool_plan` call (plan mode) or `run_code` call (code mode): `timeline.plans`. */
  readonly plans: readonly PlanTimeline[];
  /**
   * For a task whose tools are connected (`connectTools`, an MCP server): where they ran and the measured real
   * duration of each call, which `wallTimeMs` includes (on a virtual clock too, where the model's time is simulated).
   */
  readonly connectedTools?: { readonly source: string; readonly realCallTimesMs: readonly number[] };
}

/**
 * Runs a task in one mode: ReAct (the ReAct planner, decisions as text), native function calling (the
 * function-calling planner, parallel calls), plan mode (the function-calling planner with `execute_tool_plan`
 * offered beside the tools) or code mode (`run_code` of `@org/code-mode` offered beside them: one program). The model's answers stream; `eager` tools start as soon as their calls are complete in
 * the stream. A task with `output` ends with a typed, validated answer. The run's events are kept as its timeline.
 * A task with `connectTools` (an MCP server) is connected first and closed after the run, also when it fails or is
 * aborted.
 *
 * @example
 * const clock = createVirtualClock();
 * const model = createOfflineModel(weatherTask, 'plan', { clock, latency: LATENCY_PROFILES.typical });
 * const run = await runTaskInMode(weatherTask, 'plan', { model, clock });
 * console.log(run.answer, run.result.roundTrips, run.wallTimeMs, run.timeline.modelCalls);
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
  const events: RunEvent[] = [];
  // The plan tool reports its steps to the loop, which delivers them as plan-step events (each naming its plan):
  // the demo reads them there, whether the steps start after the plan is complete or while it streams. The code
  // tool reports each call of its program as its progress (a tool-call event inside).
  const maxConcurrency = options.maxConcurrency ?? 8;
  const registry =
    mode === 'plan'
      ? ToolRegistry.compose(tools, new ToolRegistry([createToolPlanTool({ tools, clock, maxConcurrency })]))
      : mode === 'code'
        ? ToolRegistry.compose(
            tools,
            new ToolRegistry([createCodeModeTool({ tools, maxConcurrency, besideNativeTools: true })]),
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
    maxSteps: options.maxSteps ?? task.maxSteps ?? task.calls.length + 3,
    maxConcurrency: options.maxConcurrency ?? 8,
    ...(options.eagerToolExecution === undefined ? {} : { eagerToolExecution: options.eagerToolExecution }),
    ...(task.output === undefined ? {} : { output: task.output.schema }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    onEvent: (event) => {
      options.runListener?.(event);
      if (event.type === 'tool-call-progress') {
        // The plan steps' progress reports arrive again as the plan-step events they carry; a program's calls
        // arrive only as its progress: kept for the timeline, and shown live as the calls they are.
        const nested = event.progress as RunEvent;
        if (nested.type !== 'tool-call-started' && nested.type !== 'tool-call-finished') return;
        events.push(event);
        onEvent?.({ ...nested, timestamp: event.timestamp });
        return;
      }
      events.push(event);
      onEvent?.(event);
    },
  });
  const wallTimeMs = clock.now() - startedAt;
  const timeline = buildRunTimeline(`${task.title} (${MODE_LABELS[mode]})`, events, { origin: startedAt });
  const answered = result.finishReason === 'final-answer' || result.finishReason === 'terminal-tool';
  const typedOutput =
    task.output === undefined || result.output === undefined
      ? undefined
      : { name: task.output.name, value: result.output, route: typedOutputRoute(mode, options.model) };
  return {
    task,
    mode,
    result,
    answer: !answered
      ? undefined
      : typedOutput === undefined
        ? result.text
        : task.output?.summarize(typedOutput.value),
    ...(typedOutput === undefined ? {} : { typedOutput }),
    wallTimeMs,
    timeline,
    plans: timeline.plans,
    ...(connected === undefined
      ? {}
      : { connectedTools: { source: connected.source, realCallTimesMs: connected.realCallTimesMs() } }),
  };
}

/** The way the loop asks a model for a typed answer (see `AgentOptions.output` of `@org/planner`). */
function typedOutputRoute(mode: Mode, model: LanguageModel): TypedOutputRoute {
  if (mode === 'react') return 'ReAct prompt';
  return model.capabilities.structuredOutput === true ? 'native structured output' : 'final_answer tool';
}
