import {
  AbortedError,
  type Action,
  limitValueProblem,
  type ObservationError,
  type ObservationStatus,
  utf8ByteLength,
} from '@org/core';
import { abortedBecause, CallRecorder, reasonSuffix, withPairedEvents } from './call-recorder.js';
import { InvalidToolOptionError } from './errors.js';
import {
  type CollectedInjection,
  callTimeout,
  checkExecuteOptions,
  collectInjected,
  createContext,
  type ExecuteActionOptions,
  executeAction,
  mergeInjected,
  progressReporter,
  runInvocation,
  type ToolObservation,
} from './execute-action.js';
import { DEFAULT_ARGUMENT_LIMITS } from './limits.js';
import { observeOutcome } from './observe-outcome.js';
import type { Tool } from './tool.js';
import { ToolInputController } from './tool-input-stream.js';
import { ToolInvocation } from './tool-invocation.js';
import { ToolRegistry } from './tool-registry.js';
import { validateToolArguments } from './validate-tool-arguments.js';

/** Options of {@link executeStreamingAction}: those of `executeAction`, plus the bound of the streamed text. */
export interface StreamingActionOptions extends ExecuteActionOptions {
  /**
   * Largest argument text accepted while it streams, in UTF-8 bytes (default 1 MiB, the default of
   * `ArgumentLimits.maxBytes`). Past it the call fails with `limit_exceeded` and the tool's signal is aborted.
   */
  readonly maxArgumentBytes?: number;
}

/** The call a model announced in its stream: its id and the tool it names. */
export interface StreamingCall {
  readonly id: string;
  readonly toolName: string;
}

/**
 * A call whose arguments are still streaming: feed it the model's fragments, then either `complete` it with the
 * validated action or `abort` it. Exactly one observation comes out, whatever happens.
 */
export interface StreamingActionExecution {
  /** A fragment of the raw argument text, in order. Ignored once the call is complete or stopped. */
  push(fragment: string): void;
  /**
   * The call is complete and will run: `action` is the call as it will run (its `id` and tool those given at the
   * start, its `args` parsed and validated; with `validate: true` they are validated here). Call it once the answer
   * holding the call is final (nothing can discard it any more): a tool that started early does what a discarded
   * answer would regret only after this. Invalid arguments (with `validate: true`) end the call with the validation
   * error. Throws `InvalidToolOptionError` for an action of another call.
   */
  complete(action: Action): void;
  /**
   * The call will not run as written (the answer was discarded, the call was cut off or is invalid): a tool that
   * started is aborted through its signal, its input fails with an `AbortedError`, and the observation is `aborted`.
   * After `complete`, it aborts the running call like the caller's signal. Ignored once the observation is known.
   */
  abort(reason?: unknown): void;
  /** The call's observation; never rejects for a tool's failure (as `executeAction`). */
  readonly observation: Promise<ToolObservation>;
  /**
   * Whether the tool started before its arguments were complete (it has `executeStreaming`, and neither a
   * `beforeToolUse` hook nor an approval has to be decided first). Otherwise the call runs as `executeAction` at
   * `complete`, and `push` only feeds the bound on the text.
   */
  readonly startedEarly: boolean;
}

/**
 * Starts a call while the model is still writing its arguments. A tool with `executeStreaming` starts at once,
 * reading the argument text as it streams, unless something must see the final arguments first: a `beforeToolUse`
 * hook (it sees every call before it runs) or an approval (`requireApproval` and a tool that may need one). Every
 * other call, and those, run at `complete` exactly as `executeAction` runs them. The rules are those of
 * `executeAction` throughout: the deadline (from the start), the output budget, the hooks after the call, hidden
 * parameters, paired `tool-call-started` / `tool-call-finished` events (a call that started early is announced with
 * the arguments known then, `{}`: its complete arguments are on the `tool-call-arguments-complete` event the agent
 * loop emits when the model finishes writing them, or, driving this directly, the action given to `complete`), the
 * context fields and the error mapping. Invalid options throw an `InvalidToolOptionError` at once.
 *
 * @example
 * const execution = executeStreamingAction(registry, { id: part.toolCallId, toolName: part.toolName }, { signal });
 * // for each 'tool-call-delta' part of this call:
 * execution.push(part.argumentsDelta);
 * // once the answer is final, with the call turned into an action (toolCallToAction):
 * execution.complete(action); // or execution.abort(reason) when the answer is discarded
 * const observation = await execution.observation;
 */
export function executeStreamingAction(
  tools: ToolRegistry | Tool,
  call: StreamingCall,
  options: StreamingActionOptions = {},
): StreamingActionExecution {
  checkExecuteOptions(options);
  let maxBytes: number = DEFAULT_ARGUMENT_LIMITS.maxBytes;
  if (options.maxArgumentBytes !== undefined) {
    const problem = limitValueProblem(options.maxArgumentBytes, { infinity: true });
    if (problem !== undefined)
      throw new InvalidToolOptionError({ option: 'maxArgumentBytes', reason: problem });
    maxBytes = options.maxArgumentBytes;
  }
  const registry = registryOf(tools);
  const tool = registry.resolve(call.toolName);
  const early =
    tool?.executeStreaming !== undefined &&
    options.hooks?.beforeToolUse === undefined &&
    !(options.requireApproval === true && tool.needsApproval !== false) &&
    options.signal?.aborted !== true;
  return early
    ? startEarly(registry, tool, call, options, maxBytes)
    : runAtCompletion(registry, call, options, maxBytes);
}

function registryOf(tools: ToolRegistry | Tool): ToolRegistry {
  if (typeof (tools as { resolve?: unknown }).resolve === 'function') return tools as ToolRegistry;
  return new ToolRegistry([tools as Tool]);
}

function checkIdentity(registry: ToolRegistry, call: StreamingCall, action: Action): void {
  if (
    action.id !== call.id ||
    (action.toolName !== call.toolName &&
      registry.resolve(action.toolName) !== registry.resolve(call.toolName))
  ) {
    throw new InvalidToolOptionError({
      option: 'action',
      reason: `complete() was given the call '${action.id}' of '${action.toolName}', but this execution is the call '${call.id}' of '${call.toolName}'`,
    });
  }
}

/** A call that waits for its whole arguments: `executeAction` at `complete`, a not-run observation at `abort`. */
function runAtCompletion(
  registry: ToolRegistry,
  call: StreamingCall,
  options: StreamingActionOptions,
  maxBytes: number,
): StreamingActionExecution {
  let settle!: (observation: Promise<ToolObservation>) => void;
  const observation = new Promise<ToolObservation>((resolve) => {
    settle = resolve;
  });
  let decided = false;
  let bytes = 0;
  const signal = options.signal;
  const onAbort = (): void =>
    notRun('aborted', {
      code: 'aborted',
      message: `Tool '${call.toolName}' was not run: the run was aborted${abortedBecause(signal)}.`,
    });
  // The caller's signal ends a call still waiting for its arguments, as it ends one that runs.
  signal?.addEventListener('abort', onAbort, { once: true });
  const notRun = (status: ObservationStatus, error: ObservationError): void => {
    if (decided) return;
    decided = true;
    signal?.removeEventListener('abort', onAbort);
    // A call that never started: a `tool-call-finished` without a `tool-call-started`, as core's events say.
    const recorder = new CallRecorder(call, options, undefined);
    settle(Promise.resolve(recorder.fail(status, error.code, error.message, error.details)));
  };
  if (signal?.aborted === true) onAbort();
  return {
    startedEarly: false,
    observation,
    push(fragment) {
      if (decided) return;
      bytes += utf8ByteLength(fragment);
      if (bytes > maxBytes) notRun('error', overflowError(maxBytes, bytes));
    },
    complete(action) {
      if (decided) return;
      checkIdentity(registry, call, action);
      decided = true;
      signal?.removeEventListener('abort', onAbort);
      settle(executeAction(registry, action, options));
    },
    abort(reason) {
      if (decided) return;
      notRun('aborted', {
        code: 'aborted',
        message: `Tool '${call.toolName}' was not run: its call was stopped before it was complete${reasonSuffix(reason)}.`,
      });
    },
  };
}

function overflowError(maximum: number, actual: number): ObservationError {
  return {
    code: 'limit_exceeded',
    message: `The arguments grew past ${maximum} bytes while they streamed (at least ${actual}); the limit 'maxArgumentBytes' is ${maximum}.`,
    details: { limit: 'maxArgumentBytes', maximum, actual },
  };
}

/** How the call was settled from outside: it will run, or it will not. */
type Decision =
  | { readonly kind: 'complete'; readonly action: Action }
  | { readonly kind: 'aborted'; readonly reason: unknown }
  | { readonly kind: 'rejected'; readonly status: ObservationStatus; readonly error: ObservationError };

/** A call whose tool starts now, on the streaming input (`executeStreaming`). */
function startEarly(
  registry: ToolRegistry,
  tool: Tool,
  call: StreamingCall,
  options: StreamingActionOptions,
  maxBytes: number,
): StreamingActionExecution {
  const input = new ToolInputController<Record<string, unknown>>(maxBytes);
  let decide!: (decision: Decision) => void;
  const decision = new Promise<Decision>((resolve) => {
    decide = resolve;
  });
  let decided = false;
  let finished = false;
  let recorder: CallRecorder | undefined;
  let invocation: ToolInvocation | undefined;
  let collected: CollectedInjection | undefined;

  const reject = (status: ObservationStatus, error: ObservationError, reason: unknown): void => {
    decided = true;
    input.fail(reason);
    invocation?.interrupt({ kind: 'rejected', reason, status, error });
    decide({ kind: 'rejected', status, error });
  };

  const observation = withPairedEvents(call, options, async (events) => {
    const started = new CallRecorder(call, options, events);
    recorder = started;
    // Announced as it starts: the arguments are not known yet.
    started.start({ id: call.id, toolName: call.toolName, args: {} });
    const injection = collectInjected(started, tool, options);
    collected = injection;
    if (!injection.ok) {
      decided = true;
      input.fail(
        new AbortedError({ operation: `The call of '${tool.name}'`, cause: injection.observation.error }),
      );
      return injection.observation;
    }
    const running = new ToolInvocation(progressReporter(started, tool, call.id, options));
    invocation = running;
    const timeoutMs = callTimeout(tool, options);
    const context = createContext(tool, call.id, options, running, injection.injected, timeoutMs);
    const outcome = await runInvocation(running, tool, options, timeoutMs, true, () =>
      // Present: checked by executeStreamingAction before it chose to start early.
      tool.executeStreaming!(input.stream, context),
    );
    finished = true;
    if (outcome.kind !== 'returned' && outcome.kind !== 'thrown') {
      // Stopped: what the tool still reads from its input ends too.
      input.fail(new AbortedError({ operation: `The call of '${tool.name}'` }));
      return observeOutcome({ call: started, tool, action: emptyAction(call), options, timeoutMs }, outcome);
    }
    // The result counts only once the call is known to run (or the caller's signal ends the call first).
    const settled = await decidedOrAborted(decision, options.signal);
    if (settled.kind === 'complete')
      return observeOutcome({ call: started, tool, action: settled.action, options, timeoutMs }, outcome);
    if (settled.kind === 'aborted')
      return started.fail(
        'aborted',
        'aborted',
        `Tool '${tool.name}' was aborted: its call was stopped before it was complete${reasonSuffix(settled.reason)}.`,
      );
    return observeOutcome(
      { call: started, tool, action: emptyAction(call), options, timeoutMs },
      { kind: 'rejected', status: settled.status, error: settled.error },
    );
  });

  return {
    startedEarly: true,
    observation,
    push(fragment) {
      if (decided || !input.open) return;
      const overflow = input.push(fragment);
      if (overflow !== undefined) reject('error', overflowError(maxBytes, overflow.actual), overflow);
    },
    complete(action) {
      if (decided) return;
      checkIdentity(registry, call, action);
      let args = action.args;
      if (options.validate === true) {
        const validated = validateToolArguments(tool, args, { toolCallId: action.id });
        if (!validated.ok) {
          const error = validated.error;
          reject(
            'error',
            { code: error.code, message: error.message, details: { ...error.toJSON() } },
            error,
          );
          return;
        }
        args = validated.value;
      }
      decided = true;
      // `collected` is set synchronously when the call starts; a call missing an injected value is decided already.
      if (recorder !== undefined && collected?.ok === true)
        args = mergeInjected(recorder, tool, args, collected.injected);
      const final: Action = { id: action.id, toolName: action.toolName, args };
      input.complete(args);
      decide({ kind: 'complete', action: final });
    },
    abort(reason) {
      if (finished && decided) return;
      const error = new AbortedError({ operation: `The call of '${tool.name}'`, cause: reason });
      input.fail(error);
      invocation?.interrupt({ kind: 'aborted', reason });
      if (!decided) {
        decided = true;
        decide({ kind: 'aborted', reason });
      }
    },
  };
}

/** The decision, unless the caller's signal aborts first (the tool's outcome is known, nothing else would stop it). */
async function decidedOrAborted(
  decision: Promise<Decision>,
  signal: AbortSignal | undefined,
): Promise<Decision> {
  if (signal === undefined) return decision;
  if (signal.aborted) return { kind: 'aborted', reason: signal.reason };
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<Decision>((resolve) => {
    onAbort = () => resolve({ kind: 'aborted', reason: signal.reason });
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([decision, aborted]);
  } finally {
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  }
}

function emptyAction(call: StreamingCall): Action {
  return { id: call.id, toolName: call.toolName, args: {} };
}
