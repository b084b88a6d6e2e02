import { brandError, OrgError } from '@org/core';

/**
 * The base of every error a program run ends with. Each subclass has a stable `code` and a message written for the
 * model: what happened, where, and what to change. A run never throws these for the program's own faults; they
 * come back as `CodeResult.error` (and in the text the model reads), and are thrown only for the caller's
 * mistakes (`CodeModeOptionsError`).
 */
export class CodeModeError extends OrgError {}
brandError(CodeModeError, 'CodeModeError');

/**
 * The program does not parse (TypeScript or JavaScript). `line` and `column` are 1-based, in the program as the model
 * wrote it. No tool ran.
 */
export class CodeSyntaxError extends CodeModeError {
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(options: { reason: string; line?: number; column?: number }) {
    const where = options.line === undefined ? '' : ` at line ${options.line}, column ${options.column ?? 1}`;
    super('code_syntax_error', {
      message: `The program does not parse${where}: ${options.reason}. No tool ran; fix the program and send it again.`,
    });
    this.line = options.line;
    this.column = options.column;
  }
}
brandError(CodeSyntaxError, 'CodeSyntaxError');

/** The limits a program runs within; each is an option of `runCode` (`limits`). */
export type CodeLimitName =
  | 'wallTimeMs'
  | 'cpuTimeMs'
  | 'memoryBytes'
  | 'stackBytes'
  | 'maxToolCalls'
  | 'maxInputBytes'
  | 'maxReturnBytes'
  | 'maxConsoleBytes'
  | 'maxSourceBytes';

const LIMIT_ADVICE: Readonly<Record<CodeLimitName, string>> = {
  wallTimeMs:
    'run fewer calls at once or split the work into two programs; a loop inside one built-in (a huge ' +
    'Array(n).fill or indexOf, a long string repeat) cannot be interrupted, so work on smaller values',
  cpuTimeMs: 'compute less in the program (no busy loops); let tools do heavy work',
  memoryBytes: 'keep fewer or smaller values in memory; pick the fields you need from tool results',
  stackBytes: 'use a loop instead of deep recursion',
  maxToolCalls: 'make fewer calls per program; split the work across programs',
  maxInputBytes: 'ask tools for narrower results (filters, pages, fewer fields)',
  maxReturnBytes: 'return only what the answer needs (aggregate, pick fields)',
  maxConsoleBytes: 'log less; return the values you need instead',
  maxSourceBytes: 'write a shorter program; get data from tools instead of writing it into the source',
};

/** The program went past one of its limits and was stopped. Calls that finished before took effect. */
export class CodeLimitError extends CodeModeError {
  readonly limit: CodeLimitName;
  readonly maximum: number;

  constructor(options: { limit: CodeLimitName; maximum: number; detail?: string }) {
    const detail = options.detail === undefined ? '' : ` (${options.detail})`;
    super('code_limit_exceeded', {
      message:
        `The program was stopped: it went past the limit '${options.limit}' of ${options.maximum}${detail}. ` +
        `To fix: ${LIMIT_ADVICE[options.limit]}.`,
    });
    this.limit = options.limit;
    this.maximum = options.maximum;
  }
}
brandError(CodeLimitError, 'CodeLimitError');

/** The program threw (or its promise rejected) and did not catch it. */
export class CodeRuntimeError extends CodeModeError {
  /** The thrown error's name inside the sandbox (`TypeError`, `ToolCallError`, ...). */
  readonly errorName: string;
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(options: { errorName: string; reason: string; line?: number; column?: number }) {
    const where = options.line === undefined ? '' : ` at line ${options.line}, column ${options.column ?? 1}`;
    super('code_threw', {
      message: `The program threw ${options.errorName}${where}: ${options.reason}`,
    });
    this.errorName = options.errorName;
    this.line = options.line;
    this.column = options.column;
  }
}
brandError(CodeRuntimeError, 'CodeRuntimeError');

/**
 * The program's promise is pending and nothing it waits for is outstanding (no tool call, no job): it can never
 * settle, so it is ended at once rather than left to the wall-time limit.
 */
export class CodeNeverSettlesError extends CodeModeError {
  constructor() {
    super('code_never_settles', {
      message:
        'The program awaits a promise that nothing can settle (no tool call is outstanding). Await only tool ' +
        'calls and promises built from them; there are no timers or events.',
    });
  }
}
brandError(CodeNeverSettlesError, 'CodeNeverSettlesError');

/** The program returned something that is not a JSON value (a function, a BigInt, a symbol, a cycle). */
export class CodeReturnValueError extends CodeModeError {
  constructor(options: { reason: string }) {
    super('code_invalid_return', {
      message: `The program's return value is not a JSON value: ${options.reason}. Return plain objects, arrays, strings, numbers, booleans or null.`,
    });
  }
}
brandError(CodeReturnValueError, 'CodeReturnValueError');

/** The run was aborted by the caller's signal. */
export class CodeAbortedError extends CodeModeError {
  constructor(options: { reason: string }) {
    super('aborted', { message: `The program was aborted: ${options.reason}.` });
  }
}
brandError(CodeAbortedError, 'CodeAbortedError');

/** The sandbox itself failed (its worker exited or the WebAssembly module trapped); the host is unharmed. */
export class CodeSandboxError extends CodeModeError {
  constructor(options: { reason: string; cause?: unknown }) {
    super('code_sandbox_failed', {
      message: `The sandbox running the program failed: ${options.reason}.`,
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
  }
}
brandError(CodeSandboxError, 'CodeSandboxError');

/** An option of `runCode` / `createCodeModeTool` has a value it cannot take. Thrown, never returned. */
export class CodeModeOptionsError extends CodeModeError {
  readonly option: string;
  readonly value: unknown;

  constructor(options: { option: string; value: unknown; problem: string }) {
    super('invalid_code_mode_options', {
      message: `Option '${options.option}' ${options.problem}.`,
    });
    this.option = options.option;
    this.value = options.value;
  }
}
brandError(CodeModeOptionsError, 'CodeModeOptionsError');
