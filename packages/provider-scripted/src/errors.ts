import { brandError, OrgError } from '@org/core';

/** Stable codes of the errors `@org/provider-scripted` throws. */
export type ScriptedErrorCode =
  | 'script_exhausted'
  | 'script_mismatch'
  | 'invalid_script'
  | 'invalid_duration';

/**
 * The model was called more often than its script has turns, or the script function returned nothing for this
 * request. The request is kept (`request`) so a test can show what the code under test sent unexpectedly.
 *
 * @example
 * await expect(model.generate(request)).rejects.toSatisfy(ScriptExhaustedError.isInstance);
 */
export class ScriptExhaustedError extends OrgError {
  /** Zero-based index of the call that found no turn. */
  readonly callIndex: number;
  /** Number of turns in the script, or `undefined` for a script function. */
  readonly scriptLength: number | undefined;
  /** The last message of the unexpected request, to tell which loop step overran. */
  readonly lastMessageRole: string | undefined;

  constructor(options: { callIndex: number; scriptLength?: number; lastMessageRole?: string }) {
    super('script_exhausted', {
      message:
        options.scriptLength === undefined
          ? `The script function returned no turn for call ${options.callIndex}.`
          : `Call ${options.callIndex} is out of script: the script has ${options.scriptLength} turn(s). ` +
            `The code under test called the model more often than the script expects.`,
    });
    this.callIndex = options.callIndex;
    this.scriptLength = options.scriptLength;
    this.lastMessageRole = options.lastMessageRole;
  }
}
brandError(ScriptExhaustedError, 'ScriptExhaustedError');

/**
 * A scripted turn contradicts the request it answers: tool calls under tool choice `none`, no tool call under
 * `required`, another tool than the one named by a `tool` choice, or tool calls for a model declared without
 * tool support. A real model would not answer so, so the test (or the code under test) is wrong.
 *
 * @example
 * // the code under test sent toolChoice 'none', but the script calls a tool
 * await expect(model.generate(request)).rejects.toMatchObject({ code: 'script_mismatch', mismatch: 'tool-calls-under-none' });
 */
export class ScriptMismatchError extends OrgError {
  readonly callIndex: number;
  /** What was wrong, e.g. `tool-calls-under-none`. */
  readonly mismatch: string;

  constructor(options: { callIndex: number; mismatch: string; message: string }) {
    super('script_mismatch', { message: `Call ${options.callIndex}: ${options.message}` });
    this.callIndex = options.callIndex;
    this.mismatch = options.mismatch;
  }
}
brandError(ScriptMismatchError, 'ScriptMismatchError');

/**
 * A script, a turn or a latency profile is malformed (a tool call without a name, a negative latency, ...).
 *
 * @example
 * createScriptedModel({ script: [{ toolCalls: [{ toolName: '' }] }] });
 * // throws InvalidScriptError: script[0].toolCalls[0].toolName: must be a non-empty string.
 */
export class InvalidScriptError extends OrgError {
  /** Where in the options the problem is, e.g. `script[2].toolCalls[0].toolName`. */
  readonly path: string;

  constructor(options: { path: string; message: string }) {
    super('invalid_script', { message: `${options.path}: ${options.message}` });
    this.path = options.path;
  }
}
brandError(InvalidScriptError, 'InvalidScriptError');

/**
 * A clock was asked to sleep for a negative, infinite or non-numeric duration.
 *
 * @example
 * createVirtualClock().sleep(-5); // throws InvalidDurationError
 */
export class InvalidDurationError extends OrgError {
  readonly durationMs: unknown;

  constructor(durationMs: unknown) {
    super('invalid_duration', {
      message: `A sleep duration must be a finite number >= 0 (milliseconds), got ${String(durationMs)}.`,
    });
    this.durationMs = durationMs;
  }
}
brandError(InvalidDurationError, 'InvalidDurationError');
