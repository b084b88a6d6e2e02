import type { Action, ToolCall } from '@org/core';
import type { ExecuteActionOptions, NestedExecuteOptions, ToolObservation } from './execute-action.js';
import { DEFAULT_OUTPUT_BUDGET_BYTES } from './serialize-output.js';
import type { ToolExecutionContext, ToolRunView } from './tool.js';
import type { ToolRegistry } from './tool-registry.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Runs a nested call for a context: `executeNested` of `execute-action.ts`, passed in to keep imports one-way. */
export type NestedRunner = (
  context: ToolExecutionContext,
  nestedTools: ToolRegistry | undefined,
  caller: ExecuteActionOptions,
  action: Action,
  nested: NestedExecuteOptions,
) => Promise<ToolObservation>;

/** What a context is built from: the call's identity, its limits, and how to reach its signal and nested calls. */
export interface ExecutionContextSetup {
  readonly controllerOf: () => AbortController;
  readonly callerOptions: ExecuteActionOptions;
  readonly nestedTools: ToolRegistry | undefined;
  readonly runNested: NestedRunner;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly injected: Readonly<Record<string, unknown>>;
  readonly reportProgress: (progress: unknown) => void;
  readonly timeoutMs: number | undefined;
  /** When the call's deadline passes on `performance.now()`'s clock (read before its timer starts), if it has one. */
  readonly deadlineAt: number | undefined;
}

/**
 * The context a tool receives. `signal` and `executeNested` are own, enumerable getters (as on a plain object:
 * spreading the context keeps them) that create what they return on first read: the call's AbortController, the
 * nested runner. Each getter is one shared function, defined with one shared descriptor, so every context has the
 * same shape; an object literal with a getter costs microseconds.
 */
export class ExecutionContext implements ToolExecutionContext {
  static readonly #signal: PropertyDescriptor = {
    get(this: ExecutionContext): AbortSignal {
      return this.#setup.controllerOf().signal;
    },
    enumerable: true,
    configurable: true,
  };
  static readonly #executeNested: PropertyDescriptor = {
    get(this: ExecutionContext): ToolExecutionContext['executeNested'] {
      const setup = this.#setup;
      this.#nested ??= (action, nested = {}) =>
        setup.runNested(this, setup.nestedTools, setup.callerOptions, action, nested);
      return this.#nested;
    },
    enumerable: true,
    configurable: true,
  };
  readonly #setup: ExecutionContextSetup;
  #nested: ToolExecutionContext['executeNested'] | undefined;
  declare readonly signal: AbortSignal;
  declare readonly toolCallId: string;
  declare readonly toolName: string;
  declare readonly injected: Readonly<Record<string, unknown>>;
  declare readonly reportProgress: (progress: unknown) => void;
  declare readonly executeNested: ToolExecutionContext['executeNested'];
  declare readonly timeoutMs: number | undefined;
  declare readonly deadlineAt: number | undefined;
  declare readonly outputBudgetBytes: number;
  declare readonly run: ToolRunView | undefined;
  declare readonly toolCall: ToolCall | undefined;

  constructor(setup: ExecutionContextSetup) {
    this.#setup = setup;
    Object.defineProperty(this, 'signal', ExecutionContext.#signal);
    const self = this as Mutable<ExecutionContext>;
    self.toolCallId = setup.toolCallId;
    self.toolName = setup.toolName;
    self.injected = setup.injected;
    self.reportProgress = setup.reportProgress;
    self.timeoutMs = setup.timeoutMs;
    self.deadlineAt = setup.deadlineAt;
    self.outputBudgetBytes = setup.callerOptions.outputBudgetBytes ?? DEFAULT_OUTPUT_BUDGET_BYTES;
    const run = setup.callerOptions.run;
    self.run = run;
    self.toolCall = run === undefined ? undefined : findToolCall(run.toolCalls, setup.toolCallId);
    Object.defineProperty(this, 'executeNested', ExecutionContext.#executeNested);
  }
}

/** The call with this id among a step's calls; a step has a handful of calls, so a scan beats building a map. */
function findToolCall(toolCalls: readonly ToolCall[], toolCallId: string): ToolCall | undefined {
  for (const call of toolCalls) if (call.id === toolCallId) return call;
  return undefined;
}
