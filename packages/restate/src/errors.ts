import { brandError, OrgError } from '@org/core';

/** Stable codes of the errors defined in `@org/restate`. */
export type RestateErrorCode =
  | 'invalid_restate_agent_option'
  | 'durable_model_call_failed'
  | 'remote_tool_failed'
  | 'invalid_remote_tool_response'
  | 'journal_value_invalid';

/** How much of a foreign string (a service's tool name, an error text) a message quotes. */
const QUOTED_LENGTH = 160;

/** A string from another process, cut and quoted for a message. */
export function quoteForeign(text: unknown): string {
  const value = typeof text === 'string' ? text : String(typeof text);
  return JSON.stringify(value.length > QUOTED_LENGTH ? `${value.slice(0, QUOTED_LENGTH)}…` : value);
}

/**
 * An option of `createRestateAgent` or `createRestateToolService` is missing or malformed; thrown where the
 * workflow or service is made, before anything is served.
 *
 * @example
 * try { createRestateAgent({ name: 'my agent', agent }) } catch (error) {
 *   if (InvalidRestateAgentOptionError.isInstance(error)) console.error(error.option, error.message);
 * }
 */
export class InvalidRestateAgentOptionError extends OrgError {
  /** The option at fault, e.g. `name`. */
  readonly option: string;

  constructor(options: { option: string; message: string }) {
    super('invalid_restate_agent_option', { message: `Option '${options.option}': ${options.message}` });
    this.option = options.option;
  }
}
brandError(InvalidRestateAgentOptionError, 'InvalidRestateAgentOptionError');

/**
 * A model call of a durable run failed for good: a non-retryable provider error, or a retryable one that kept
 * failing past the retry policy. Its failure is journaled, so a replay ends the run the same way; the run finishes
 * with `finishReason: 'error'` and this error.
 */
export class DurableModelCallError extends OrgError {
  /**
   * The code of the provider's error (`rate_limited`, `invalid_request`, ...): core's error code, kept through the
   * journal and the engine's retries. `undefined` only for a failure the engine made itself.
   */
  readonly causeCode: string | undefined;
  /** The provider's HTTP status (`429`, `400`, ...), when its error carried one. */
  readonly causeStatusCode: number | undefined;
  /** Zero-based step of the failed call. */
  readonly step: number;

  constructor(options: {
    message: string;
    step: number;
    causeCode?: string;
    causeStatusCode?: number;
    cause?: unknown;
  }) {
    const why = [
      ...(options.causeCode === undefined ? [] : [options.causeCode]),
      ...(options.causeStatusCode === undefined ? [] : [`HTTP ${options.causeStatusCode}`]),
    ];
    super('durable_model_call_failed', {
      message: `The model call of step ${options.step} failed${why.length === 0 ? '' : ` (${why.join(', ')})`}: ${options.message}`,
      cause: options.cause,
    });
    this.causeCode = options.causeCode;
    this.causeStatusCode = options.causeStatusCode;
    this.step = options.step;
  }
}
brandError(DurableModelCallError, 'DurableModelCallError');

/**
 * A tool served by another Restate service answered with a failure (`status` other than `success`); the agent sees
 * an error observation carrying this message.
 */
export class RemoteToolError extends OrgError {
  readonly service: string;
  readonly toolName: string;
  /** The remote observation's status: `error`, `timeout`, `blocked`, ... */
  readonly status: string;
  /** The remote observation's error code, e.g. `tool_execution_failed`. */
  readonly remoteCode: string;

  constructor(options: { service: string; toolName: string; status: string; code: string; message: string }) {
    super('remote_tool_failed', {
      message: `Tool '${options.toolName}' on service '${options.service}' ended with status ${options.status} (${options.code}): ${options.message}`,
    });
    this.service = options.service;
    this.toolName = options.toolName;
    this.status = options.status;
    this.remoteCode = options.code;
  }
}
brandError(RemoteToolError, 'RemoteToolError');

/**
 * A tool service answered with something that is not what `createRestateToolService` sends: unreadable JSON, a
 * description or an observation of the wrong shape, a value past a limit. Nothing of it is used.
 */
export class InvalidRemoteToolResponseError extends OrgError {
  readonly service: string;
  /** Where in the answer, e.g. `tools[2].inputSchema`. */
  readonly field: string;

  constructor(options: { service: string; field: string; problem: string }) {
    super('invalid_remote_tool_response', {
      message: `Tool service '${options.service}' answered with an invalid ${options.field}: ${options.problem}.`,
    });
    this.service = options.service;
    this.field = options.field;
  }
}
brandError(InvalidRemoteToolResponseError, 'InvalidRemoteToolResponseError');

/**
 * A value that must be journaled cannot be written as JSON (a BigInt, a cycle, a function where data was expected).
 * A journal holds JSON only, so that a replay in another process reads back exactly what the run saw.
 */
export class JournalValueError extends OrgError {
  /** What was being journaled, e.g. `the response of model call 2.0`. */
  readonly what: string;
  /** The path of the offending value inside it. */
  readonly path: string;

  constructor(options: { what: string; path: string; problem: string }) {
    super('journal_value_invalid', {
      message: `Cannot journal ${options.what}: ${options.path === '' ? 'the value' : `'${options.path}'`} ${options.problem}.`,
    });
    this.what = options.what;
    this.path = options.path;
  }
}
brandError(JournalValueError, 'JournalValueError');
