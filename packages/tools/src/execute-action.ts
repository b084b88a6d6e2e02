import {
  type Action,
  abortReasonOf,
  errorMessageOf,
  limitValueProblem,
  type Observation,
  type ObservationError,
  type ObservationStatus,
  OrgError,
  type RunEvent,
  type RunEventListener,
  type ToolCall,
  type TruncateTextOptions,
  truncateText,
} from '@org/core';
import { safeParse } from 'zod/v4/core';
import { type Artifact, hasArtifacts } from './artifacts.js';
import { compiledToolOf } from './compiled-tool.js';
import { InvalidToolDefinitionError, InvalidToolOptionError } from './errors.js';
import { defineOwn } from './json-parser.js';
import { resolveLimits } from './limits.js';
import { INVALID, type WalkContext, walk } from './schema-walker.js';
import { DEFAULT_OUTPUT_BUDGET_BYTES, type SerializedOutput, serializeOutput } from './serialize-output.js';
import { effectiveTimeout, timeoutProblem } from './timeout.js';
import { type Tool, type ToolExecutionContext, type ToolRunView, toolNeedsApproval } from './tool.js';
import type { ToolRegistry } from './tool-registry.js';
import { validateToolArguments } from './validate-tool-arguments.js';

/** A change a hook made to an action, recorded on the observation. */
export interface ToolInterception {
  readonly decision: 'blocked' | 'rewritten';
  readonly reason: string;
  /** Which hook: `beforeToolUse`, `afterToolUse`, or `inject` (a hidden parameter the action tried to set). */
  readonly source: 'beforeToolUse' | 'afterToolUse' | 'inject';
}

/** An observation plus what only the caller sees: the raw output, artifacts, and hook interceptions. */
export type ToolObservation = Observation & {
  /** The value the tool returned, before serialisation and the budget cut. */
  readonly rawOutput?: unknown;
  readonly artifacts?: readonly Artifact[];
  readonly interceptions?: readonly ToolInterception[];
  /** True when `output` was cut to the budget. */
  readonly truncated?: boolean;
};

/** What `beforeToolUse` sees. */
export interface BeforeToolUseContext {
  readonly action: Action;
  readonly tool: Tool;
  readonly signal: AbortSignal;
}

/** What `beforeToolUse` decides; `undefined` lets the call run unchanged. */
export type BeforeToolUseDecision =
  | undefined
  | { readonly decision: 'allow' }
  | { readonly decision: 'block'; readonly reason: string }
  | { readonly decision: 'rewrite'; readonly args: Record<string, unknown>; readonly reason: string };

/** What `afterToolUse` sees. */
export interface AfterToolUseContext {
  readonly action: Action;
  readonly tool: Tool;
  readonly observation: ToolObservation;
}

/** What `afterToolUse` decides; `undefined` keeps the observation. Returning `output` replaces the output. */
export type AfterToolUseDecision = undefined | { readonly output: unknown; readonly reason: string };

/** Hooks around every tool call. A hook that throws turns the call into an error observation (`hook_failed`). */
export interface ToolHooks {
  readonly beforeToolUse?: (
    context: BeforeToolUseContext,
  ) => BeforeToolUseDecision | PromiseLike<BeforeToolUseDecision>;
  readonly afterToolUse?: (
    context: AfterToolUseContext,
  ) => AfterToolUseDecision | PromiseLike<AfterToolUseDecision>;
}

/** Options of `executeAction`. */
export interface ExecuteActionOptions {
  /** Aborts the call (status `aborted`); the tool's own signal follows it. */
  readonly signal?: AbortSignal;
  /**
   * A deadline for this call in milliseconds (above 0, at most 2 147 483 647; `Infinity` for none); the tool's own
   * `timeoutMs` applies too, and the shorter wins. Any other value (`NaN`, `0`, negative, larger) rejects the call
   * with an `InvalidToolOptionError` (code `invalid_tool_option`, `option: 'timeoutMs'`) before anything runs.
   */
  readonly timeoutMs?: number;
  readonly hooks?: ToolHooks;
  /**
   * Values of hidden parameters (`inject` in `defineTool`), by name. Each tool receives (in `context.injected`, frozen)
   * only the keys it declares; a tool that declares none receives an empty object.
   */
  readonly injected?: Readonly<Record<string, unknown>>;
  readonly onEvent?: RunEventListener;
  /** Budget of the serialised output in the model's context; default 50 000 bytes. */
  readonly outputBudgetBytes?: number;
  /** Validate (and coerce) `action.args` first, for actions not made by `toolCallToAction`. Default false. */
  readonly validate?: boolean;
  /** The clock for `durationMs` and event timestamps; default `Date.now`. */
  readonly now?: () => number;
  /**
   * Refuse a call whose tool needs approval (`needsApproval`, evaluated on the final arguments, after the
   * `beforeToolUse` hook, and failing closed) with status `blocked`, code `approval_required`. Default false: the caller decided approval beforehand, as the
   * agent loop does. Nested calls set it unless the caller says approval was obtained.
   */
  readonly requireApproval?: boolean;
  /**
   * The run making this call, shown to the tool as `context.run` (and its own call as `context.toolCall`); nested
   * calls receive the same view. Set by the agent loop; build it frozen (see `ToolRunView`).
   */
  readonly run?: ToolRunView;
}

/** Options of `context.executeNested`. Hooks, injected values, output budget and clock are always the caller's. */
export interface NestedExecuteOptions {
  /** Aborts the nested call too; the calling tool's own signal (its abort or timeout) always does. */
  readonly signal?: AbortSignal;
  /** A deadline for the nested call; it can only shorten the caller's per-call deadline, never lift it. */
  readonly timeoutMs?: number;
  /** Receives the nested call's events. Default: none (the caller's listener sees only the calling tool). */
  readonly onEvent?: RunEventListener;
  /** Validate (and coerce) `action.args` first. Default true: a nested action was not made by `toolCallToAction`. */
  readonly validate?: boolean;
  /**
   * The caller obtained approval for this call (the plan executor's `approveStep`). Default false: a nested call to
   * a tool that needs approval is refused (`blocked`, `approval_required`).
   */
  readonly approved?: boolean;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The `injected` of a call without injected values: one frozen object shared by every call. */
const NO_INJECTED: Readonly<Record<string, unknown>> = Object.freeze({});

type Outcome =
  | { readonly kind: 'returned'; readonly value: unknown }
  | { readonly kind: 'thrown'; readonly error: unknown }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'aborted' };

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  try {
    return (
      typeof value === 'object' &&
      value !== null &&
      typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
    );
  } catch {
    return false;
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  try {
    return (
      (typeof value === 'object' || typeof value === 'function') &&
      value !== null &&
      typeof (value as { then?: unknown }).then === 'function'
    );
  } catch {
    return false;
  }
}

/**
 * The context a tool receives. `signal` and `executeNested` are own, enumerable getters (as on a plain object:
 * spreading the context keeps them) that create what they return on first read: the call's AbortController, the
 * nested runner. Each getter is one shared function, defined with one shared descriptor, so every context has the
 * same shape; an object literal with a getter costs microseconds.
 */
class ExecutionContext implements ToolExecutionContext {
  static readonly #signal: PropertyDescriptor = {
    get(this: ExecutionContext): AbortSignal {
      return this.#controllerOf().signal;
    },
    enumerable: true,
    configurable: true,
  };
  static readonly #executeNested: PropertyDescriptor = {
    get(this: ExecutionContext): ToolExecutionContext['executeNested'] {
      this.#nested ??= (action, nested = {}) =>
        executeNested(this, this.#nestedTools, this.#callerOptions, action, nested);
      return this.#nested;
    },
    enumerable: true,
    configurable: true,
  };
  readonly #controllerOf: () => AbortController;
  readonly #callerOptions: ExecuteActionOptions;
  readonly #nestedTools: ToolRegistry | undefined;
  #nested: ToolExecutionContext['executeNested'] | undefined;
  declare readonly signal: AbortSignal;
  declare readonly toolCallId: string;
  declare readonly toolName: string;
  declare readonly injected: Readonly<Record<string, unknown>>;
  declare readonly reportProgress: (progress: unknown) => void;
  declare readonly executeNested: ToolExecutionContext['executeNested'];
  declare readonly timeoutMs: number | undefined;
  declare readonly outputBudgetBytes: number;
  declare readonly run: ToolRunView | undefined;
  declare readonly toolCall: ToolCall | undefined;

  constructor(
    controllerOf: () => AbortController,
    callerOptions: ExecuteActionOptions,
    nestedTools: ToolRegistry | undefined,
    toolCallId: string,
    toolName: string,
    injected: Readonly<Record<string, unknown>>,
    reportProgress: (progress: unknown) => void,
    timeoutMs: number | undefined,
  ) {
    this.#controllerOf = controllerOf;
    this.#callerOptions = callerOptions;
    this.#nestedTools = nestedTools;
    Object.defineProperty(this, 'signal', ExecutionContext.#signal);
    (this as Mutable<ExecutionContext>).toolCallId = toolCallId;
    (this as Mutable<ExecutionContext>).toolName = toolName;
    (this as Mutable<ExecutionContext>).injected = injected;
    (this as Mutable<ExecutionContext>).reportProgress = reportProgress;
    (this as Mutable<ExecutionContext>).timeoutMs = timeoutMs;
    (this as Mutable<ExecutionContext>).outputBudgetBytes =
      callerOptions.outputBudgetBytes ?? DEFAULT_OUTPUT_BUDGET_BYTES;
    const run = callerOptions.run;
    (this as Mutable<ExecutionContext>).run = run;
    (this as Mutable<ExecutionContext>).toolCall =
      run === undefined ? undefined : findToolCall(run.toolCalls, toolCallId);
    Object.defineProperty(this, 'executeNested', ExecutionContext.#executeNested);
  }
}

/** The call with this id among a step's calls; a step has a handful of calls, so a scan beats building a map. */
function findToolCall(toolCalls: readonly ToolCall[], toolCallId: string): ToolCall | undefined {
  for (const call of toolCalls) if (call.id === toolCallId) return call;
  return undefined;
}

/**
 * Runs a nested call: the caller's hooks, injected values, deadline, budget and clock, the nested call's own signal
 * linked to the calling tool's, validation on by default, approval required unless the caller obtained it.
 */
async function executeNested(
  context: ToolExecutionContext,
  nestedTools: ToolRegistry | undefined,
  caller: ExecuteActionOptions,
  action: Action,
  nested: NestedExecuteOptions,
): Promise<ToolObservation> {
  if (nestedTools === undefined) {
    throw new InvalidToolDefinitionError({
      toolName: context.toolName,
      field: 'nestedTools',
      reason:
        'context.executeNested runs only the tools a tool declares in nestedTools, and it declares none',
    });
  }
  const parent = context.signal;
  let signal = parent;
  let unlink: (() => void) | undefined;
  if (nested.signal !== undefined && nested.signal !== parent) {
    const linked = linkSignals(parent, nested.signal);
    signal = linked.signal;
    unlink = linked.unlink;
  }
  const options: Mutable<ExecuteActionOptions> = {
    signal,
    validate: nested.validate ?? true,
    requireApproval: nested.approved !== true,
  };
  if (caller.hooks !== undefined) options.hooks = caller.hooks;
  if (caller.injected !== undefined) options.injected = caller.injected;
  if (caller.outputBudgetBytes !== undefined) options.outputBudgetBytes = caller.outputBudgetBytes;
  if (caller.now !== undefined) options.now = caller.now;
  if (caller.run !== undefined) options.run = caller.run;
  // Math.min keeps an invalid nested value (NaN) invalid, so executeAction refuses it with its typed error.
  if (nested.timeoutMs !== undefined || caller.timeoutMs !== undefined)
    options.timeoutMs = Math.min(
      nested.timeoutMs ?? Number.POSITIVE_INFINITY,
      caller.timeoutMs ?? Number.POSITIVE_INFINITY,
    );
  if (nested.onEvent !== undefined) options.onEvent = nested.onEvent;
  try {
    return await executeAction(nestedTools, action, options);
  } finally {
    unlink?.();
  }
}

/** A signal aborted when either one is, with that one's reason; `unlink` removes its listeners. */
function linkSignals(first: AbortSignal, second: AbortSignal): { signal: AbortSignal; unlink: () => void } {
  const controller = new AbortController();
  const onFirst = (): void => controller.abort(first.reason);
  const onSecond = (): void => controller.abort(second.reason);
  if (first.aborted) onFirst();
  else if (second.aborted) onSecond();
  else {
    first.addEventListener('abort', onFirst, { once: true });
    second.addEventListener('abort', onSecond, { once: true });
  }
  return {
    signal: controller.signal,
    unlink: () => {
      first.removeEventListener('abort', onFirst);
      second.removeEventListener('abort', onSecond);
    },
  };
}

/** A call whose result is a promise or a stream, still to be awaited. */
interface Pending {
  readonly kind: 'pending';
  readonly value: unknown;
}

/** Calls the tool; a plain (synchronous) result or throw is final, a promise or stream is still pending. */
function runWithoutInterruption(
  tool: Tool,
  args: Record<string, unknown>,
  context: ToolExecutionContext,
): Outcome | Pending {
  let first: unknown;
  try {
    first = tool.execute(args, context);
  } catch (error) {
    return { kind: 'thrown', error };
  }
  return isAsyncIterable(first) || isThenable(first)
    ? { kind: 'pending', value: first }
    : { kind: 'returned', value: first };
}

/** Closes a stream whose call is over; its own cleanup failing changes nothing any more. */
async function closeIterator(iterator: AsyncIterator<unknown>): Promise<void> {
  try {
    await iterator.return?.();
  } catch {
    // The call already has its final state.
  }
}

function safeHasArtifacts(value: unknown): boolean {
  try {
    return hasArtifacts(value);
  } catch {
    return false;
  }
}

function thrownDetails(thrown: unknown): Record<string, unknown> {
  try {
    if (OrgError.isInstance(thrown)) return { thrownCode: thrown.code, retryable: thrown.retryable };
    if (thrown instanceof Error) return { thrownName: thrown.name };
    return { thrownType: thrown === null ? 'null' : typeof thrown };
  } catch {
    return { thrownType: 'unknown' };
  }
}

/**
 * Runs one action and describes the result as an observation. Never throws for a tool's failure: an unknown tool,
 * a hook that blocks, a thrown value of any kind (not only an `Error`), a timeout (the tool's signal is aborted,
 * the timeout is reported once and a late result discarded), an external abort, or an output that does not
 * match the tool's output schema all become an observation with a status and an error. Streaming tools (async
 * iterables) report progress; the output is serialised safely and cut to the budget, while `rawOutput` keeps the
 * value for the caller.
 *
 * @example
 * const observation = await executeAction(registry, action, { timeoutMs: 10_000, signal, onEvent });
 * history.push({ role: 'tool', toolCallId: action.id, toolName: action.toolName,
 *   content: formatObservationForModel(observation), isError: observation.status !== 'success' });
 */
export function executeAction(
  registry: ToolRegistry,
  action: Action,
  options: ExecuteActionOptions = {},
): Promise<ToolObservation> {
  // Without a listener there is no event to pair: no wrapper on the hot path.
  if (options.onEvent === undefined) return runAction(registry, action, options, undefined);
  const events: EventPairing = { startedAt: undefined, finished: false };
  return runAction(registry, action, options, events).catch((thrown: unknown) => {
    // An unexpected throw (a hostile registry or schema, a bug) still closes the `tool-call-started` it opened,
    // so a listener never keeps a call open forever; the throw itself reaches the caller unchanged.
    if (events.startedAt !== undefined && !events.finished) {
      const now = options.now ?? Date.now;
      const observation: ToolObservation = {
        actionId: action.id,
        toolName: action.toolName,
        status: 'error',
        error: {
          code: 'internal_error',
          message: boundMessage(`The call failed unexpectedly: ${errorMessageOf(thrown)}`, budgetOf(options)),
        },
        durationMs: Math.max(0, now() - events.startedAt),
      };
      try {
        options.onEvent?.({ type: 'tool-call-finished', timestamp: now(), observation });
      } catch {
        // A listener must not break the run; its failure is its own.
      }
    }
    throw thrown;
  });
}

/** Bytes of a hook's reason kept on an interception (and in its event). */
const MAX_REASON_BYTES = 1_000;
const REASON_MARKER: TruncateTextOptions = { what: 'reason', redact: 'all' };

function budgetOf(options: ExecuteActionOptions): number {
  return options.outputBudgetBytes ?? DEFAULT_OUTPUT_BUDGET_BYTES;
}

/**
 * Every error message of an observation reaches the model: redacted of secrets and bounded by the call's output
 * budget, with a marker, whatever the tool threw (a 2 MB message), the model sent (a 1 MB tool name, thousands of
 * invalid fields) or a hook gave as its reason.
 */
function boundMessage(message: string, budget: number): string {
  return truncateText(message, Math.max(0, budget - MESSAGE_LABEL_BYTES), {
    what: 'error message',
    redact: 'all',
  });
}

/** Room left for the label `formatObservationForModel` puts before an error (`Error (code): `): the whole fits. */
const MESSAGE_LABEL_BYTES = 96;

/** `: <reason>` naming what was given to `abort(reason)`, or nothing when no reason was given. */
function abortedBecause(signal: AbortSignal | undefined): string {
  const reason = signal?.aborted === true ? abortReasonOf(signal.reason) : undefined;
  return reason === undefined ? '' : `: ${reason}`;
}

/** Whether a call's `tool-call-started` was emitted (and when), and whether its `tool-call-finished` was. */
interface EventPairing {
  startedAt: number | undefined;
  finished: boolean;
}

async function runAction(
  registry: ToolRegistry,
  action: Action,
  options: ExecuteActionOptions,
  events: EventPairing | undefined,
): Promise<ToolObservation> {
  if (options.timeoutMs !== undefined) {
    const problem = timeoutProblem(options.timeoutMs);
    if (problem !== undefined) throw new InvalidToolOptionError({ option: 'timeoutMs', reason: problem });
  }
  if (options.outputBudgetBytes !== undefined) {
    // NaN would switch the budget off (every `size > budget` is false): the one limit rule of @org/core.
    const problem = limitValueProblem(options.outputBudgetBytes, { minimum: 0, infinity: true });
    if (problem !== undefined)
      throw new InvalidToolOptionError({ option: 'outputBudgetBytes', reason: problem });
  }
  const now = options.now ?? Date.now;
  const started = now();
  const interceptions: ToolInterception[] = [];
  const emit = (event: RunEvent): void => {
    if (options.onEvent === undefined) return;
    try {
      options.onEvent(event);
    } catch {
      // A listener must not break the run; its failure is its own.
    }
  };
  const finish = (
    status: ObservationStatus,
    fields: {
      output?: Observation['output'];
      error?: ObservationError;
      rawOutput?: unknown;
      artifacts?: readonly Artifact[];
      truncated?: boolean;
      hasRaw?: boolean;
    },
  ): ToolObservation => {
    // Built field by field (same key order as the type) rather than with conditional spreads: this is the hot path.
    const observation = {
      actionId: action.id,
      toolName: action.toolName,
      status,
    } as Mutable<ToolObservation>;
    if (fields.output !== undefined) observation.output = fields.output;
    if (fields.error !== undefined) observation.error = fields.error;
    observation.durationMs = Math.max(0, now() - started);
    if (fields.hasRaw === true) observation.rawOutput = fields.rawOutput;
    if (fields.artifacts !== undefined && fields.artifacts.length > 0)
      observation.artifacts = fields.artifacts;
    if (interceptions.length > 0) observation.interceptions = [...interceptions];
    if (fields.truncated === true) observation.truncated = true;
    if (options.onEvent !== undefined) {
      if (events !== undefined) events.finished = true;
      emit({ type: 'tool-call-finished', timestamp: now(), observation });
    }
    return observation;
  };
  const fail = (
    status: ObservationStatus,
    code: string,
    message: string,
    details?: Record<string, unknown>,
  ): ToolObservation =>
    finish(status, {
      error: {
        code,
        message: boundMessage(message, budgetOf(options)),
        ...(details === undefined ? {} : { details }),
      },
    });

  if (options.onEvent !== undefined) {
    if (events !== undefined) events.startedAt = started;
    emit({ type: 'tool-call-started', timestamp: started, action });
  }
  const tool = registry.resolve(action.toolName);
  if (tool === undefined) {
    return fail(
      'error',
      'unknown_tool',
      `There is no tool named ${JSON.stringify(action.toolName)}. Available tools: ${registry.names().join(', ') || 'none'}.`,
    );
  }
  // Every block or rewrite is recorded on the observation and announced as an event.
  const intercept = (given: ToolInterception): void => {
    const interception = { ...given, reason: truncateText(given.reason, MAX_REASON_BYTES, REASON_MARKER) };
    interceptions.push(interception);
    emit({
      type: 'tool-call-intercepted',
      timestamp: now(),
      actionId: action.id,
      toolName: tool.name,
      decision: interception.decision,
      reason: interception.reason,
    });
  };
  if (options.signal?.aborted === true) {
    return fail(
      'aborted',
      'aborted',
      `Tool '${tool.name}' was not run: the run was aborted${abortedBecause(options.signal)}.`,
    );
  }

  let args: Record<string, unknown> = action.args;
  if (options.validate === true) {
    const validated = validateToolArguments(tool, args, { toolCallId: action.id });
    if (!validated.ok)
      return fail('error', validated.error.code, validated.error.message, { ...validated.error.toJSON() });
    args = validated.value;
  }

  // The tool's AbortController is created only when something can abort it (a timeout, an external signal) or
  // someone reads its signal (the tool through `context.signal`, or a hook): most calls never need one.
  let controller: AbortController | undefined;
  // Set once the call is interrupted (timeout or external abort); a signal first read after that is born aborted.
  let interruption: { readonly kind: 'timeout' | 'aborted'; readonly reason: unknown } | undefined;
  const controllerOf = (): AbortController => {
    if (controller === undefined) {
      controller = new AbortController();
      if (interruption !== undefined) controller.abort(interruption.reason);
    }
    return controller;
  };
  if (options.hooks?.beforeToolUse !== undefined) {
    let decision: BeforeToolUseDecision;
    try {
      decision = await options.hooks.beforeToolUse({
        action: { ...action, args },
        tool,
        signal: options.signal ?? controllerOf().signal,
      });
    } catch (thrown) {
      return fail('error', 'hook_failed', `The beforeToolUse hook failed: ${errorMessageOf(thrown)}`);
    }
    if (decision?.decision === 'block') {
      const reason = String(decision.reason);
      intercept({ decision: 'blocked', reason, source: 'beforeToolUse' });
      return fail('blocked', 'blocked_by_hook', `The call to '${tool.name}' was blocked: ${reason}`);
    }
    if (decision?.decision === 'rewrite') {
      const reason = String(decision.reason);
      intercept({ decision: 'rewritten', reason, source: 'beforeToolUse' });
      const validated = validateToolArguments(tool, decision.args, { toolCallId: action.id });
      if (!validated.ok) {
        return fail(
          'error',
          'invalid_tool_arguments',
          `The beforeToolUse hook rewrote the arguments into invalid ones: ${validated.error.message}`,
        );
      }
      args = validated.value;
    }
  }

  // Approval is decided on the final arguments, after the hooks (which may rewrite them).
  if (
    options.requireApproval === true &&
    tool.needsApproval !== false &&
    (await toolNeedsApproval(tool, args))
  ) {
    return fail(
      'blocked',
      'approval_required',
      `Tool '${tool.name}' was not run: it needs approval, which this call did not have.`,
    );
  }
  // An async hook or approval predicate may have been pending while the caller aborted; the abort listener below is
  // added only now, and a listener added to an already-aborted signal never fires: check again before the tool runs.
  // (A call, not a property read: TypeScript would keep the narrowing from the check before the hooks.)
  if (isAborted(options.signal)) {
    return fail(
      'aborted',
      'aborted',
      `Tool '${tool.name}' was not run: the run was aborted${abortedBecause(options.signal)}.`,
    );
  }

  const injected = options.injected ?? NO_INJECTED;
  // A tool sees only the injected values it declares (`inject`): credentials meant for one tool never reach another.
  let ownInjected: Readonly<Record<string, unknown>> = NO_INJECTED;
  if (tool.inject.length > 0) {
    const own: Record<string, unknown> = {};
    const merged: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(args)) defineOwn(merged, key, value);
    const intoArgs = compiledToolOf(tool).injectedIntoArgs;
    for (const key of tool.inject) {
      if (!Object.hasOwn(injected, key)) {
        return fail(
          'error',
          'missing_injected_value',
          `Tool '${tool.name}' needs the application to supply '${key}' (options.injected), and it was not given.`,
          { parameter: key },
        );
      }
      if (Object.hasOwn(args, key)) {
        const reason = `the hidden parameter '${key}' was set in the arguments; the application's value was used`;
        intercept({ decision: 'rewritten', reason, source: 'inject' });
      }
      defineOwn(own, key, injected[key]);
      if (intoArgs.has(key) || Object.hasOwn(args, key)) defineOwn(merged, key, injected[key]);
    }
    args = merged;
    ownInjected = Object.freeze(own);
  }

  // Both were checked (defineTool, the start of this call); Infinity means no deadline.
  let timeoutMs = effectiveTimeout(tool.timeoutMs);
  const callTimeoutMs = effectiveTimeout(options.timeoutMs);
  if (callTimeoutMs !== undefined)
    timeoutMs = timeoutMs === undefined ? callTimeoutMs : Math.min(timeoutMs, callTimeoutMs);
  let settled = false;
  const context = new ExecutionContext(
    controllerOf,
    options,
    tool.nestedTools,
    action.id,
    tool.name,
    ownInjected,
    (progress: unknown): void => {
      if (settled || options.onEvent === undefined) return;
      emit({
        type: 'tool-call-progress',
        timestamp: now(),
        actionId: action.id,
        toolName: tool.name,
        progress,
      });
    },
    timeoutMs,
  );

  let activeIterator: AsyncIterator<unknown> | undefined;
  /** Awaits a promise, then drains a stream: progress items, the last is the result. */
  const consume = async (first: unknown): Promise<unknown> => {
    let result = first;
    // An async function may return the stream (`async execute() { return stream() }`).
    if (!isAsyncIterable(result) && isThenable(result)) result = await result;
    if (isAsyncIterable(result)) {
      const iterator = result[Symbol.asyncIterator]();
      activeIterator = iterator;
      let last: unknown;
      let hasLast = false;
      try {
        for (;;) {
          const step = await iterator.next();
          if (interruption !== undefined) return undefined;
          if (step.done === true) {
            if (step.value !== undefined) {
              if (hasLast) context.reportProgress(last);
              return step.value;
            }
            return last;
          }
          if (hasLast) context.reportProgress(last);
          last = step.value;
          hasLast = true;
        }
      } finally {
        activeIterator = undefined;
        if (interruption !== undefined) await closeIterator(iterator);
      }
    }
    return result;
  };

  let outcome: Outcome | Pending;
  if (timeoutMs === undefined && options.signal === undefined) {
    // Nothing can interrupt the call, so there is nothing to race: a synchronous result is used as it is.
    outcome = runWithoutInterruption(tool, args, context);
    if (outcome.kind === 'pending') {
      try {
        outcome = { kind: 'returned', value: await consume(outcome.value) };
      } catch (error) {
        outcome = { kind: 'thrown', error };
      }
    }
    settled = true;
  } else {
    // The controller stays lazy here too: a tool that never reads its signal never needs one. An interruption
    // settles the race first, then aborts the signal (if there is one yet), in the order listeners always saw.
    let timer: ReturnType<typeof setTimeout> | undefined;
    let removeAbortListener: (() => void) | undefined;
    let settle: ((outcome: Outcome) => void) | undefined;
    const interrupt = (kind: 'timeout' | 'aborted', reason: unknown): void => {
      if (interruption !== undefined) return;
      interruption = { kind, reason };
      settle?.({ kind });
      controller?.abort(reason);
    };
    if (options.signal !== undefined) {
      const external = options.signal;
      const onAbort = (): void => interrupt('aborted', external.reason);
      external.addEventListener('abort', onAbort, { once: true });
      removeAbortListener = () => external.removeEventListener('abort', onAbort);
    }
    if (timeoutMs !== undefined) {
      const limit = timeoutMs;
      timer = setTimeout(() => {
        interrupt('timeout', new Error(`Tool '${tool.name}' timed out after ${limit} ms`));
      }, limit);
    }
    const first = runWithoutInterruption(tool, args, context);
    if (interruption !== undefined) {
      // Aborted while the tool ran synchronously (it aborted the caller's signal itself): the abort wins, as it
      // would in the race below.
      outcome = { kind: interruption.kind };
    } else if (first.kind !== 'pending') {
      // A synchronous result or throw: nothing can have interrupted it, so there is nothing to race.
      outcome = first;
    } else {
      const interrupted = new Promise<Outcome>((resolve) => {
        settle = resolve;
      });
      const completed: Promise<Outcome> = consume(first.value).then(
        (value) => ({ kind: 'returned', value }),
        (error: unknown) => ({ kind: 'thrown', error }),
      );
      outcome = await Promise.race([completed, interrupted]);
    }
    settled = true;
    if (timer !== undefined) clearTimeout(timer);
    removeAbortListener?.();
    if (outcome.kind !== 'returned' && outcome.kind !== 'thrown') {
      // A late result is discarded (`completed` is never read again); a stream stuck in `next()` is asked to close.
      if (activeIterator !== undefined) void closeIterator(activeIterator);
    }
  }

  switch (outcome.kind) {
    case 'timeout':
      return fail(
        'timeout',
        'timeout',
        // Narrower arguments cannot help a tool that runs other tools (a plan): what matters is that some of its
        // calls may have taken effect before the stop.
        tool.nestedTools === undefined
          ? `Tool '${tool.name}' did not finish within ${timeoutMs} ms and was stopped. Try narrower arguments.`
          : `Tool '${tool.name}' did not finish within ${timeoutMs} ms and was stopped. Calls it made before the stop may have taken effect; check before repeating them.`,
        { timeoutMs },
      );
    case 'aborted':
      return fail(
        'aborted',
        'aborted',
        `Tool '${tool.name}' was aborted before it finished${abortedBecause(options.signal)}.`,
      );
    case 'thrown':
      return fail(
        'error',
        'tool_execution_failed',
        `Tool '${tool.name}' failed: ${errorMessageOf(outcome.error)}`,
        thrownDetails(outcome.error),
      );
    default:
      break;
  }

  let value = outcome.value;
  let artifacts: readonly Artifact[] | undefined;
  if (safeHasArtifacts(value)) {
    const carrier = value as { output: unknown; artifacts: readonly Artifact[] };
    artifacts = carrier.artifacts;
    value = carrier.output;
  }

  const outputProblem = checkOutput(tool, value);
  if (outputProblem !== undefined) {
    return finish('error', {
      error: {
        code: 'invalid_tool_output',
        message: boundMessage(
          `Tool '${tool.name}' returned output that does not match its output schema: ${outputProblem}`,
          budgetOf(options),
        ),
      },
      rawOutput: value,
      hasRaw: true,
    });
  }

  const budget = options.outputBudgetBytes ?? DEFAULT_OUTPUT_BUDGET_BYTES;
  let serialized: SerializedOutput | undefined;
  if (options.hooks?.afterToolUse !== undefined) {
    serialized = serializeOutput(value, budget);
    const draft: ToolObservation = {
      actionId: action.id,
      toolName: tool.name,
      status: 'success',
      output: serialized.output,
      durationMs: Math.max(0, now() - started),
      rawOutput: value,
    };
    try {
      const decision = await options.hooks.afterToolUse({
        action: { ...action, args },
        tool,
        observation: draft,
      });
      if (decision !== undefined) {
        const reason = String(decision.reason);
        intercept({ decision: 'rewritten', reason, source: 'afterToolUse' });
        value = decision.output;
        serialized = undefined;
      }
    } catch (thrown) {
      return fail('error', 'hook_failed', `The afterToolUse hook failed: ${errorMessageOf(thrown)}`);
    }
  }

  // A primitive output is serialised once. An object is serialised again after `afterToolUse`: the hook may have
  // edited it in place (redaction) without returning a replacement.
  if (serialized === undefined || (typeof value === 'object' && value !== null))
    serialized = serializeOutput(value, budget);
  return finish('success', {
    output: serialized.output,
    rawOutput: value,
    hasRaw: true,
    truncated: serialized.truncated,
    ...(artifacts === undefined ? {} : { artifacts }),
  });
}

/** Why an output does not match the tool's output schema, or `undefined` when it does (or there is none). */
function checkOutput(tool: Tool, value: unknown): string | undefined {
  const compiled = compiledToolOf(tool);
  try {
    if (compiled.outputZod !== undefined) {
      const result = safeParse(compiled.outputZod, value);
      if (result.success) return undefined;
      return result.error.issues
        .map((issue) => `${issue.path.join('.') || '(output)'}: ${issue.message}`)
        .join('; ');
    }
    if (compiled.outputSchema !== undefined) {
      const context: WalkContext = {
        root: compiled.outputSchema,
        coerce: false,
        limits: resolveLimits(undefined),
        hidden: new Set(),
        issues: [],
        coercions: [],
      };
      if (walk(compiled.outputSchema, value, '', context) !== INVALID && context.issues.length === 0)
        return undefined;
      return context.issues.map((issue) => `${issue.path || '(output)'}: ${issue.problem}`).join('; ');
    }
  } catch (thrown) {
    return `the output could not be checked (${errorMessageOf(thrown)})`;
  }
  return undefined;
}
