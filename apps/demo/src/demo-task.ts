import type { TaskAggregate, TaskCall, TaskOutputs } from '@org/provider-scripted';
import type { ToolRegistry } from '@org/tools';
import type { TaskOutput } from './task-output.js';

/** What the demo's tools need of a clock: simulated work sleeps on it (a virtual clock, or real timers). */
export interface ToolClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * Tools that live outside the process (an MCP server over stdio), opened for one run and closed after it.
 *
 * @example
 * const connected = await memoryTask.connectTools(clock);
 * try {
 *   await runAgent({ model, tools: connected.tools, planner, task: memoryTask.prompt });
 * } finally {
 *   await connected.close();
 * }
 */
export interface ConnectedTools {
  readonly tools: ToolRegistry;
  /** Where the tools run, for the report (`MCP server-memory over stdio`). */
  readonly source: string;
  /**
   * The measured real duration of each call so far (milliseconds, in the order they finished). These tools do real
   * I/O, so their time on the run's clock is this measurement, also on a virtual clock.
   */
  realCallTimesMs(): readonly number[];
  /** Stops the server and removes what the connection created; safe to call twice. */
  close(): Promise<void>;
}

/** What every task describes, whichever way its tools are made (see {@link DemoTask}). */
export interface DemoTaskDefinition {
  /** Short id used on the command line (`--task weather`). */
  readonly id: string;
  readonly title: string;
  /** What the task shows. */
  readonly summary: string;
  readonly systemPrompt: string;
  /** The user's request. */
  readonly prompt: string;
  /** The calls an informed model makes; `$ref:<id>.<field>` stands for an earlier call's output. */
  readonly calls: readonly TaskCall[];
  /**
   * Values the model computes from the outputs with no tool (a filter, a sum): in its head after native calls or a
   * plan, in the program in code mode. The answer reads them by id.
   */
  readonly aggregates?: readonly TaskAggregate[];
  /** Planning steps before a run stops; default the task's calls + 3 (a fan-out makes more: set it). */
  readonly maxSteps?: number;
  /** The steps a plan returns to the model; default: the calls no other call references. */
  readonly outputSteps?: readonly string[];
  /**
   * The final answer, computed from what the model observed (so it quotes the real tool outputs). For a task with
   * `output`, the answer's JSON text (the offline model sends it as its final answer in the form the run asks for).
   */
  readonly answer: (observed: TaskOutputs) => string;
  /**
   * A typed final answer: the run is given `output: schema` and ends with `result.output` validated against it
   * (native structured output where the model declares it, else a terminal `final_answer` tool call).
   */
  readonly output?: TaskOutput;
}

/**
 * A realistic task, described once and run in every mode: the prompt a user would write, the tools, and the calls
 * a model that understood the task would make (with `$ref` dependencies), from which `@org/provider-scripted`'s
 * `createTaskScripts` derives what the offline model answers in ReAct, native function calling and plan mode.
 * Benchmarks import these definitions to compare the modes on the same tasks.
 *
 * The tools come from `createTools` (in process, each spending its simulated latency on the clock) or, for tools
 * behind a connection such as an MCP server, from `connectTools`, awaited before the run and closed after it.
 *
 * @example
 * import { DEMO_TASKS } from '@org/demo';
 * const weather = DEMO_TASKS.find((task) => task.id === 'weather');
 */
export type DemoTask = DemoTaskDefinition &
  (
    | {
        /** The tools, each spending its simulated latency on `clock`. */
        readonly createTools: (clock: ToolClock) => ToolRegistry;
        readonly connectTools?: never;
      }
    | {
        /** Opens the tools for one run (starts the server); the caller closes them, also when the run fails. */
        readonly connectTools: (clock: ToolClock) => Promise<ConnectedTools>;
        readonly createTools?: never;
      }
  );
