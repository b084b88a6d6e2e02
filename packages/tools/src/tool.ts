import type { Action, JsonSchema, Message, ToolCall } from '@org/core';
import type * as zod from 'zod/v4/core';
import { attachCompiledTool, compileTool } from './compiled-tool.js';
import { InvalidToolDefinitionError } from './errors.js';
import type { NestedExecuteOptions, ToolObservation } from './execute-action.js';
import { timeoutProblem } from './timeout.js';
import type { ToolInputStream } from './tool-input-stream.js';
import { assertValidToolName } from './tool-name.js';
import type { ToolRegistry } from './tool-registry.js';
import type { LooseJsonSchema, ZodSchema } from './zod-schema.js';

/**
 * What a tool may read of the run that called it (seed 004's `CanAccessAgentState`): set by the agent loop, the same
 * view for every call of a step, plan steps included. Everything in it is a frozen copy: a tool cannot change the
 * loop's history.
 *
 * @example
 * execute: (args, context) => {
 *   const earlierResults = context.run?.history.filter((message) => message.role === 'tool').length ?? 0;
 *   return { step: context.run?.step, earlierResults };
 * },
 */
export interface ToolRunView {
  readonly runId: string;
  /** Zero-based index of the step whose calls are running. */
  readonly step: number;
  /** The conversation before this step (task included, system prompt excluded), frozen; built on first read. */
  readonly history: readonly Message[];
  /** This step's tool calls as the model sent them (arguments as raw JSON text), frozen. */
  readonly toolCalls: readonly ToolCall[];
}

/** What a tool's `execute` receives beside its arguments. */
export interface ToolExecutionContext {
  /** Aborted on timeout, on external abort, or when the run stops; pass it to fetch, child processes, ... */
  readonly signal: AbortSignal;
  /** The id of the tool call being answered. */
  readonly toolCallId: string;
  readonly toolName: string;
  /** Reports progress (emitted as a `tool-call-progress` event); never throws. */
  reportProgress(progress: unknown): void;
  /**
   * The application's values for the tool's hidden parameters, never set by the model: only the keys the tool
   * declares in `inject` (frozen); empty for a tool that declares none.
   */
  readonly injected: Readonly<Record<string, unknown>>;
  /**
   * Runs a call of one of the tools this tool declares in `nestedTools`, the way this call is run: the caller's
   * hooks, injected values (each nested tool receives only those it declares; this tool never sees them), per-call
   * deadline, output budget and clock apply, and a tool that needs approval is refused (`blocked`,
   * `approval_required`) unless `options.approved` says the caller obtained it. For tools that run other tools
   * (`execute_tool_plan`): without it, a `beforeToolUse` guard would never see their calls. The nested call is
   * aborted with this call (its abort or timeout), and by `options.signal` too when given. Rejects with
   * `InvalidToolDefinitionError` when the tool declares no `nestedTools`.
   *
   * @example
   * execute: async ({ city }, context) =>
   *   context.executeNested({ id: `${context.toolCallId}/1`, toolName: 'get_weather', args: { city } }),
   */
  readonly executeNested: (action: Action, options?: NestedExecuteOptions) => Promise<ToolObservation>;
  /**
   * This call's deadline in ms from when `execute` was called (the shorter of the tool's `timeoutMs` and the caller's),
   * or `undefined` when there is none. At the deadline the call is stopped and its result discarded; a tool that runs
   * other work (`execute_tool_plan`) ends that work a little earlier, to return what finished instead of nothing.
   * Absent from contexts built by hand.
   */
  readonly timeoutMs?: number | undefined;
  /**
   * When this call's deadline passes, as `performance.now()` reads time, or `undefined` when there is none. The
   * call's timer starts before `execute` runs, so a tool that ends its own work before the deadline measures the time
   * left from here (`deadlineAt - performance.now()`), never from its own start: a pause between the two (the process
   * descheduled, a garbage collection) would otherwise move its end past the call's. Absent from contexts built by
   * hand.
   */
  readonly deadlineAt?: number | undefined;
  /**
   * The byte budget of this call's output in the model's context (the caller's `outputBudgetBytes`, default 50 000):
   * a tool that builds its own summary fits it, so that what matters is not cut off. Absent from contexts built by hand.
   */
  readonly outputBudgetBytes?: number | undefined;
  /**
   * The run that made this call, read-only (history, step, its calls), when an agent loop runs it (the caller's
   * `run` option of `executeAction`); absent otherwise. Nested calls see their caller's run.
   */
  readonly run?: ToolRunView | undefined;
  /**
   * This call as the model sent it (seed 004's `CanAccessToolCall`): id, tool name and the raw argument text. Absent
   * without a run, and for nested calls (a plan's steps), which no model sent.
   */
  readonly toolCall?: ToolCall | undefined;
}

/**
 * What `execute` may return: a value, a promise of one, or an async iterable (a streaming tool: every item is
 * reported as progress and the last one is the result; a generator's `return` value, when there is one, is the result).
 */
export type ToolExecuteResult<Output> = Output | PromiseLike<Output> | AsyncIterable<unknown>;

/** The arguments type of a tool input: inferred from a zod schema, a plain record for JSON Schema. */
export type InferToolArgs<Input> = Input extends ZodSchema ? zod.output<Input> : Record<string, unknown>;

/** Decides per call whether a human must approve it. */
export type ToolApprovalPredicate<Args> = {
  // A method signature keeps the parameter bivariant, so `Tool<{ city: string }>` is assignable to `Tool`.
  /** `true` (or a throw) when this call must be approved first. */
  bivarianceHack(args: Args): boolean | PromiseLike<boolean>;
}['bivarianceHack'];

/** The definition passed to `defineTool`. */
export interface ToolDefinition<Input extends ZodSchema | LooseJsonSchema, Output> {
  /** A provider-valid name (`PROVIDER_TOOL_NAME_PATTERN`), or one the registry maps for providers (`math.factorial`, `21st_builder`). */
  readonly name: string;
  /** What the tool does and when to use it, for the model. Must not be empty. */
  readonly description: string;
  /**
   * A zod 4 object schema (the type of `execute`'s arguments is inferred from it) or a JSON Schema object, loose
   * dialects included (`dict`, `float`, ...; see `normalizeJsonSchema`).
   */
  readonly input: Input;
  /** Schema the result is checked against; a mismatch is an error observation (`invalid_tool_output`). */
  readonly output?: ZodSchema | LooseJsonSchema;
  /** Runs the call with its validated (and typed) arguments; a throw becomes an error observation the model sees. */
  readonly execute: (args: InferToolArgs<Input>, context: ToolExecutionContext) => ToolExecuteResult<Output>;
  /**
   * Starts the call while the model is still writing its arguments (`executeStreamingAction`): the tool reads the
   * argument text as it streams and receives the final arguments through `input.arguments`. Until they arrive, it may
   * only do what a discarded answer would not regret (the call may never run); its result counts only once the call
   * is complete. Used only where a call may start early (no `beforeToolUse` hook to ask first, no approval to
   * decide); everywhere else, and for every call whose arguments are already complete, `execute` runs.
   *
   * @example
   * executeStreaming: async (input, context) => {
   *   const warm = prefetchIndex(context.signal); // harmless if the answer is discarded
   *   const { query } = await input.arguments;
   *   return (await warm).search(query);
   * },
   */
  readonly executeStreaming?: (
    input: ToolInputStream<InferToolArgs<Input>>,
    context: ToolExecutionContext,
  ) => ToolExecuteResult<Output>;
  /**
   * The call may start as soon as its arguments are complete in the model's stream, before the rest of the answer:
   * declare it only for a tool with no side effect a discarded answer would regret (a read, a search, a
   * computation). A discarded answer aborts the call through its signal. Default false: the call waits for the
   * whole answer. A tool that needs approval never starts early, whatever this says.
   */
  readonly eager?: boolean;
  /**
   * Per-call deadline in milliseconds (above 0, at most 2 147 483 647); the tool's signal is aborted when it passes.
   * `Infinity` means no deadline.
   */
  readonly timeoutMs?: number;
  /** The agent loop stops after this tool, and its result is the answer. */
  readonly terminal?: boolean;
  /**
   * A boolean, or a function of the arguments, telling the loop to ask a human first. A function's truthy result,
   * or a throw, means approval is needed (`toolNeedsApproval` fails closed).
   */
  readonly needsApproval?: boolean | ToolApprovalPredicate<InferToolArgs<Input>>;
  /**
   * Strict schemas: `true` requires the schema to be strict-compatible (checked now) and sends the tool with
   * `strict: true` and its schema in the strict dialect for every target; `false` never sends it strict; unset sends
   * it strict for `openai-strict` when it is compatible.
   */
  readonly strict?: boolean;
  /**
   * Hidden parameters: names of values the application supplies at execution (`executeAction(..., { injected })`).
   * They never appear in any spec; a model that sets one is refused; properties of the input schema with these
   * names are filled from the injected values.
   */
  readonly inject?: readonly string[];
  /**
   * The tools this tool runs through `context.executeNested`, bound here by the application: the caller's hooks
   * and injected values reach those tools, and no others a tool could assemble at run time.
   */
  readonly nestedTools?: ToolRegistry;
}

/** A tool, ready to register. Create it with `defineTool` or `toolFromDescription`. */
export interface Tool<Args = Record<string, unknown>, Output = unknown> {
  readonly name: string;
  readonly description: string;
  /** The input schema as given (zod or JSON Schema). */
  readonly input: ZodSchema | LooseJsonSchema;
  /** The input as standard JSON Schema, hidden parameters removed: what the model is allowed to send. */
  readonly inputSchema: JsonSchema;
  readonly output: ZodSchema | LooseJsonSchema | undefined;
  readonly timeoutMs: number | undefined;
  readonly terminal: boolean;
  /** May start once its call is complete in the stream, before the whole answer; see `ToolDefinition.eager`. */
  readonly eager: boolean;
  /** Whether a call must be approved by a human first; see `ToolDefinition.needsApproval`. */
  readonly needsApproval: boolean | ToolApprovalPredicate<Args>;
  readonly strict: boolean | undefined;
  readonly inject: readonly string[];
  /** The tools this tool runs through `context.executeNested`; see `ToolDefinition.nestedTools`. */
  readonly nestedTools?: ToolRegistry | undefined;
  /** Runs the call with validated arguments; see `ToolDefinition.execute`. */
  execute(args: Args, context: ToolExecutionContext): ToolExecuteResult<Output>;
  /** Starts the call on its streaming arguments; see `ToolDefinition.executeStreaming`. */
  executeStreaming?(input: ToolInputStream<Args>, context: ToolExecutionContext): ToolExecuteResult<Output>;
}

/**
 * Defines a tool. Everything is checked now, with typed errors: the name (`InvalidToolNameError`), an empty
 * description or a bad timeout (`InvalidToolDefinitionError`), a schema no provider accepts or that cannot be
 * described as JSON Schema (`InvalidToolSchemaError`), a regex pattern prone to catastrophic backtracking
 * (`UnsafePatternError`).
 *
 * @example
 * import { z } from 'zod';
 *
 * const getWeather = defineTool({
 *   name: 'get_weather',
 *   description: 'Current weather for a city.',
 *   input: z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']).optional() }),
 *   execute: async ({ city, unit }) => ({ city, temperature: 21, unit: unit ?? 'celsius' }),
 * });
 */
export function defineTool<Input extends ZodSchema | LooseJsonSchema, Output = unknown>(
  definition: ToolDefinition<Input, Output>,
): Tool<InferToolArgs<Input>, Output> {
  const name: unknown = (definition as { name?: unknown }).name;
  assertValidToolName(name);
  const invalid = (field: string, reason: string): never => {
    throw new InvalidToolDefinitionError({ toolName: name, field, reason });
  };
  if (typeof definition.description !== 'string' || definition.description.trim() === '') {
    invalid('description', 'a tool needs a description telling the model what it does and when to use it');
  }
  if (typeof definition.execute !== 'function') invalid('execute', 'must be a function');
  if (definition.executeStreaming !== undefined && typeof definition.executeStreaming !== 'function')
    invalid('executeStreaming', 'must be a function');
  if (definition.eager !== undefined && typeof definition.eager !== 'boolean')
    invalid('eager', 'must be a boolean');
  if (typeof definition.input !== 'object' || definition.input === null) {
    invalid('input', 'must be a zod object schema or a JSON Schema object');
  }
  if (definition.timeoutMs !== undefined) {
    const problem = timeoutProblem(definition.timeoutMs);
    if (problem !== undefined) invalid('timeoutMs', problem);
  }
  const needsApproval = definition.needsApproval ?? false;
  if (typeof needsApproval !== 'boolean' && typeof needsApproval !== 'function') {
    invalid('needsApproval', 'must be a boolean or a function of the arguments');
  }
  const inject = definition.inject ?? [];
  if (!Array.isArray(inject) || inject.some((key) => typeof key !== 'string' || key === '')) {
    invalid('inject', 'must be a list of parameter names');
  }
  if (new Set(inject).size !== inject.length) invalid('inject', 'lists a name twice');
  const nestedTools = definition.nestedTools;
  if (
    nestedTools !== undefined &&
    (typeof nestedTools !== 'object' ||
      nestedTools === null ||
      typeof (nestedTools as { resolve?: unknown }).resolve !== 'function')
  ) {
    invalid('nestedTools', 'must be a ToolRegistry');
  }

  const tool: Tool<InferToolArgs<Input>, Output> = {
    name,
    description: definition.description,
    input: definition.input,
    inputSchema: {},
    output: definition.output,
    timeoutMs: definition.timeoutMs,
    terminal: definition.terminal ?? false,
    eager: definition.eager ?? false,
    needsApproval,
    strict: definition.strict,
    inject: Object.freeze([...inject]),
    nestedTools,
    execute: definition.execute as Tool<InferToolArgs<Input>, Output>['execute'],
  };
  // Only when given: a tool without it has no such key, so `'executeStreaming' in tool` tells them apart.
  if (definition.executeStreaming !== undefined)
    (tool as { executeStreaming?: unknown }).executeStreaming = definition.executeStreaming;
  const compiled = compileTool(tool as unknown as Tool);
  const result = { ...tool, inputSchema: compiled.inputSchema };
  attachCompiledTool(result, compiled);
  return Object.freeze(result);
}

/**
 * Whether a call needs a human's approval first, evaluating `needsApproval` when it is a function. It fails closed:
 * any truthy result of the predicate (not only `true`; a JavaScript predicate may return `1` or `'yes'`) means
 * approval is needed, and a predicate that throws or rejects means approval is needed too (the error is not
 * rethrown: the human decides instead).
 *
 * @example
 * if (await toolNeedsApproval(tool, action.args)) await askHuman(action);
 */
export async function toolNeedsApproval<Args>(tool: Tool<Args>, args: Args): Promise<boolean> {
  if (typeof tool.needsApproval === 'boolean') return tool.needsApproval;
  try {
    return Boolean(await tool.needsApproval(args));
  } catch {
    return true;
  }
}
