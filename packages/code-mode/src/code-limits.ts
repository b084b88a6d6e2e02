import { limitValueProblem } from '@org/core';
import { CodeModeOptionsError } from './errors.js';

/** The limits a program runs within. Each one, when passed, stops the program with a `CodeLimitError`. */
export interface CodeLimits {
  /** Wall-clock time of the whole run, tool calls included. Past it the sandbox's thread is terminated. */
  readonly wallTimeMs: number;
  /**
   * Time the program itself computes (between tool calls), checked by QuickJS's interrupt handler. Measured on the
   * worker's clock while the program's code runs (Node has no per-thread CPU clock), so a loaded machine counts the
   * time the worker waits for a core too.
   */
  readonly cpuTimeMs: number;
  /** The sandbox's whole WebAssembly memory (a fresh memory per run, so the bound is real). At least 16 MiB. */
  readonly memoryBytes: number;
  /** QuickJS's stack. Kept small: a deeper stack can overflow the host's own before QuickJS notices. */
  readonly stackBytes: number;
  /** Tool calls one program may make. */
  readonly maxToolCalls: number;
  /** Bytes of tool results passed into the sandbox, all calls together (JSON text, UTF-8). */
  readonly maxInputBytes: number;
  /** Bytes of the program's return value (JSON text, UTF-8). */
  readonly maxReturnBytes: number;
  /** Bytes of console output (`console.log` and friends). */
  readonly maxConsoleBytes: number;
  /** Bytes of the program's source (UTF-8): a longer one is refused before it is parsed. */
  readonly maxSourceBytes: number;
}

/** The default limits: generous for a program that orchestrates tools, tight for one that computes. */
export const DEFAULT_CODE_LIMITS: CodeLimits = Object.freeze({
  wallTimeMs: 60_000,
  cpuTimeMs: 2_000,
  memoryBytes: 64 * 1024 * 1024,
  stackBytes: 64 * 1024,
  maxToolCalls: 200,
  maxInputBytes: 8 * 1024 * 1024,
  maxReturnBytes: 256 * 1024,
  maxConsoleBytes: 64 * 1024,
  maxSourceBytes: 1024 * 1024,
});

// QuickJS's module starts with 16 MiB of memory; a memory may not be smaller than its start.
const MINIMUM_MEMORY_BYTES = 16 * 1024 * 1024;
// A WebAssembly memory (32-bit) addresses at most 4 GiB.
const MAXIMUM_MEMORY_BYTES = 4 * 1024 * 1024 * 1024;
// QuickJS's own frames need room; above this the WebAssembly stack of Node can overflow first (measured).
const MAXIMUM_STACK_BYTES = 256 * 1024;

/** The limits given, over the defaults, each checked: a bad value is the caller's error, thrown at once. */
export function resolveCodeLimits(given: Partial<CodeLimits> | undefined): CodeLimits {
  const limits: CodeLimits = { ...DEFAULT_CODE_LIMITS, ...given };
  for (const name of Object.keys(DEFAULT_CODE_LIMITS) as (keyof CodeLimits)[]) {
    const value = limits[name];
    const problem = limitValueProblem(value, {
      minimum: name === 'memoryBytes' ? MINIMUM_MEMORY_BYTES : name === 'stackBytes' ? 16 * 1024 : 1,
    });
    if (problem !== undefined) throw new CodeModeOptionsError({ option: `limits.${name}`, value, problem });
  }
  if (limits.memoryBytes > MAXIMUM_MEMORY_BYTES) {
    throw new CodeModeOptionsError({
      option: 'limits.memoryBytes',
      value: limits.memoryBytes,
      problem: `must be at most ${MAXIMUM_MEMORY_BYTES} (4 GiB, what a WebAssembly memory can address); got ${limits.memoryBytes}`,
    });
  }
  if (limits.stackBytes > MAXIMUM_STACK_BYTES) {
    throw new CodeModeOptionsError({
      option: 'limits.stackBytes',
      value: limits.stackBytes,
      problem: `must be at most ${MAXIMUM_STACK_BYTES} (a deeper QuickJS stack can overflow the host's); got ${limits.stackBytes}`,
    });
  }
  return limits;
}
