import {
  type Action,
  errorMessageOf,
  limitValueProblem,
  type Observation,
  type RunEventListeners,
  runEventListenersProblem,
} from '@org/core';
import type { Artifact } from './artifacts.js';
import { abortedBecause, CallRecorder, type EventPairing, withPairedEvents } from './call-recorder.js';
import { compiledToolOf } from './compiled-tool.js';
import { InvalidToolDefinitionError, InvalidToolOptionError } from './errors.js';
import { ExecutionContext } from './execution-context.js';
import { defineOwn } from './json-parser.js';
import { observeOutcome } from './observe-outcome.js';
import { effectiveTimeout, timeoutProblem } from './timeout.js';
import { type Tool, type ToolExecutionContext, type ToolRunView, toolNeedsApproval } from './tool.js';
import type { ToolMediaPart } from './tool-content.js';
import { type Outcome, ToolInvocation } from './tool-invocation.js';
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
  /** Images and files the tool returned beside its output (`withContent`), for the tool message the model sees. */
  readonly content?: readonly ToolMediaPart[];
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
  /** Asked before each call runs: block it, rewrite its arguments, or return `undefined` to let it run. */
  readonly beforeToolUse?: (
    context: BeforeToolUseContext,
  ) => BeforeToolUseDecision | PromiseLike<BeforeToolUseDecision>;
  /** Sees each call's result before the model does: may replace the output the model is shown. */
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
  /**
   * Receives the call's events: one listener or several (called in order, each isolated from the others' throws).
   * Anything else rejects the call with an `InvalidToolOptionError` (`option: 'onEvent'`) before anything runs.
   */
  readonly onEvent?: RunEventListeners;
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
  /**
   * Receives the nested call's events, one listener or several. Default: none (the caller's listener sees only the
   * calling tool).
   */
  readonly onEvent?: RunEventListeners;
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

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/**
 * Checks the options every call runs with, before anything runs: an invalid `onEvent`, `timeoutMs` or
 * `outputBudgetBytes` is the caller's error (`InvalidToolOptionError`), never a call's outcome.
 */
export function checkExecuteOptions(options: ExecuteActionOptions): void {
  const listenersProblem = runEventListenersProblem(options.onEvent);
  if (listenersProblem !== undefined)
    throw new InvalidToolOptionError({ option: 'onEvent', reason: listenersProblem });
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
  return withPairedEvents(action, options, (events) => runAction(registry, action, options, events));
}

async function runAction(
  registry: ToolRegistry,
  action: Action,
  options: ExecuteActionOptions,
  events: EventPairing | undefined,
): Promise<ToolObservation> {
  checkExecuteOptions(options);
  const call = new CallRecorder(action, options, events);
  call.start(action);
  return runStartedCall(call, registry, action, options);
}

/**
 * Everything of a call after its start: the tool looked up, the arguments validated (when asked), the hooks, the
 * approval, the hidden parameters, then the tool itself and its observation. Shared by `executeAction` and a
 * streaming call that waited for its arguments (`executeStreamingAction`).
 */
export async function runStartedCall(
  call: CallRecorder,
  registry: ToolRegistry,
  action: Action,
  options: ExecuteActionOptions,
): Promise<ToolObservation> {
  const tool = registry.resolve(action.toolName);
  if (tool === undefined) {
    return call.fail(
      'error',
      'unknown_tool',
      `There is no tool named ${JSON.stringify(action.toolName)}. Available tools: ${registry.names().join(', ') || 'none'}.`,
    );
  }
  if (options.signal?.aborted === true) {
    return call.fail(
      'aborted',
      'aborted',
      `Tool '${tool.name}' was not run: the run was aborted${abortedBecause(options.signal)}.`,
    );
  }

  let args: Record<string, unknown> = action.args;
  if (options.validate === true) {
    const validated = validateToolArguments(tool, args, { toolCallId: action.id });
    if (!validated.ok)
      return call.fail('error', validated.error.code, validated.error.message, {
        ...validated.error.toJSON(),
      });
    args = validated.value;
  }

  const invocation = new ToolInvocation(progressReporter(call, tool, action.id, options));
  if (options.hooks?.beforeToolUse !== undefined) {
    let decision: BeforeToolUseDecision;
    try {
      decision = await options.hooks.beforeToolUse({
        action: { ...action, args },
        tool,
        signal: options.signal ?? invocation.controllerOf().signal,
      });
    } catch (thrown) {
      return call.fail('error', 'hook_failed', `The beforeToolUse hook failed: ${errorMessageOf(thrown)}`);
    }
    if (decision?.decision === 'block') {
      const reason = String(decision.reason);
      call.intercept(tool.name, { decision: 'blocked', reason, source: 'beforeToolUse' });
      return call.fail('blocked', 'blocked_by_hook', `The call to '${tool.name}' was blocked: ${reason}`);
    }
    if (decision?.decision === 'rewrite') {
      const reason = String(decision.reason);
      call.intercept(tool.name, { decision: 'rewritten', reason, source: 'beforeToolUse' });
      const validated = validateToolArguments(tool, decision.args, { toolCallId: action.id });
      if (!validated.ok) {
        return call.fail(
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
    return call.fail(
      'blocked',
      'approval_required',
      `Tool '${tool.name}' was not run: it needs approval, which this call did not have.`,
    );
  }
  // An async hook or approval predicate may have been pending while the caller aborted; the abort listener is added
  // only when the tool starts, and a listener added to an already-aborted signal never fires: check again first.
  // (A call, not a property read: TypeScript would keep the narrowing from the check before the hooks.)
  if (isAborted(options.signal)) {
    return call.fail(
      'aborted',
      'aborted',
      `Tool '${tool.name}' was not run: the run was aborted${abortedBecause(options.signal)}.`,
    );
  }

  const collected = collectInjected(call, tool, options);
  if (!collected.ok) return collected.observation;
  const finalArgs = mergeInjected(call, tool, args, collected.injected);
  const timeoutMs = callTimeout(tool, options);
  const context = createContext(tool, action.id, options, invocation, collected.injected, timeoutMs);
  const outcome = await runInvocation(invocation, tool, options, timeoutMs, false, () =>
    tool.execute(finalArgs, context),
  );
  return observeOutcome({ call, tool, action: { ...action, args: finalArgs }, options, timeoutMs }, outcome);
}

/** Reports a tool's progress as `tool-call-progress` until its outcome is known; nothing without a listener. */
export function progressReporter(
  call: CallRecorder,
  tool: Tool,
  actionId: string,
  options: ExecuteActionOptions,
): (progress: unknown) => void {
  if (options.onEvent === undefined) return () => {};
  return (progress: unknown): void => {
    call.emit({ type: 'tool-call-progress', timestamp: call.now(), actionId, toolName: tool.name, progress });
  };
}

/** The call's deadline: the shorter of the tool's and the caller's (both checked already; `Infinity` is none). */
export function callTimeout(tool: Tool, options: ExecuteActionOptions): number | undefined {
  const toolTimeoutMs = effectiveTimeout(tool.timeoutMs);
  const callTimeoutMs = effectiveTimeout(options.timeoutMs);
  if (callTimeoutMs === undefined) return toolTimeoutMs;
  return toolTimeoutMs === undefined ? callTimeoutMs : Math.min(toolTimeoutMs, callTimeoutMs);
}

/** The context the tool receives for this call. */
export function createContext(
  tool: Tool,
  toolCallId: string,
  options: ExecuteActionOptions,
  invocation: ToolInvocation,
  injected: Readonly<Record<string, unknown>>,
  timeoutMs: number | undefined,
): ExecutionContext {
  return new ExecutionContext({
    controllerOf: invocation.controllerOf,
    callerOptions: options,
    nestedTools: tool.nestedTools,
    runNested: executeNested,
    toolCallId,
    toolName: tool.name,
    injected,
    reportProgress: invocation.reportProgress,
    timeoutMs,
    // Read just before the call's timer starts (the callers start it next): the timer ends no earlier, to within its
    // millisecond resolution.
    deadlineAt: timeoutMs === undefined ? undefined : performance.now() + timeoutMs,
  });
}

/** Runs the tool through `start`, raced against its deadline, the caller's signal and (`interruptible`) the caller. */
export function runInvocation(
  invocation: ToolInvocation,
  tool: Tool,
  options: ExecuteActionOptions,
  timeoutMs: number | undefined,
  interruptible: boolean,
  start: () => unknown,
): Promise<Outcome> {
  return invocation.run(start, {
    timeoutMs,
    signal: options.signal,
    interruptible,
    timeoutReason: () => new Error(`Tool '${tool.name}' timed out after ${timeoutMs} ms`),
  });
}

/** The injected values a tool may see, or the observation of a call missing one. */
export type CollectedInjection =
  | { readonly ok: true; readonly injected: Readonly<Record<string, unknown>> }
  | { readonly ok: false; readonly observation: ToolObservation };

/**
 * The application's values of a tool's hidden parameters. A tool sees only the injected values it declares
 * (`inject`): credentials meant for one tool never reach another. One the application did not supply fails the call.
 */
export function collectInjected(
  call: CallRecorder,
  tool: Tool,
  options: ExecuteActionOptions,
): CollectedInjection {
  if (tool.inject.length === 0) return { ok: true, injected: NO_INJECTED };
  const injected = options.injected ?? NO_INJECTED;
  const own: Record<string, unknown> = {};
  for (const key of tool.inject) {
    if (!Object.hasOwn(injected, key)) {
      return {
        ok: false,
        observation: call.fail(
          'error',
          'missing_injected_value',
          `Tool '${tool.name}' needs the application to supply '${key}' (options.injected), and it was not given.`,
          { parameter: key },
        ),
      };
    }
    defineOwn(own, key, injected[key]);
  }
  return { ok: true, injected: Object.freeze(own) };
}

/**
 * The arguments with the hidden parameters filled in from `injected` (see {@link collectInjected}): a hidden
 * parameter the arguments set is replaced, and the replacement recorded as an interception.
 */
export function mergeInjected(
  call: CallRecorder,
  tool: Tool,
  args: Record<string, unknown>,
  injected: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  if (tool.inject.length === 0) return args;
  const merged: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) defineOwn(merged, key, value);
  const intoArgs = compiledToolOf(tool).injectedIntoArgs;
  for (const key of tool.inject) {
    if (Object.hasOwn(args, key)) {
      const reason = `the hidden parameter '${key}' was set in the arguments; the application's value was used`;
      call.intercept(tool.name, { decision: 'rewritten', reason, source: 'inject' });
    }
    if (intoArgs.has(key) || Object.hasOwn(args, key)) defineOwn(merged, key, injected[key]);
  }
  return merged;
}
