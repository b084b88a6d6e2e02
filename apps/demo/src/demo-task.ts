import type { TaskCall, TaskOutputs } from '@org/provider-scripted';
import type { ToolRegistry } from '@org/tools';

/** What the demo's tools need of a clock: simulated work sleeps on it (a virtual clock, or real timers). */
export interface ToolClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * A realistic task, described once and run in every mode: the prompt a user would write, the tools, and the calls
 * a model that understood the task would make (with `$ref` dependencies), from which `@org/provider-scripted`'s
 * `createTaskScripts` derives what the offline model answers in ReAct, native function calling and plan mode.
 * Benchmarks import these definitions to compare the modes on the same tasks.
 *
 * @example
 * import { DEMO_TASKS } from '@org/demo';
 * const weather = DEMO_TASKS.find((task) => task.id === 'weather');
 */
export interface DemoTask {
  /** Short id used on the command line (`--task weather`). */
  readonly id: string;
  readonly title: string;
  /** What the task shows. */
  readonly summary: string;
  readonly systemPrompt: string;
  /** The user's request. */
  readonly prompt: string;
  /** The tools, each spending its simulated latency on `clock`. */
  readonly createTools: (clock: ToolClock) => ToolRegistry;
  /** The calls an informed model makes; `$ref:<id>.<field>` stands for an earlier call's output. */
  readonly calls: readonly TaskCall[];
  /** The steps a plan returns to the model; default: the calls no other call references. */
  readonly outputSteps?: readonly string[];
  /** The final answer, computed from what the model observed (so it quotes the real tool outputs). */
  readonly answer: (observed: TaskOutputs) => string;
}
