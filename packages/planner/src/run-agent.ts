import type { ZodSchema } from '@org/tools';
import type { output as ZodOutput } from 'zod';
import { executeRun } from './agent-loop.js';
import type { AgentOptions, AgentResult } from './agent-types.js';

/**
 * Runs the agent loop: plan (one model call, or more for ReAct retries) → execute the actions in parallel
 * through `@org/tools` → observe, until a final answer, a terminal tool, `maxSteps`, a `stopWhen` condition, the
 * loop guard, an abort, or a tool that needs approval (the result then carries a `state` to resume from).
 *
 * Invalid options throw `InvalidAgentOptionsError` before any model call; after that the promise always resolves:
 * a provider error, an abort or an unreadable decision ends the run with `finishReason` `error` / `aborted` and
 * the `error`. Every tool call in `messages` is answered by exactly one result, whatever happened to it.
 *
 * @example
 * const result = await runAgent({
 *   model,
 *   tools: new ToolRegistry([getWeather]),
 *   planner: createFunctionCallingPlanner(),
 *   task: 'Is it warmer in Paris or Rome?',
 *   onEvent: (event) => console.log(event.type),
 * });
 * console.log(result.text, result.usage, result.toolStats);
 */
export function runAgent<Schema extends ZodSchema>(
  options: AgentOptions & { readonly output: Schema },
): Promise<AgentResult<ZodOutput<Schema>>>;
export function runAgent(options: AgentOptions): Promise<AgentResult>;
export function runAgent(options: AgentOptions): Promise<AgentResult> {
  return executeRun(options);
}
