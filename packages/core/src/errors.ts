import { stringifyWithin } from './bounded-text.js';
import type { EventError } from './events.js';
import { redactCause, redactSecrets, redactSecretsDeep } from './redact-secrets.js';

/** Stable codes of the errors defined in `@org/core`. Other packages add their own codes to the same family. */
export type CoreErrorCode =
  | 'invalid_tool_choice'
  | 'unsupported_tool_choice'
  | 'unsupported_specification_version'
  | 'invalid_message_history'
  | 'incomplete_tool_call'
  | 'provider_error'
  | 'rate_limited'
  | 'authentication_failed'
  | 'invalid_request'
  | 'context_length_exceeded'
  | 'provider_unavailable'
  | 'stream_interrupted'
  | 'timeout'
  | 'aborted'
  | 'limit_exceeded'
  | 'content_too_large'
  | 'structured_output_failed'
  | 'invalid_provider_options';

/** Any error code: the core ones, autocompleted, or a code added by another package. */
export type ErrorCode = CoreErrorCode | (string & {});

/** Options every error in the family accepts. */
export interface OrgErrorOptions {
  /** Human-readable; secrets are redacted from it before it is stored. */
  message: string;
  /** The error that caused this one, kept for debugging; secrets are redacted from it (see `redactCause`). */
  cause?: unknown;
  /** Whether the same call may succeed if retried unchanged. */
  retryable?: boolean;
}

const markerFor = (name: string): symbol => Symbol.for(`org.error.${name}`);

/** Where `brandError` keeps a class's error name: an own static property, so a subclass never reads its parent's. */
const ERROR_NAME: unique symbol = Symbol('org.error.name');
type Branded = { [ERROR_NAME]?: string };

/** The name a class was branded with, or `undefined` when it was not branded itself. */
function brandedName(errorClass: unknown): string | undefined {
  return Object.hasOwn(errorClass as object, ERROR_NAME) ? (errorClass as Branded)[ERROR_NAME] : undefined;
}

type ErrorClass<T> = abstract new (...args: never[]) => T;

/**
 * The base of every error this library throws or returns as data.
 *
 * Identity is checked with `isInstance`, which relies on `Symbol.for` markers rather than `instanceof`, so it
 * holds across realms and across two installed copies of this package. Each subclass checks its own marker,
 * and a subclass is also an instance of its parents (`ProviderError.isInstance(rateLimitError) === true`).
 * Messages are redacted of API keys and tokens before they are stored, and so is the whole `cause` chain
 * (scrubbed in place where possible, see `redactCause`), so logging an error never prints a secret.
 *
 * @example
 * try {
 *   await model.generate(request);
 * } catch (error) {
 *   if (RateLimitError.isInstance(error)) await sleep(error.retryAfterMs ?? 1000);
 *   else if (OrgError.isInstance(error) && error.retryable) retry();
 *   else throw error;
 * }
 */
export class OrgError extends Error {
  /** A stable, machine-readable code; never changes meaning across versions. */
  readonly code: ErrorCode;
  /** Whether the same call may succeed if retried unchanged. */
  readonly retryable: boolean;

  constructor(code: ErrorCode, options: OrgErrorOptions) {
    super(
      redactSecrets(options.message),
      options.cause === undefined ? undefined : { cause: redactCause(options.cause) },
    );
    // The branded name, not `new.target.name`: a minifier renames classes, and the name is what logs show.
    this.name = brandedName(new.target) ?? new.target.name;
    this.code = code;
    this.retryable = options.retryable ?? false;
  }

  /** True when `error` is this class or a subclass of it, from any copy of this package. */
  static isInstance<T>(this: ErrorClass<T>, error: unknown): error is T {
    const name = brandedName(this);
    return (
      name !== undefined &&
      typeof error === 'object' &&
      error !== null &&
      (error as Record<symbol, unknown>)[markerFor(name)] === true
    );
  }

  /** A plain, secret-free object for logs and events (no stack, no cause). */
  toJSON(): Record<string, unknown> {
    const fields: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(this)) {
      if (key !== 'cause') fields[key] = value;
    }
    return redactSecretsDeep({ ...fields, name: this.name, code: this.code, message: this.message });
  }
}

/**
 * Brands a class with its marker. Every error class in the family, including those of other packages, calls
 * this once right after its declaration, with the class's public name; without it `isInstance` answers false.
 * Give the name explicitly: a minifier renames classes, and identity and `error.name` must not depend on
 * `class.name` (it is the fallback when no name is given, for classes branded before the name was taken). The
 * marker is `Symbol.for('org.error.' + name)`, so names are unique across the whole family: prefix your own
 * (`AcmeQuotaError`), never reuse one of the library's.
 *
 * @example
 * export class AcmeQuotaError extends OrgError { ... }
 * brandError(AcmeQuotaError, 'AcmeQuotaError');
 */
export function brandError(
  errorClass: abstract new (...args: never[]) => OrgError,
  name: string = errorClass.name,
): void {
  if (typeof name !== 'string' || !/^[A-Za-z_$][\w$]*$/.test(name)) {
    throw new TypeError(`brandError needs the error's public name (an identifier); got ${String(name)}.`);
  }
  Object.defineProperty(errorClass, ERROR_NAME, { value: name });
  Object.defineProperty(errorClass.prototype, markerFor(name), { value: true });
}
brandError(OrgError, 'OrgError');

// ---------------------------------------------------------------------------------------------------------------
// Tool choice and contract errors

/** A tool choice that is malformed, names an unknown mode, or names a tool that is not offered. */
export class InvalidToolChoiceError extends OrgError {
  /** What the caller passed. */
  readonly value: unknown;
  /** The accepted modes, or the names of the offered tools. */
  readonly accepted: readonly string[];
  /** The named tool that is not offered, when that is the problem. */
  readonly toolName: string | undefined;
  /** The offered tool closest to `toolName`, when one is close. */
  readonly suggestion: string | undefined;

  constructor(options: {
    message: string;
    value: unknown;
    accepted: readonly string[];
    toolName?: string;
    suggestion?: string;
  }) {
    super('invalid_tool_choice', { message: options.message });
    this.value = options.value;
    this.accepted = options.accepted;
    this.toolName = options.toolName;
    this.suggestion = options.suggestion;
  }
}
brandError(InvalidToolChoiceError, 'InvalidToolChoiceError');

/** The model or provider cannot honour a tool-choice mode, and no emulation was allowed. */
export class UnsupportedToolChoiceError extends OrgError {
  readonly provider: string;
  readonly modelId: string;
  /** The mode that cannot be honoured: `auto`, `required`, `none` or `tool`. */
  readonly mode: string;

  constructor(options: {
    provider: string;
    modelId: string;
    mode: string;
    message?: string;
    cause?: unknown;
  }) {
    super('unsupported_tool_choice', {
      message:
        options.message ??
        `Model '${options.modelId}' on ${options.provider} does not support tool choice '${options.mode}'. ` +
          `Declare its capabilities or enable emulation for this mode.`,
      cause: options.cause,
    });
    this.provider = options.provider;
    this.modelId = options.modelId;
    this.mode = options.mode;
  }
}
brandError(UnsupportedToolChoiceError, 'UnsupportedToolChoiceError');

/** A model implements a different `specificationVersion` of the `LanguageModel` contract than this core. */
export class UnsupportedSpecificationVersionError extends OrgError {
  readonly expected: string;
  readonly actual: unknown;
  readonly provider: string | undefined;

  constructor(options: { expected: string; actual: unknown; provider?: string }) {
    super('unsupported_specification_version', {
      message:
        `${options.provider ? `Provider '${options.provider}'` : 'The model'} implements LanguageModel specification ` +
        `${JSON.stringify(options.actual)}, but @org/core understands '${options.expected}'. ` +
        `Install versions of the provider package and @org/core that match.`,
    });
    this.expected = options.expected;
    this.actual = options.actual;
    this.provider = options.provider;
  }
}
brandError(UnsupportedSpecificationVersionError, 'UnsupportedSpecificationVersionError');

/** A conversation history that no provider would accept (a tool call without exactly one result, ...). */
export class InvalidMessageHistoryError extends OrgError {
  /** Index of the offending message in the history. */
  readonly messageIndex: number;
  /** The tool call concerned, when there is one. */
  readonly toolCallId: string | undefined;

  constructor(options: { message: string; messageIndex: number; toolCallId?: string }) {
    super('invalid_message_history', { message: options.message });
    this.messageIndex = options.messageIndex;
    this.toolCallId = options.toolCallId;
  }
}
brandError(InvalidMessageHistoryError, 'InvalidMessageHistoryError');

/**
 * A tool call whose arguments were cut off (a `length` / `max_tokens` stop, or a stream that ended mid-call).
 * Such a call is never executed.
 */
export class IncompleteToolCallError extends OrgError {
  readonly toolCallId: string | undefined;
  readonly toolName: string | undefined;
  /** The argument text received before the cut. */
  readonly partialArguments: string;
  readonly finishReason: string | undefined;

  constructor(options: {
    toolCallId?: string;
    toolName?: string;
    partialArguments: string;
    finishReason?: string;
    message?: string;
  }) {
    super('incomplete_tool_call', {
      message:
        options.message ??
        `The arguments of tool call ${options.toolName ? `'${options.toolName}' ` : ''}were cut off` +
          `${options.finishReason ? ` (finish reason '${options.finishReason}')` : ''}; the call was not executed. ` +
          `Raise the output token limit or ask for smaller arguments.`,
    });
    this.toolCallId = options.toolCallId;
    this.toolName = options.toolName;
    this.partialArguments = options.partialArguments;
    this.finishReason = options.finishReason;
  }
}
brandError(IncompleteToolCallError, 'IncompleteToolCallError');

// ---------------------------------------------------------------------------------------------------------------
// Provider errors

/** Fields shared by every provider error. */
export interface ProviderErrorOptions {
  message: string;
  provider: string;
  statusCode?: number;
  /** The provider's own error type or code, e.g. `rate_limit_error`. */
  providerCode?: string;
  /** The response body or in-stream error payload, redacted of secrets. */
  responseBody?: unknown;
  requestId?: string;
  cause?: unknown;
  retryable?: boolean;
}

/** Any failure reported by, or while talking to, a provider. Subclasses narrow it. */
export class ProviderError extends OrgError {
  readonly provider: string;
  readonly statusCode: number | undefined;
  readonly providerCode: string | undefined;
  readonly responseBody: unknown;
  readonly requestId: string | undefined;

  constructor(options: ProviderErrorOptions, code: ErrorCode = 'provider_error') {
    super(code, { message: options.message, cause: options.cause, retryable: options.retryable ?? false });
    this.provider = options.provider;
    this.statusCode = options.statusCode;
    this.providerCode = options.providerCode;
    this.responseBody = redactSecretsDeep(options.responseBody);
    this.requestId = options.requestId;
  }
}
brandError(ProviderError, 'ProviderError');

/** 429 / throttling. `retryAfterMs` is the wait the provider asked for, when it said. */
export class RateLimitError extends ProviderError {
  readonly retryAfterMs: number | undefined;

  constructor(options: ProviderErrorOptions & { retryAfterMs?: number }) {
    super({ retryable: true, ...options }, 'rate_limited');
    this.retryAfterMs = options.retryAfterMs;
  }
}
brandError(RateLimitError, 'RateLimitError');

/** 401 / 403: a missing, wrong or unauthorised credential. Never retryable. */
export class AuthenticationError extends ProviderError {
  constructor(options: ProviderErrorOptions) {
    super({ ...options, retryable: false }, 'authentication_failed');
  }
}
brandError(AuthenticationError, 'AuthenticationError');

/** 400 / 404 / 422: the provider rejected the request; the message is the provider's own. */
export class InvalidRequestError extends ProviderError {
  constructor(options: ProviderErrorOptions) {
    super({ ...options, retryable: false }, 'invalid_request');
  }
}
brandError(InvalidRequestError, 'InvalidRequestError');

/** The prompt (history + tools) does not fit the model's context window. */
export class ContextLengthExceededError extends ProviderError {
  constructor(options: ProviderErrorOptions) {
    super({ ...options, retryable: false }, 'context_length_exceeded');
  }
}
brandError(ContextLengthExceededError, 'ContextLengthExceededError');

/** 5xx, 529 overloaded, connection failures: the provider could not answer now. Retryable. */
export class ProviderUnavailableError extends ProviderError {
  constructor(options: ProviderErrorOptions) {
    super({ retryable: true, ...options }, 'provider_unavailable');
  }
}
brandError(ProviderUnavailableError, 'ProviderUnavailableError');

/** A stream that broke after it started. Carries what arrived; incomplete tool calls are never surfaced. */
export class StreamInterruptedError extends ProviderError {
  /** The text received before the interruption. */
  readonly partialText: string;

  constructor(options: ProviderErrorOptions & { partialText: string }) {
    super({ retryable: true, ...options }, 'stream_interrupted');
    this.partialText = options.partialText;
  }
}
brandError(StreamInterruptedError, 'StreamInterruptedError');

// ---------------------------------------------------------------------------------------------------------------
// Execution errors

/** An operation (a tool, a plan step, a model call) ran past its deadline. */
export class TimeoutError extends OrgError {
  readonly timeoutMs: number;
  /** What timed out, e.g. `tool 'get_weather'`. */
  readonly operation: string;

  constructor(options: { operation: string; timeoutMs: number; cause?: unknown }) {
    super('timeout', {
      message: `${options.operation} timed out after ${options.timeoutMs} ms.`,
      cause: options.cause,
      retryable: true,
    });
    this.timeoutMs = options.timeoutMs;
    this.operation = options.operation;
  }
}
brandError(TimeoutError, 'TimeoutError');

/** An operation was cancelled through its `AbortSignal`. The signal's reason is the `cause`. */
export class AbortedError extends OrgError {
  readonly operation: string;

  /** The message names the reason given to `abort(reason)` (see `abortReasonOf`); the reason itself is the `cause`. */
  constructor(options: { operation: string; cause?: unknown }) {
    const reason = abortReasonOf(options.cause);
    super('aborted', {
      message: `${options.operation} was aborted${reason === undefined ? '' : `: ${reason}`}.`,
      cause: options.cause,
    });
    this.operation = options.operation;
  }
}
brandError(AbortedError, 'AbortedError');

/**
 * A provider factory (`createOpenAI`, `createAnthropic`, ...) or a model's settings were given an option that is
 * unknown, out of range, or contradicts another (a ready `client` together with an `apiKey` it would ignore).
 * Thrown at once, never at request time. Every provider adapter reports its options with this class or a subclass.
 *
 * @example
 * try { createOpenAI({ maxRetries: -1 }) } catch (error) {
 *   if (InvalidProviderOptionsError.isInstance(error)) console.error(error.option); // 'maxRetries'
 * }
 */
export class InvalidProviderOptionsError extends OrgError {
  /** The provider whose options these are, when known. */
  readonly provider: string | undefined;
  /** The option at fault, e.g. `maxRetries`, `retry.maxDelayMs` or `settings.maxOutputTokens`. */
  readonly option: string;

  constructor(options: { provider?: string; option: string; message: string }) {
    super('invalid_provider_options', { message: options.message });
    this.provider = options.provider;
    this.option = options.option;
  }
}
brandError(InvalidProviderOptionsError, 'InvalidProviderOptionsError');

/** An input exceeded a configured limit; checked before any recursive walk or scheduling. */
export class LimitExceededError extends OrgError {
  /** Which limit, e.g. `argumentsBytes`, `jsonDepth`, `planSteps`, `refPathSegments`. */
  readonly limit: string;
  readonly maximum: number;
  /** The size found, or a lower bound of it when counting stopped at the limit. */
  readonly actual: number;

  constructor(options: { limit: string; maximum: number; actual: number; message?: string }) {
    super('limit_exceeded', {
      message:
        options.message ??
        `Limit '${options.limit}' exceeded: ${options.actual} > ${options.maximum}. Raise the limit in the options if this input is legitimate.`,
    });
    this.limit = options.limit;
    this.maximum = options.maximum;
    this.actual = options.actual;
  }
}
brandError(LimitExceededError, 'LimitExceededError');

/**
 * An image or file is larger than the provider accepts (`assertContentWithinLimits`), checked before anything is
 * sent. Nothing is cut: resize or split the content, or send it by URL.
 */
export class ContentTooLargeError extends OrgError {
  readonly provider: string;
  /** The message holding the part, as an index of the request's messages. */
  readonly messageIndex: number;
  readonly partIndex: number;
  /** `image` or `file`; `total` when the parts of one request together exceed the provider's limit. */
  readonly kind: 'image' | 'file' | 'total';
  /** Decoded bytes of the part (or of the request's inline media so far, for `total`). */
  readonly bytes: number;
  readonly limit: number;

  constructor(options: {
    provider: string;
    messageIndex: number;
    partIndex: number;
    kind: 'image' | 'file' | 'total';
    bytes: number;
    limit: number;
  }) {
    const what =
      options.kind === 'total'
        ? `The inline images and files of this request (${options.bytes} bytes at part ${options.partIndex} of message ${options.messageIndex})`
        : `The ${options.kind} at part ${options.partIndex} of message ${options.messageIndex} (${options.bytes} bytes)`;
    super('content_too_large', {
      message: `${what} exceed ${options.provider}'s limit of ${options.limit} bytes. Resize or split it, or send it by URL.`,
    });
    this.provider = options.provider;
    this.messageIndex = options.messageIndex;
    this.partIndex = options.partIndex;
    this.kind = options.kind;
    this.bytes = options.bytes;
    this.limit = options.limit;
  }
}
brandError(ContentTooLargeError, 'ContentTooLargeError');

/** JSON kept of a thrown value that is not an error (its description in a message). */
const MAX_THROWN_JSON_BYTES = 64_000;
const UNPRINTABLE = 'An unprintable value was thrown';

/**
 * Turns whatever was thrown (an `Error`, a string, `undefined`, an object whose getters throw) into a message,
 * without ever throwing itself. Secrets are redacted. The message is not cut: whoever shows it to a model bounds it
 * (`truncateText`); an object without a message is described as JSON only when that takes at most 64 KB.
 */

export function errorMessageOf(thrown: unknown): string {
  try {
    if (thrown instanceof Error) return redactSecrets(thrown.message || thrown.name);
    if (typeof thrown === 'string') return redactSecrets(thrown);
    if (thrown === undefined) return 'undefined was thrown';
    if (thrown === null) return 'null was thrown';
    if (typeof thrown === 'object') {
      const message = (thrown as { message?: unknown }).message;
      if (typeof message === 'string') return redactSecrets(message);
      // Bounded: a thrown object whose parts are shared is written path by path by JSON.stringify (exponential).
      return redactSecrets(stringifyWithin(thrown, MAX_THROWN_JSON_BYTES) ?? UNPRINTABLE);
    }
    return redactSecrets(String(thrown));
  } catch {
    return UNPRINTABLE;
  }
}

const MAX_ABORT_REASON_CHARACTERS = 300;

/**
 * The reason given to `controller.abort(reason)`, as text for a message: an error's message, a string, or the value
 * described; redacted of secrets, at most 300 characters, without a final period. `undefined` when no reason was
 * given (the platform's default `AbortError`) or the reason is empty.
 *
 * @example
 * abortReasonOf('the user closed the tab'); // 'the user closed the tab'
 * abortReasonOf(new AbortController().signal.reason); // undefined
 */
export function abortReasonOf(reason: unknown): string | undefined {
  if (reason === undefined || reason === null) return undefined;
  try {
    if (
      reason instanceof Error &&
      reason.name === 'AbortError' &&
      reason.message === 'This operation was aborted'
    ) {
      return undefined;
    }
  } catch {
    // A hostile value: described below like any other.
  }
  let text = errorMessageOf(reason).trim().replace(/\.+$/, '');
  if (text === '') return undefined;
  if (text.length > MAX_ABORT_REASON_CHARACTERS) text = `${text.slice(0, MAX_ABORT_REASON_CHARACTERS)}…`;
  return text;
}

/**
 * The `error` of a failure event (`inference-failed`, `run-finished`) from whatever was thrown: an `OrgError`'s
 * `code` and `retryable`, `error` as the code of anything else, and a message redacted of secrets. Never throws.
 *
 * @example
 * eventErrorOf(new RateLimitError({ message: 'slow down', provider: 'openai' }));
 * // { code: 'rate_limited', message: 'slow down', retryable: true }
 */
export function eventErrorOf(thrown: unknown): EventError {
  try {
    if (OrgError.isInstance(thrown)) {
      return {
        code: String(thrown.code),
        message: redactSecrets(thrown.message),
        retryable: thrown.retryable,
      };
    }
  } catch {
    // A hostile object posing as an OrgError: described below like any other value.
  }
  return { code: 'error', message: errorMessageOf(thrown) };
}
