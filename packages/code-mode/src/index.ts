export { type CodeLimits, DEFAULT_CODE_LIMITS } from './code-limits.js';
export type { CodeCallRecord, CodeResult, ConsoleEntry, UnusedEarlyCall } from './code-result.js';
export {
  CODE_MODE_RULES,
  CODE_MODE_TOOL_NAME,
  type CodeModeToolOptions,
  createCodeModeTool,
  DEFAULT_MAX_PREFIX_RUNS,
} from './create-code-mode-tool.js';
export { declareTools, type ProgramFunction, type ToolDeclarations } from './declare-tools.js';
export {
  CodeAbortedError,
  CodeLimitError,
  type CodeLimitName,
  CodeModeError,
  CodeModeOptionsError,
  CodeNeverSettlesError,
  CodeReturnValueError,
  CodeRuntimeError,
  CodeSandboxError,
  CodeSyntaxError,
} from './errors.js';
export { type FormatCodeResultOptions, formatCodeResult } from './format-code-result.js';
export {
  type CodeCallExecutor,
  type CodeEffects,
  type EarlyCallSource,
  type RunCodeOptions,
  runCode,
} from './run-code.js';
export {
  type CodeSandboxOptions,
  closeCodeSandboxes,
  configureCodeSandboxes,
  DEFAULT_MAX_SANDBOX_WORKERS,
  prewarmCodeSandbox,
} from './sandbox-pool.js';
