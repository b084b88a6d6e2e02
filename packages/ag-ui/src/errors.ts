import { brandError, OrgError } from '@org/core';

/** Stable codes of the errors defined in `@org/ag-ui`. */
export type AgUiErrorCode = 'invalid_ag_ui_request' | 'invalid_ag_ui_option';

/** Why a request was refused, each answered with its own HTTP status. */
export type AgUiRequestProblem =
  /** Not a POST (405). */
  | 'method'
  /** Not `application/json` (415). */
  | 'content-type'
  /** Over `maxBodyBytes` (413). */
  | 'body-size'
  /** Not strict JSON, or not an AG-UI `RunAgentInput` (400). */
  | 'run-input'
  /** Messages that cannot become a conversation: an unknown role, a content part, unpaired tool calls (400). */
  | 'messages'
  /** A tool result answering a call no assistant message of the input made, or answering it twice (400). */
  | 'tool-result'
  /** Tools declared by the front end that cannot be offered: a name taken by a server tool, a bad schema (400). */
  | 'tools'
  /** Resume entries that do not answer the interrupts of one paused run (400). */
  | 'resume';

const STATUS_OF: Readonly<Record<AgUiRequestProblem, number>> = {
  method: 405,
  'content-type': 415,
  'body-size': 413,
  'run-input': 400,
  messages: 400,
  'tool-result': 400,
  tools: 400,
  resume: 400,
};

/**
 * A request the AG-UI endpoint refuses before any model call: answered with an HTTP error (`status`) and a JSON body
 * `{ error: { code, problem, message, field? } }`. Nothing runs.
 *
 * @example
 * if (AgUiRequestError.isInstance(error)) console.log(error.status, error.problem, error.field);
 */
export class AgUiRequestError extends OrgError {
  /** What was wrong, by kind. */
  readonly problem: AgUiRequestProblem;
  /** The HTTP status the endpoint answers with. */
  readonly status: number;
  /** Where in the run input, as a path (`messages[2].toolCallId`), when the problem is about one field. */
  readonly field: string | undefined;

  constructor(options: { problem: AgUiRequestProblem; message: string; field?: string; cause?: unknown }) {
    super('invalid_ag_ui_request', { message: options.message, cause: options.cause });
    this.problem = options.problem;
    this.status = STATUS_OF[options.problem];
    this.field = options.field;
  }
}
brandError(AgUiRequestError, 'AgUiRequestError');

/**
 * An option of `createAgUiHandler` / `serveAgUi` that cannot work (a non-positive `maxBodyBytes`, a missing `model`).
 * Thrown when the handler is made, before any request.
 */
export class InvalidAgUiOptionError extends OrgError {
  /** The option at fault. */
  readonly option: string;

  constructor(options: { option: string; reason: string }) {
    super('invalid_ag_ui_option', { message: `Invalid AG-UI option '${options.option}': ${options.reason}` });
    this.option = options.option;
  }
}
brandError(InvalidAgUiOptionError, 'InvalidAgUiOptionError');
