import {
  type Clock,
  createScriptedModel,
  createTaskScripts,
  type LatencyProfile,
  type ScriptedModel,
  type ScriptFunction,
} from '@org/provider-scripted';
import type { DemoTask } from './demo-task.js';
import type { Mode } from './run-mode.js';

/** The tool `runAgent({ output })` offers for the typed answer when the model has no native structured output. */
const FINAL_ANSWER_TOOL = /^final_answer(?:_\d+)?$/;

/**
 * A script whose final text answer is sent in the form the request asks for: as the arguments of the `final_answer`
 * tool when the request offers it (the loop's way to a typed answer on a model without native structured output),
 * as text otherwise (a native `responseFormat`, a ReAct decision, a run without `output`). Its tool calls pass as
 * they are.
 *
 * @example
 * createScriptedModel({ script: answerAsRequested(createTaskScripts(ordersTask).native) });
 */
export function answerAsRequested(script: ScriptFunction): ScriptFunction {
  return async (request, context) => {
    const turn = await script(request, context);
    if (turn?.text === undefined || (turn.toolCalls ?? []).length > 0) return turn;
    if (request.responseFormat !== undefined) return turn;
    const finalAnswer = request.tools?.findLast((tool) => FINAL_ANSWER_TOOL.test(tool.name));
    if (finalAnswer === undefined) return turn;
    return { toolCalls: [{ toolName: finalAnswer.name, arguments: turn.text }] };
  };
}

/** Options of {@link createOfflineModel}. */
export interface OfflineModelOptions {
  readonly clock: Clock;
  readonly latency: LatencyProfile;
  /**
   * Declare native structured output, so a task with `output` is asked for it with a `responseFormat` and answers
   * with the JSON text. Default false: the run offers the `final_answer` tool and the model calls it.
   */
  readonly structuredOutput?: boolean;
}

/**
 * The scripted model that runs a task offline in one mode, as a model that understood the task would: the task's
 * scripts (`createTaskScripts`), streaming at the latency profile's rate on `clock`, ReAct-only (no native tools) in
 * ReAct mode. A task with a typed answer gets it in the form the run asks for (see {@link answerAsRequested}).
 *
 * @example
 * const clock = createVirtualClock();
 * const model = createOfflineModel(ordersTask, 'plan', { clock, latency: LATENCY_PROFILES.typical });
 * const run = await runTaskInMode(ordersTask, 'plan', { model, clock });
 */
export function createOfflineModel(task: DemoTask, mode: Mode, options: OfflineModelOptions): ScriptedModel {
  const script = createTaskScripts({
    calls: task.calls,
    answer: task.answer,
    ...(task.outputSteps === undefined ? {} : { outputSteps: task.outputSteps }),
    ...(task.aggregates === undefined ? {} : { aggregates: task.aggregates }),
  })[mode];
  return createScriptedModel({
    script: task.output === undefined ? script : answerAsRequested(script),
    clock: options.clock,
    latency: options.latency,
    capabilities: {
      ...(mode === 'react' ? { toolCalls: false } : {}),
      ...(options.structuredOutput === true ? { structuredOutput: true } : {}),
    },
  });
}
