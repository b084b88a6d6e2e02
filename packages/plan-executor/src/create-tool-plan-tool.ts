import { combineListeners, type JsonSchema, type RunEvent, type RunEventListener } from '@org/core';
import {
  defineTool,
  InvalidToolOptionError,
  ownWorkDeadline,
  type Tool,
  type ToolExecutionContext,
  type ToolMediaPart,
  type ToolOutputWithContent,
  ToolRegistry,
  withContent,
} from '@org/tools';
import { systemClock } from './clock.js';
import { describeOutputs } from './describe-outputs.js';
import { checkPlanOptions, type ExecutePlanOptions, startPlan } from './execute-plan.js';
import { formatPlanResult } from './format-plan-result.js';
import { createInProcessStepRunner } from './in-process-step-runner.js';
import { TOOL_PLAN_TOOL_NAME } from './plan.js';
import { PlanOptionsError } from './plan-options-error.js';
import type { PlanResult } from './plan-result.js';
import type { StepRunner } from './step-runner.js';
import { StreamingPlan } from './streaming-plan.js';

/** Options of {@link createToolPlanTool}. */
export interface ToolPlanToolOptions
  extends Omit<ExecutePlanOptions, 'signal' | 'actionIdPrefix' | 'planId' | 'tools'> {
  /**
   * The tools plan steps may call (the plan tool itself is never one of them): a registry, or tools in an array, as
   * `runAgent` takes them.
   */
  readonly tools: ToolRegistry | Iterable<Tool>;
  /** Receives the full result of each plan, with raw outputs, before it is summarised for the model. */
  readonly onPlanResult?: (result: PlanResult, toolCallId: string) => void;
  /**
   * Replaces the default description ({@link TOOL_PLAN_DESCRIPTION} followed by the output fields of the tools that
   * declare an output schema, named as the model sees them).
   */
  readonly description?: string;
  /**
   * Whether the default description lists the output fields of tools that declare an output schema (compactly:
   * `get_weather {city, temperature}`), so the model writes `$ref` paths that exist instead of guessing. Default true.
   */
  readonly describeOutputs?: boolean;
  /**
   * Runs each step. Default: in process, as the plan call itself is run (`context.executeNested` of `@org/tools`):
   * the hooks, injected values, per-call deadline and output budget of whoever runs the plan tool (`runAgent`,
   * `executeAction`) apply to every step, so a `beforeToolUse` guard sees each step's call.
   */
  readonly runner?: StepRunner;
}

/**
 * The description a model reads: the steps-object form, references, failure rules and what comes back, in about 80
 * tokens (the schema gives the rest; the benchmark prints the exact count of both). It teaches the cheapest form a
 * model writes reliably (docs/plan-mode.md has the measurements); the list form `[{id, tool, arguments}]` is
 * accepted too. It holds no double quotes: a provider receives it inside JSON, where each one costs an escape. Extend
 * it rather than replace it when your tools need more guidance.
 *
 * @example
 * createToolPlanTool({ tools, description: `${TOOL_PLAN_DESCRIPTION} Prefer one plan over many single calls.` });
 */
export const TOOL_PLAN_DESCRIPTION =
  "Runs tool calls as steps in one go, in parallel unless a step uses another's result. " +
  "steps: {ID: {TOOL: ARGS}}; in ARGS, $ID is step ID's output and $ID.key.0 a part of it, also inside text " +
  '($$ for $). Steps using a failed step are skipped. ' +
  'Returns the results of steps no step uses, or of output_steps: [ID].';

// Every token here is paid on each request that offers the tool: the description teaches the shape, and the schema
// only says what it must be. Both forms of `steps` pass (the object the description teaches, and the list); the plan
// reader checks each step, with messages that say how to fix it.
function inputSchema(): JsonSchema {
  return {
    type: 'object',
    properties: {
      steps: { type: ['object', 'array'] },
      output_steps: { type: 'array', items: { type: 'string' } },
    },
    required: ['steps'],
  };
}

/**
 * The `execute_tool_plan` tool: a planner offers it beside the ordinary tools, the model answers with a whole
 * plan in one call, and the tool validates and runs it with {@link executePlan}, returning
 * {@link formatPlanResult}. An invalid plan fails the call with every problem listed, so the model can fix
 * them all at once. The call's abort signal aborts the plan.
 *
 * @example
 * const tools = new ToolRegistry([getWeather, sendMessage]);
 * const agentTools = new ToolRegistry([...tools.list(), createToolPlanTool({ tools, maxConcurrency: 4 })]);
 */
export function createToolPlanTool(options: ToolPlanToolOptions): Tool {
  const {
    onPlanResult,
    description,
    runner,
    describeOutputs: withOutputs,
    tools: givenTools,
    ...rest
  } = options;
  const tools = toolsOption(givenTools);
  // Checked now, so a bad timeout or limit fails where the tool is made, not at the model's first plan.
  const checked = checkPlanOptions(rest);
  const executeOptions: ExecutePlanOptions = { ...rest, tools };
  const outputs = description === undefined && withOutputs !== false ? describeOutputs(tools) : '';

  const clock = executeOptions.clock ?? systemClock;
  /**
   * The plan's deadline for this call: its own `timeoutMs`, or a little before the call's deadline when that comes
   * first. The time on the plan's clock is counted from the call's deadline itself (`context.deadlineAt`), so a pause
   * before the plan starts cannot move its end past the call's; `timeoutMs` is what the result reports.
   */
  const deadlineFor = (context: ToolExecutionContext): { at: number; timeoutMs: number } | undefined => {
    const now = clock.now();
    const own =
      checked.timeoutMs === undefined
        ? undefined
        : { at: now + checked.timeoutMs, timeoutMs: checked.timeoutMs };
    const call = ownWorkDeadline(context);
    if (call === undefined) return own;
    // Read after the clock, so that a pause between the two readings moves the plan's end earlier, never later.
    const left = call.endsAt === undefined ? call.timeoutMs : call.endsAt - performance.now();
    const fromCall = { at: now + left, timeoutMs: call.timeoutMs };
    return own === undefined || fromCall.at < own.at ? fromCall : own;
  };
  const listenerFor = (context: ToolExecutionContext): RunEventListener =>
    // The user's listeners first, isolated, so a throwing one never costs the call its progress.
    combineListeners(checked.onEvent, (event: RunEvent): void => context.reportProgress(event));
  const answer = (
    result: PlanResult,
    context: ToolExecutionContext,
  ): string | ToolOutputWithContent<string> => {
    onPlanResult?.(result, context.toolCallId);
    // Fitted to the call's output budget, so that no cut after this one can hide a failure.
    const text = formatPlanResult(
      result,
      context.outputBudgetBytes === undefined ? {} : { budgetBytes: context.outputBudgetBytes },
    );
    // Images and files the output steps returned (`withContent`) reach the model with the plan's result.
    const media = outputMedia(result);
    return media.length === 0 ? text : withContent(text, media);
  };

  return defineTool({
    name: TOOL_PLAN_TOOL_NAME,
    description:
      description ?? (outputs === '' ? TOOL_PLAN_DESCRIPTION : `${TOOL_PLAN_DESCRIPTION} ${outputs}`),
    input: inputSchema(),
    // Step arguments are free-form objects, which strict mode cannot express: never sent strict, and that is a
    // property of the tool, not an adjustment to report on every request.
    strict: false,
    nestedTools: executeOptions.tools,
    // A plan may start before the model's answer is complete only when none of its steps could be regretted: every
    // tool it may call is eager and needs no approval (the registry as it is now; register tools first).
    eager: tools.list().every((tool) => tool.eager && tool.needsApproval === false),
    execute: async (args: Record<string, unknown>, context) => {
      const deadline = deadlineFor(context);
      const result = await startPlan(
        args,
        {
          ...executeOptions,
          ...(deadline === undefined ? {} : { timeoutMs: deadline.timeoutMs }),
          runner: runner ?? nestedRunner(context, executeOptions.tools),
          onEvent: listenerFor(context),
          signal: context.signal,
          actionIdPrefix: `${context.toolCallId}/`,
          planId: context.toolCallId,
        },
        deadline?.at,
      );
      return answer(result, context);
    },
    // While the model writes the plan: each step is added the moment its object is complete; steps of eager tools
    // start as soon as their inputs are ready, the others once the whole plan is known (`input.arguments`).
    executeStreaming: async (input, context) => {
      const deadline = deadlineFor(context);
      const plan = new StreamingPlan({
        tools,
        runner: runner ?? nestedRunner(context, tools),
        clock,
        maxConcurrency: checked.maxConcurrency,
        stepTimeoutMs: checked.stepTimeoutMs,
        onEvent: listenerFor(context),
        actionIdPrefix: `${context.toolCallId}/`,
        signal: context.signal,
        approveStep: executeOptions.approveStep,
        planId: context.toolCallId,
        deadline: deadline?.at,
        timeoutMs: deadline?.timeoutMs,
        limits: checked.limits,
      });
      try {
        for await (const fragment of input) plan.write(fragment);
      } catch {
        // The call will not run as written: `input.arguments` rejects with the reason, and the call's signal has
        // stopped the plan.
      }
      const args = await input.arguments;
      return answer(await plan.finish(args), context);
    },
  });
}

/** The `tools` option as a registry; anything else is a `PlanOptionsError` naming the option. */
function toolsOption(tools: ToolRegistry | Iterable<Tool>): ToolRegistry {
  try {
    return ToolRegistry.from(tools, 'tools');
  } catch (error) {
    if (!InvalidToolOptionError.isInstance(error)) throw error;
    throw new PlanOptionsError({
      option: 'tools',
      value: tools,
      expected: 'a ToolRegistry or an array of tools',
    });
  }
}

/**
 * Runs each step as the plan call is run (`context.executeNested`). The executor already validated the step's
 * arguments and decided its approval, so neither is repeated. A context built by hand, without `executeNested`
 * (a test calling `execute` directly), gets the plain in-process runner.
 */
function nestedRunner(context: ToolExecutionContext, tools: ToolRegistry): StepRunner {
  if (typeof context.executeNested !== 'function') return createInProcessStepRunner(tools);
  return {
    run: ({ action, signal }) => context.executeNested(action, { signal, validate: false, approved: true }),
  };
}

/** The images and files the plan's output steps returned, in step order. */
function outputMedia(result: PlanResult): ToolMediaPart[] {
  const outputs = new Set(result.outputStepIds);
  return result.steps.flatMap((step) => {
    if (!outputs.has(step.id)) return [];
    const observation = step.observation as { readonly content?: readonly ToolMediaPart[] } | undefined;
    return observation?.content === undefined ? [] : [...observation.content];
  });
}
