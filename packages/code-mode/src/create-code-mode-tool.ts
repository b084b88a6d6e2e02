import {
  combineListeners,
  errorMessageOf,
  type JsonSchema,
  limitValueProblem,
  type RunEventListener,
} from '@org/core';
import {
  defineTool,
  executeAction,
  ownWorkDeadline,
  type Tool,
  type ToolExecutionContext,
  type ToolRegistry,
} from '@org/tools';
import { type CodeLimits, resolveCodeLimits } from './code-limits.js';
import type { CodeResult } from './code-result.js';
import { declareTools } from './declare-tools.js';
import { type EarlyCallStarter, EarlyCalls } from './early-calls.js';
import { CodeModeOptionsError } from './errors.js';
import { formatCodeResult } from './format-code-result.js';
import { PrefixRuns } from './prefix-runs.js';
import {
  type CodeCallExecutor,
  maxConcurrencyOption,
  type RunCodeOptions,
  runCode,
  runCodeBy,
  toolsOption,
} from './run-code.js';
import { warmSandboxForProgram } from './sandbox-pool.js';
import { StreamedProgram } from './streamed-program.js';
import { warmTypeStripper } from './strip-types.js';

/** The name of the code tool as the model sees it. */
export const CODE_MODE_TOOL_NAME = 'run_code';

/**
 * The rules the model reads before the declarations: short, since every token is paid on each request that offers
 * the tool. No double quotes (each costs an escape inside a provider's JSON).
 */
export const CODE_MODE_RULES =
  'Runs TypeScript, an async function body calling the functions below: await, Promise.all for independent ' +
  'calls, return the JSON the answer needs. No network, files or timers; console.log is returned.';

/**
 * What the rules add when the tools are also offered as native tools ({@link CodeModeToolOptions.besideNativeTools}):
 * the model reads each tool's description in its own spec, so the declarations do not repeat it.
 */
const BESIDE_NATIVE_TOOLS = ' Each function is the tool of that name.';

/** Options of {@link createCodeModeTool}. */
export interface CodeModeToolOptions
  extends Omit<RunCodeOptions, 'tools' | 'signal' | 'actionIdPrefix' | 'earlyCalls' | 'callOptions'> {
  /** The tools programs may call (the code tool itself is never one of them). */
  readonly tools: ToolRegistry | Iterable<Tool>;
  /** Receives each program's full result, with raw outputs, before it is summarised for the model. */
  readonly onCodeResult?: (result: CodeResult, toolCallId: string) => void;
  /** Replaces the default description ({@link CODE_MODE_RULES} followed by the tools' declarations). */
  readonly description?: string;
  /**
   * The same tools are offered to the model as native tools beside the code tool (as plan mode's tool relies on):
   * their descriptions are in their own specs, so the declarations leave them out and the rules say each function
   * is the tool of its name. Default false: every declaration carries its tool's description as a comment.
   */
  readonly besideNativeTools?: boolean;
  /** The tool's name. Default {@link CODE_MODE_TOOL_NAME}. */
  readonly name?: string;
  /**
   * Speculative prefix runs per streamed program (see the Streaming section of docs/code-mode.md): each time a
   * top-level statement closes while the model writes, the statements so far run in a fresh sandbox where only
   * eager, approval-free calls start (as early calls the final program takes over) and every other call waits, so a
   * call that reads an earlier result starts before the answer ends. Default {@link DEFAULT_MAX_PREFIX_RUNS}; 0 turns
   * them off. Never used when the answer is read whole (`execute`, durable runs).
   */
  readonly maxPrefixRuns?: number;
}

/** Speculative prefix runs per streamed program unless {@link CodeModeToolOptions.maxPrefixRuns} says otherwise. */
export const DEFAULT_MAX_PREFIX_RUNS = 32;

function inputSchema(): JsonSchema {
  return {
    type: 'object',
    properties: { code: { type: 'string' } },
    required: ['code'],
    additionalProperties: false,
  };
}

/**
 * The code tool (`run_code`): a planner offers it beside the ordinary tools (and beside `execute_tool_plan`), the
 * model answers with one program, and the tool runs it with {@link runCode}, returning {@link formatCodeResult}.
 * Each call of the program runs as the code call itself is run (`context.executeNested` of `@org/tools`): the hooks,
 * injected values, per-call deadline and output budget of whoever runs the code tool (`runAgent`, `executeAction`)
 * apply to every call, and each call's events reach the caller as the code call's progress (their parent).
 *
 * @example
 * const tools = new ToolRegistry([listOrders, getOrder]);
 * const agentTools = [...tools.list(), createCodeModeTool({ tools }), createToolPlanTool({ tools })];
 * await runAgent({ model, tools: agentTools, task: 'Total of the unpaid orders?' });
 */
export function createCodeModeTool(options: CodeModeToolOptions): Tool {
  const {
    onCodeResult,
    description,
    name,
    besideNativeTools,
    maxPrefixRuns: givenMaxPrefixRuns,
    tools: givenTools,
    ...rest
  } = options;
  const tools = toolsOption(givenTools);
  // Checked now, so a bad limit fails where the tool is made, not at the model's first program.
  const limits: CodeLimits = resolveCodeLimits(rest.limits);

  // Isolated: a throwing listener of the application must not cost the call's progress reports (or its calls).
  const listenerFor = (context: ToolExecutionContext): RunEventListener =>
    combineListeners(rest.onEvent, (event) => context.reportProgress(event));
  const executorFor = (context: ToolExecutionContext): CodeCallExecutor | undefined => {
    if (rest.executeCall !== undefined) return rest.executeCall;
    // A context built by hand (a test calling `execute` directly) has no nested runner: runCode's default then runs
    // the call in process.
    if (typeof context.executeNested !== 'function') return undefined;
    return (action, { signal, onEvent }) =>
      // runCode validated and coerced the arguments and decided approval (refused, or `approveCall`) on them: they
      // run as they are (validating again would apply a schema's transforms twice).
      context.executeNested(action, {
        signal,
        validate: false,
        approved: true,
        ...(onEvent === undefined ? {} : { onEvent }),
      });
  };

  // Only eager tools that never need approval may start while the program is still being written.
  const eagerFunctions = new Map(
    declareTools(tools)
      .functions.filter(({ toolName }) => {
        const tool = tools.get(toolName);
        return tool?.eager === true && tool.needsApproval === false;
      })
      .map(({ identifier, toolName }) => [identifier, toolName] as const),
  );
  const maxConcurrency = maxConcurrencyOption(rest.maxConcurrency);
  const maxPrefixRuns = givenMaxPrefixRuns ?? DEFAULT_MAX_PREFIX_RUNS;
  const prefixRunsProblem = limitValueProblem(maxPrefixRuns, { minimum: 0 });
  if (prefixRunsProblem !== undefined)
    throw new CodeModeOptionsError({
      option: 'maxPrefixRuns',
      value: givenMaxPrefixRuns,
      problem: prefixRunsProblem,
    });

  const run = async (
    args: Record<string, unknown>,
    context: ToolExecutionContext,
    earlyCalls: EarlyCalls | undefined,
  ): Promise<string> => {
    const deadline = ownWorkDeadline(context);
    const wallTimeMs =
      deadline === undefined
        ? limits.wallTimeMs
        : Math.min(limits.wallTimeMs, Math.max(1, Math.floor(deadline.timeoutMs)));
    const executeCall = executorFor(context);
    const options: RunCodeOptions = {
      ...rest,
      tools,
      limits: { ...limits, wallTimeMs },
      signal: context.signal,
      onEvent: listenerFor(context),
      actionIdPrefix: `${context.toolCallId}/`,
      ...(executeCall === undefined ? {} : { executeCall }),
      ...(earlyCalls === undefined ? {} : { earlyCalls }),
    };
    // The program ends a little before the call's own deadline, counted from when the call's timer started, not from
    // its own start: stripping types and starting a sandbox take time inside the call's.
    const result =
      deadline?.endsAt === undefined
        ? await runCode(String(args.code), options)
        : await runCodeBy(String(args.code), options, deadline.endsAt);
    onCodeResult?.(result, context.toolCallId);
    // Fitted to the call's output budget, so that no later cut can hide a failure. A failed program is still a
    // result (its status says so, with the calls that took effect), as a failed plan is.
    return formatCodeResult(
      result,
      context.outputBudgetBytes === undefined ? {} : { budgetBytes: context.outputBudgetBytes },
    );
  };

  return defineTool({
    name: name ?? CODE_MODE_TOOL_NAME,
    description:
      description ??
      (besideNativeTools === true
        ? `${CODE_MODE_RULES}${BESIDE_NATIVE_TOOLS}\n${declareTools(tools, { descriptions: false }).declarations}`
        : `${CODE_MODE_RULES}\n${declareTools(tools).declarations}`),
    input: inputSchema(),
    nestedTools: tools,
    // A whole program may start before the model's answer is complete only when none of its calls could be
    // regretted: every tool it may call is eager and needs no approval (as the plan tool decides).
    eager: tools.list().every((tool) => tool.eager && tool.needsApproval === false),
    execute: (args: Record<string, unknown>, context) => run(args, context, undefined),
    // While the model writes the program: each call of an eager tool with a complete literal argument starts at
    // once; the program, read strictly from the complete arguments, takes the result when it makes an equal call.
    executeStreaming: async (input, context) => {
      // The program is on its way: its worker starts (and the type stripper warms up) while the model writes it.
      warmSandboxForProgram();
      warmTypeStripper();
      const earlyCalls = new EarlyCalls(
        earlyStarter(context, listenerFor(context), rest.executeCall, tools),
        `${context.toolCallId}/early-`,
        maxConcurrency,
        limits.maxToolCalls,
      );
      // Each closed statement runs speculatively: a call reading an earlier result starts as soon as it is written.
      const prefixRuns = new PrefixRuns({
        tools,
        limits,
        maxConcurrency,
        maxRuns: maxPrefixRuns,
        earlyCalls,
        signal: context.signal,
      });
      const reader = new StreamedProgram(
        eagerFunctions,
        (toolName, args) => earlyCalls.offer(toolName, args),
        maxPrefixRuns === 0 ? undefined : (prefix) => prefixRuns.run(prefix),
      );
      try {
        for await (const fragment of input) reader.write(fragment);
      } catch {
        // The call will not run as written: `input.arguments` rejects with the reason.
      }
      // The answer is complete: the final program runs; the early calls of the prefix runs wait for it in the pool.
      const prefixRunsEnded = prefixRuns.stop();
      let args: Record<string, unknown>;
      try {
        args = await input.arguments;
      } catch (error) {
        await prefixRunsEnded;
        await earlyCalls.drain();
        throw error;
      }
      try {
        return await run(args, context, earlyCalls);
      } finally {
        await prefixRunsEnded;
      }
    },
  });
}

/** How an early call runs: as the program's own calls do (nested under the code call), with its own signal. */
function earlyStarter(
  context: ToolExecutionContext,
  onEvent: RunEventListener,
  executeCall: CodeCallExecutor | undefined,
  tools: ToolRegistry,
): EarlyCallStarter {
  return async (action, signal) => {
    try {
      if (executeCall !== undefined) return await executeCall(action, { signal, onEvent });
      if (typeof context.executeNested === 'function')
        return await context.executeNested(action, { signal, validate: true, approved: true, onEvent });
      return await executeAction(tools, action, { signal, validate: true, onEvent });
    } catch (error) {
      return {
        actionId: action.id,
        toolName: action.toolName,
        status: 'error',
        error: { code: 'tool_execution_failed', message: errorMessageOf(error) },
        durationMs: 0,
      };
    }
  };
}
