import { randomInt } from 'node:crypto';
import {
  type Action,
  abortReasonOf,
  combineListeners,
  errorMessageOf,
  type JsonValue,
  limitValueProblem,
  parseJsonStrict,
  type RunEventListener,
} from '@org/core';
import {
  DEFAULT_ARGUMENT_LIMITS,
  type ExecuteActionOptions,
  executeAction,
  InvalidToolOptionError,
  type Tool,
  type ToolObservation,
  ToolRegistry,
  toJsonValue,
  unattendedApprovalRefusal,
  validateToolArguments,
} from '@org/tools';
import { type CodeLimits, resolveCodeLimits } from './code-limits.js';
import type { CodeCallRecord, CodeResult, UnusedEarlyCall } from './code-result.js';
import { declareTools, type ProgramFunction } from './declare-tools.js';
import {
  CodeAbortedError,
  CodeLimitError,
  type CodeModeError,
  CodeModeOptionsError,
  CodeNeverSettlesError,
  CodeReturnValueError,
  CodeRuntimeError,
  CodeSandboxError,
  CodeSyntaxError,
} from './errors.js';
import { startSandbox, warmSandboxForProgram } from './sandbox-pool.js';
import type {
  CallMessage,
  CallResultMessage,
  ConsoleEntry,
  DoneMessage,
  SandboxOutcome,
} from './sandbox-protocol.js';
import { stripTypes } from './strip-types.js';

/**
 * Runs one call of the program. The default is `executeAction` with validation and coercion on and approval required;
 * `createCodeModeTool` passes the code call's `context.executeNested`, a durable run one that journals each call.
 * The call's arguments are already validated and coerced, and its approval decided; `onEvent` never throws.
 */
export type CodeCallExecutor = (
  action: Action,
  options: { readonly signal: AbortSignal; readonly onEvent: RunEventListener | undefined },
) => Promise<ToolObservation>;

/**
 * The program's only sources of nondeterminism. A durable run journals them (or seeds them), so a replay takes the
 * same path: `Date.now()` in the program is `now()` taken once at the start (time does not pass inside a program),
 * and `Math.random()` is a generator seeded with `randomSeed()`.
 */
export interface CodeEffects {
  /** The program's `Date.now()`, in milliseconds since the epoch, read once when it starts. Default `Date.now`. */
  readonly now?: () => number | Promise<number>;
  /** The seed of the program's `Math.random()` generator, read once when it starts. Default a random 32-bit integer. */
  readonly randomSeed?: () => number | Promise<number>;
}

/** A call already running or finished that the program may take over instead of making it again (streaming). */
export interface EarlyCallSource {
  /** The early call with this tool and equal arguments, removed from the source; undefined when there is none. */
  take(toolName: string, args: Record<string, unknown>): Promise<ToolObservation> | undefined;
  /** The early calls nobody took, once the program ended; each is stopped and its result discarded. */
  drain(): Promise<UnusedEarlyCall[]>;
}

/** Options of {@link runCode}. */
export interface RunCodeOptions {
  /** The tools the program may call, each as an async function (see `declareTools`). */
  readonly tools: ToolRegistry | Iterable<Tool>;
  /** Limits of the run, over {@link DEFAULT_CODE_LIMITS}. */
  readonly limits?: Partial<CodeLimits>;
  /** Calls running at once (`Promise.all` in the program); more wait their turn. Default 8. */
  readonly maxConcurrency?: number;
  /** Aborts the program and its running calls. */
  readonly signal?: AbortSignal;
  /** Receives each call's paired `tool-call-started` / `tool-call-finished` events; a throw in it is ignored. */
  readonly onEvent?: RunEventListener;
  /** Action ids are `<prefix><n>` for the program's n-th call. Default `code/`. */
  readonly actionIdPrefix?: string;
  /** Options of the default executor (`executeAction`): hooks, injected values, per-call timeout, output budget. */
  readonly callOptions?: Omit<ExecuteActionOptions, 'signal' | 'onEvent' | 'validate' | 'requireApproval'>;
  /** Runs each call (see {@link CodeCallExecutor}); replaces `callOptions`. */
  readonly executeCall?: CodeCallExecutor;
  /**
   * Decides a call whose tool needs approval. A program cannot pause for a human, so without it such a call is
   * refused (`blocked`, `approval_required`), with plan mode's advice: call the tool directly.
   */
  readonly approveCall?: (action: Action) => boolean | Promise<boolean>;
  /** Time and randomness of the program (see {@link CodeEffects}). */
  readonly effects?: CodeEffects;
  /** Calls started early, while the model's answer streamed (used by `createCodeModeTool`). */
  readonly earlyCalls?: EarlyCallSource;
}

const DEFAULT_MAX_CONCURRENCY = 8;

/**
 * How long an aborted program's worker has to say the program ended before it is terminated: a program waiting for
 * calls answers within a millisecond; one computing (or stuck inside one built-in) does not, and its worker is ended
 * as before.
 */
const CANCEL_GRACE_MS = 100;

const declarationsCache = new WeakMap<
  ToolRegistry,
  { readonly names: string; readonly functions: readonly ProgramFunction[] }
>();

/** The functions of a registry, computed again only when its tools change. */
function functionsOf(registry: ToolRegistry): readonly ProgramFunction[] {
  const names = registry.names().join('\u0000');
  const cached = declarationsCache.get(registry);
  if (cached !== undefined && cached.names === names) return cached.functions;
  const { functions } = declareTools(registry);
  declarationsCache.set(registry, { names, functions });
  return functions;
}

/** The `tools` option as a registry; anything else is a `CodeModeOptionsError` naming the option. */
export function toolsOption(tools: ToolRegistry | Iterable<Tool>): ToolRegistry {
  try {
    return ToolRegistry.from(tools, 'tools');
  } catch (error) {
    if (!InvalidToolOptionError.isInstance(error)) throw error;
    throw new CodeModeOptionsError({
      option: 'tools',
      value: tools,
      problem: 'must be a ToolRegistry or an array of tools',
    });
  }
}

/** Checks `maxConcurrency` (a whole number from 1, or `Infinity`). */
export function maxConcurrencyOption(value: number | undefined): number {
  const concurrency = value ?? DEFAULT_MAX_CONCURRENCY;
  const problem = limitValueProblem(concurrency, { infinity: true });
  if (problem !== undefined) throw new CodeModeOptionsError({ option: 'maxConcurrency', value, problem });
  return concurrency;
}

/**
 * Runs a program (TypeScript or JavaScript, the body of an async function: `await` and `return` at the top level)
 * in a QuickJS WebAssembly sandbox, in a worker thread. Each tool is a global async function taking one object; each
 * call goes through `executeAction` as a plan step does (validation and coercion, hooks, approval, timeout, abort,
 * redaction, output budget, paired events). Never throws for the program's faults: a syntax error, a throw, a limit,
 * an abort all come back as `CodeResult.error`, with the calls that already took effect. Throws
 * `CodeModeOptionsError` for bad options.
 *
 * @example
 * const result = await runCode(
 *   `const orders = await list_orders({});
 *    const details = await Promise.all(orders.map((o) => get_order({ id: o.id })));
 *    return details.filter((d) => !d.paid).reduce((sum, d) => sum + d.total, 0);`,
 *   { tools: [listOrders, getOrder] },
 * );
 * result.value; // 42.5
 */
export function runCode(source: string, options: RunCodeOptions): Promise<CodeResult> {
  return runProgram(source, options, undefined, undefined);
}

/**
 * `runCode` that also ends the program by `endBy`, a time as `performance.now()` reads it (the code tool's, a little
 * before its call's deadline), as if its wall time had passed: counted from the call, not from the program's start,
 * so the time types take to strip and a sandbox to start cannot move the program's end past the call's.
 */
export function runCodeBy(source: string, options: RunCodeOptions, endBy: number): Promise<CodeResult> {
  return runProgram(source, options, undefined, endBy);
}

/**
 * Where a prefix run's calls go instead of running (see `PrefixRuns`): the call as the program passed it (before
 * validation, as the final program's calls are matched to early ones), and the prefix run's signal. Never throws.
 */
export type SpeculativeCall = (action: Action, signal: AbortSignal) => Promise<ToolObservation>;

/**
 * Runs a program prefix speculatively, in a fresh sandbox with the given limits: every call goes to `speculate`
 * (nothing is validated, approved or run here) and no event is reported. `PrefixRuns` discards the result.
 * Time and randomness are the defaults, never the caller's `effects` (a durable run's journal is not for guesses).
 */
export function runSpeculativePrefix(
  source: string,
  options: Pick<RunCodeOptions, 'tools' | 'limits' | 'maxConcurrency' | 'signal'>,
  speculate: SpeculativeCall,
): Promise<CodeResult> {
  return runProgram(source, { ...options, actionIdPrefix: 'prefix/' }, speculate, undefined);
}

async function runProgram(
  source: string,
  options: RunCodeOptions,
  speculate: SpeculativeCall | undefined,
  endBy: number | undefined,
): Promise<CodeResult> {
  const registry = toolsOption(options.tools);
  const limits = resolveCodeLimits(options.limits);
  const maxConcurrency = maxConcurrencyOption(options.maxConcurrency);
  if (typeof source !== 'string')
    throw new CodeModeOptionsError({ option: 'source', value: source, problem: 'must be a string' });
  const startedAt = performance.now();
  // A worker's thread takes tens of milliseconds to start: it starts now, beside the type stripping below.
  warmSandboxForProgram();
  // The parser's work grows with the source: a source past its limit is refused before it is parsed.
  const sourceBytes =
    source.length > limits.maxSourceBytes ? source.length : Buffer.byteLength(source, 'utf8');
  if (sourceBytes > limits.maxSourceBytes) {
    const unusedEarlyCalls = (await options.earlyCalls?.drain()) ?? [];
    const error = new CodeLimitError({
      limit: 'maxSourceBytes',
      maximum: limits.maxSourceBytes,
      detail: `the program is ${source.length > limits.maxSourceBytes ? 'more than ' : ''}${sourceBytes} bytes`,
    });
    return failed(error, [], [], 0, startedAt, unusedEarlyCalls);
  }
  const stripped = await stripTypes(source);
  if (!stripped.ok) {
    const unusedEarlyCalls = (await options.earlyCalls?.drain()) ?? [];
    return failed(stripped.error, [], [], 0, startedAt, unusedEarlyCalls);
  }
  // Aborted while the types were stripped (a superseded prefix run, mostly): no worker is taken only to be ended.
  if (options.signal?.aborted === true) {
    const unusedEarlyCalls = (await options.earlyCalls?.drain()) ?? [];
    const reason = abortReasonOf(options.signal.reason) ?? 'the caller aborted';
    return failed(new CodeAbortedError({ reason }), [], [], 0, startedAt, unusedEarlyCalls);
  }
  const now = await (options.effects?.now?.() ?? Date.now());
  const randomSeed = await (options.effects?.randomSeed?.() ?? randomInt(0, 2 ** 32));
  // The application's listener is isolated: a throw in it must never cost a call its settlement, nor the host its
  // process (the refusals are told from the worker's message handler, where a throw is uncaught).
  const isolated: RunCodeOptions =
    options.onEvent === undefined ? options : { ...options, onEvent: combineListeners(options.onEvent) };
  const run = new CodeRun(registry, limits, maxConcurrency, isolated, speculate, endBy);
  return run.start(stripped.javascript, functionsOf(registry), now, randomSeed, startedAt);
}

function failed(
  error: CodeModeError,
  calls: readonly CodeCallRecord[],
  consoleEntries: readonly ConsoleEntry[],
  cpuMs: number,
  startedAt: number,
  unusedEarlyCalls: readonly UnusedEarlyCall[],
): CodeResult {
  return {
    status: 'error',
    value: undefined,
    console: consoleEntries,
    calls,
    error,
    unusedEarlyCalls,
    durationMs: performance.now() - startedAt,
    cpuMs,
  };
}

let nextRunId = 1;

/** One program's run on the host side: its calls, their concurrency, its deadline and how it ended. */
class CodeRun {
  private readonly controller = new AbortController();
  private readonly records: CodeCallRecord[] = [];
  private readonly running = new Set<Promise<void>>();
  private readonly queue: (() => void)[] = [];
  private active = 0;
  private ended = false;

  constructor(
    private readonly registry: ToolRegistry,
    private readonly limits: CodeLimits,
    private readonly maxConcurrency: number,
    private readonly options: RunCodeOptions,
    private readonly speculate: SpeculativeCall | undefined,
    /** When the program must have ended, on `performance.now()`'s clock, whatever wall time is left (`runCodeBy`). */
    private readonly endBy: number | undefined,
  ) {}

  start(
    program: string,
    functions: readonly ProgramFunction[],
    now: number,
    randomSeed: number,
    startedAt: number,
  ): Promise<CodeResult> {
    const runId = nextRunId++;
    return new Promise<CodeResult>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const signal = this.options.signal;
      const onAbort = (): void => {
        void end(
          new CodeAbortedError({ reason: abortReasonOf(signal?.reason) ?? 'the caller aborted' }),
          'cancel',
        );
      };
      /**
       * How the worker is let go: `release` (the program ended), `cancel` (aborted: most often it only waits for
       * calls, so its worker is kept; see `SandboxSession.cancel`) or `terminate` (past its wall time: it may be stuck
       * inside one built-in).
       */
      const end = async (
        outcome: CodeModeError | { value: JsonValue | undefined },
        worker: 'release' | 'cancel' | 'terminate',
        consoleEntries: readonly ConsoleEntry[] = [],
        cpuMs = 0,
      ): Promise<void> => {
        if (this.ended) return;
        this.ended = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        // A worker past its wall time is terminated without waiting for its thread to exit: its listener is already
        // gone, so it reaches nothing, and the result must not wait (it may be due just before the call's deadline).
        if (worker === 'terminate') void session.terminate();
        // The worker comes back to the pool on its own: the aborted run's result does not wait for it.
        else if (worker === 'cancel') void session.cancel(CANCEL_GRACE_MS);
        else session.release();
        // Calls still running when the program ended are stopped; their observations (aborted) are still reported.
        // Calls still waiting for a slot are refused without running: the signal is aborted before they are let go.
        this.controller.abort(new CodeAbortedError({ reason: 'the program ended before the call finished' }));
        for (const start of this.queue.splice(0)) start();
        await Promise.all(this.running);
        const unusedEarlyCalls = (await this.options.earlyCalls?.drain()) ?? [];
        const calls = [...this.records].sort((left, right) => left.index - right.index);
        if ('value' in outcome) {
          resolve({
            status: 'success',
            value: outcome.value,
            console: consoleEntries,
            calls,
            error: undefined,
            unusedEarlyCalls,
            durationMs: performance.now() - startedAt,
            cpuMs,
          });
        } else {
          resolve(failed(outcome, calls, consoleEntries, cpuMs, startedAt, unusedEarlyCalls));
        }
      };
      const session = startSandbox(
        {
          type: 'run',
          runId,
          program,
          functions,
          limits: this.limits,
          maxArgumentsBytes: DEFAULT_ARGUMENT_LIMITS.maxBytes,
          now,
          randomSeed,
        },
        {
          onCall: (message) => this.onCall(message, session.post),
          onDone: (message) => {
            void end(this.outcomeOf(message), 'release', message.console, message.cpuMs);
          },
          onCrash: (reason) => {
            void end(new CodeSandboxError({ reason }), 'release');
          },
        },
      );
      // A prefix run took the warm worker: the next run (the final program, or the next prefix) finds another one.
      if (this.speculate !== undefined) warmSandboxForProgram();
      timer = setTimeout(() => {
        void end(new CodeLimitError({ limit: 'wallTimeMs', maximum: this.limits.wallTimeMs }), 'terminate');
      }, this.wallTimeLeft());
      if (signal?.aborted === true) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** How long the program may still run: its wall time, or less when it must have ended by `endBy`. */
  private wallTimeLeft(): number {
    const wallTimeMs = this.limits.wallTimeMs;
    return this.endBy === undefined
      ? wallTimeMs
      : Math.max(0, Math.min(wallTimeMs, this.endBy - performance.now()));
  }

  /** How the worker's outcome reads for the caller and the model. */
  private outcomeOf(message: DoneMessage): CodeModeError | { value: JsonValue | undefined } {
    const outcome: SandboxOutcome = message.outcome;
    const limits = this.limits;
    switch (outcome.kind) {
      case 'returned': {
        if (outcome.json === undefined) return { value: undefined };
        try {
          // The program's value is hostile: the strict reader defines keys as own properties (no `__proto__`
          // setter), refuses depth past 64, and never looks anything up through a prototype.
          return { value: parseJsonStrict(outcome.json) as JsonValue };
        } catch (error) {
          return new CodeReturnValueError({ reason: errorMessageOf(error) });
        }
      }
      case 'syntax':
        return new CodeSyntaxError({
          reason: outcome.reason,
          ...(outcome.line === undefined ? {} : { line: outcome.line }),
          ...(outcome.column === undefined ? {} : { column: outcome.column }),
        });
      case 'threw':
        return new CodeRuntimeError({
          errorName: outcome.errorName,
          reason: outcome.reason,
          ...(outcome.line === undefined ? {} : { line: outcome.line }),
          ...(outcome.column === undefined ? {} : { column: outcome.column }),
        });
      case 'limit':
        return new CodeLimitError({
          limit: outcome.limit,
          maximum: limits[outcome.limit],
          ...(outcome.detail === undefined ? {} : { detail: outcome.detail }),
        });
      case 'never-settles':
        return new CodeNeverSettlesError();
      case 'invalid-return':
        return new CodeReturnValueError({ reason: outcome.reason });
      case 'crashed':
        return new CodeSandboxError({ reason: outcome.reason });
      case 'cancelled':
        // Only after an abort, which ended the run first; kept for a complete reading.
        return new CodeAbortedError({ reason: 'the host cancelled the program' });
    }
  }

  /** A call from the program: read its arguments, wait for a free slot, run it, hand its outcome back. */
  private onCall(message: CallMessage, post: (message: CallResultMessage) => void): void {
    if (this.ended) return;
    const reply = (observation: ToolObservation): void => {
      if (this.ended) return;
      if (observation.status === 'success') {
        const output = observation.rawOutput === undefined ? observation.output : observation.rawOutput;
        // Made JSON safely (cycles, BigInt, class instances), bounded at 16 MiB; the sandbox's byte limit applies next.
        const json = JSON.stringify(toJsonValue(output ?? null));
        post({ type: 'call-result', runId: message.runId, callId: message.callId, json });
      } else {
        const error = observation.error ?? {
          code: observation.status,
          message: `The call ended with '${observation.status}'.`,
        };
        post({
          type: 'call-result',
          runId: message.runId,
          callId: message.callId,
          error: { code: error.code, status: observation.status, message: error.message },
        });
      }
    };
    const action: Action = {
      id: `${this.options.actionIdPrefix ?? 'code/'}${message.callId}`,
      toolName: message.toolName,
      args: {},
    };
    const args = this.readArguments(message.args);
    if (!args.ok) {
      const observation = this.refuse(action, 'error', 'invalid_tool_arguments', args.reason);
      this.records.push({ index: message.callId, toolName: message.toolName, args: undefined, observation });
      reply(observation);
      return;
    }
    const fullAction: Action = { ...action, args: args.value };
    const launch = (): void => {
      this.active += 1;
      const pending = this.runCall(fullAction)
        // An executor is not to throw (its failures are observations), but one that does still settles the call.
        .catch((error: unknown) => ({
          observation: this.refuse(
            fullAction,
            'error',
            'tool_execution_failed',
            `Call to '${fullAction.toolName}' failed: ${errorMessageOf(error)}`,
          ),
          early: false,
        }))
        .then(({ observation, early }) => {
          this.active -= 1;
          this.records.push({
            index: message.callId,
            toolName: message.toolName,
            args: args.value,
            observation,
            ...(early ? { early } : {}),
          });
          this.running.delete(pending);
          reply(observation);
          this.queue.shift()?.();
        });
      this.running.add(pending);
    };
    if (this.active < this.maxConcurrency) launch();
    else this.queue.push(launch);
  }

  /** The arguments' JSON text as an object, read strictly and within the arguments' size limit. */
  private readArguments(
    text: string,
  ): { ok: true; value: Record<string, unknown> } | { ok: false; reason: string } {
    const maximum = DEFAULT_ARGUMENT_LIMITS.maxBytes;
    if (text.length > maximum || Buffer.byteLength(text, 'utf8') > maximum)
      return { ok: false, reason: `The arguments are larger than ${maximum} bytes of JSON.` };
    let value: unknown;
    try {
      value = parseJsonStrict(text);
    } catch (error) {
      return { ok: false, reason: `The arguments are not valid JSON: ${errorMessageOf(error)}` };
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return {
        ok: false,
        reason: 'A tool function takes one object of named arguments, e.g. get_order({ id: "o1" }).',
      };
    return { ok: true, value: value as Record<string, unknown> };
  }

  /** One call: an early start of the same call taken over, or the call run now. */
  private async runCall(action: Action): Promise<{ observation: ToolObservation; early: boolean }> {
    if (this.speculate !== undefined)
      return { observation: await this.speculate(action, this.controller.signal), early: true };
    const early = this.options.earlyCalls?.take(action.toolName, action.args);
    if (early !== undefined) return { observation: await early, early: true };
    return { observation: await this.runOwnCall(action), early: false };
  }

  /** A call the program makes itself: the approval rule, then the executor. */
  private async runOwnCall(action: Action): Promise<ToolObservation> {
    const signal = this.controller.signal;
    if (signal.aborted) {
      return this.refuse(
        action,
        'aborted',
        'aborted',
        `Call to '${action.toolName}' was not run: the program had ended.`,
      );
    }
    try {
      const tool = this.registry.resolve(action.toolName);
      // As in plan mode: the arguments are validated and coerced first, approval is decided on the coerced value,
      // and exactly that value runs. Deciding on the raw text would let `{ force: "true" }` pass a rule on
      // `force === true` and then run coerced to `true`.
      let call = action;
      if (tool !== undefined) {
        const checked = validateToolArguments(tool, action.args, { coerce: true, toolCallId: action.id });
        if (!checked.ok) {
          const { code, message } = checked.error;
          return this.refuse(action, 'error', code, message, { ...checked.error.toJSON() });
        }
        call = { ...action, args: checked.value as Record<string, unknown> };
      }
      if (tool !== undefined && tool.needsApproval !== false) {
        // The rule plan steps follow too (`unattendedApprovalRefusal`): the same decision, the same words.
        const refusal = await unattendedApprovalRefusal(tool, call, {
          subject: `Call to '${tool.name}'`,
          container: 'program',
          approve: this.options.approveCall,
        });
        if (refusal !== undefined)
          return this.refuse(call, 'blocked', refusal.code, refusal.message, refusal.details);
      }
      const onEvent = this.options.onEvent;
      if (this.options.executeCall !== undefined)
        return await this.options.executeCall(call, { signal, onEvent });
      return await executeAction(this.registry, call, {
        ...this.options.callOptions,
        signal,
        // Validated and coerced above against this registry's tool (an unknown tool is refused either way): a second
        // pass on every call would find nothing, as the plan executor's steps skip it too.
        validate: false,
        // Approval was decided above, on these (coerced) arguments.
        requireApproval: false,
        ...(onEvent === undefined ? {} : { onEvent }),
      });
    } catch (error) {
      return this.refuse(
        action,
        'error',
        'tool_execution_failed',
        `Call to '${action.toolName}' failed: ${errorMessageOf(error)}`,
      );
    }
  }

  /** The observation of a call that did not run, reported with its `tool-call-finished` like any other. */
  private refuse(
    action: Action,
    status: ToolObservation['status'],
    code: string,
    message: string,
    details?: Readonly<Record<string, unknown>>,
  ): ToolObservation {
    const observation: ToolObservation = {
      actionId: action.id,
      toolName: action.toolName,
      status,
      error: details === undefined ? { code, message } : { code, message, details },
      durationMs: 0,
    };
    this.options.onEvent?.({ type: 'tool-call-finished', timestamp: Date.now(), observation });
    return observation;
  }
}
