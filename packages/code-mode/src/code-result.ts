import type { Action, JsonValue } from '@org/core';
import type { ToolObservation } from '@org/tools';
import type { CodeModeError } from './errors.js';
import type { ConsoleEntry } from './sandbox-protocol.js';

export type { ConsoleEntry } from './sandbox-protocol.js';

/** One call the program made, in the order it made them. */
export interface CodeCallRecord {
  /** 1-based, in the order the program made its calls (also the end of the action id: `<prefix><index>`). */
  readonly index: number;
  readonly toolName: string;
  /** The arguments as the program passed them (before coercion). */
  readonly args: unknown;
  /** The call's observation from `executeAction` (raw output kept for the caller). */
  readonly observation: ToolObservation;
  /** True when the call started early, while the model's answer streamed (see `createCodeModeTool`). */
  readonly early?: boolean;
}

/** A call that started early while the answer streamed, and that the program never made: its result was dropped. */
export interface UnusedEarlyCall {
  readonly action: Action;
  readonly observation: ToolObservation;
}

/** How a program run ended. */
export interface CodeResult {
  /** `success`: the program returned. `error`: it threw, hit a limit, was aborted or did not parse (`error`). */
  readonly status: 'success' | 'error';
  /** The program's return value (JSON), `undefined` when it returned nothing or failed. */
  readonly value: JsonValue | undefined;
  /** What the program wrote with `console`, within `maxConsoleBytes`. */
  readonly console: readonly ConsoleEntry[];
  /** Every call the program made, with its observation; on failure these are the calls that already took effect. */
  readonly calls: readonly CodeCallRecord[];
  /** Why the program failed, when it did. */
  readonly error: CodeModeError | undefined;
  /** Early calls the program did not make (streaming only); their results were discarded. */
  readonly unusedEarlyCalls: readonly UnusedEarlyCall[];
  readonly durationMs: number;
  /** Time the program computed inside the sandbox. */
  readonly cpuMs: number;
}
