import {
  AbortedError,
  AuthenticationError,
  ContextLengthExceededError,
  errorMessageOf,
  InvalidRequestError,
  OrgError,
  ProviderError,
  ProviderUnavailableError,
  parseRetryAfterMs,
  RateLimitError,
  readStrictJson,
  StreamInterruptedError,
  truncateText,
} from '@org/core';
import { PROVIDER } from './provider-name.js';
import { field } from './wire-values.js';

/** The most of an error body read, in bytes. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** Where the failure happened: before the answer, or once a stream had started (with the text so far). */
export interface ErrorContext {
  readonly operation: string;
  readonly signal: AbortSignal | undefined;
  /** Set once a stream has started: failures after that point are interruptions carrying this text. */
  readonly partialText?: string | undefined;
}

// Mistral: "Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length".
const CONTEXT_LENGTH_PATTERN =
  /too large for model|maximum context length|context length|context window|too many tokens/i;

/** An HTTP failure the SDK reports (`MistralError` and its subclasses), read by shape: any copy of the SDK. */
interface HttpFailure {
  readonly name: string;
  readonly statusCode: number;
  readonly body: string;
  readonly headers: Headers;
}

function isHttpFailure(error: unknown): error is HttpFailure {
  if (!(error instanceof Error)) return false;
  const candidate = error as Partial<HttpFailure>;
  return (
    typeof candidate.statusCode === 'number' &&
    typeof candidate.body === 'string' &&
    candidate.headers instanceof Headers
  );
}

/** The headers of an SDK HTTP failure, for the retry loop's hints. */
export function headersOf(error: unknown): Headers | undefined {
  return isHttpFailure(error) ? error.headers : undefined;
}

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The message and code of a Mistral error body: `{ object: 'error', message, type, code }`, or a validation error's
 * `{ detail: [{ loc, msg }] }`; read with the strict JSON reader, bounded.
 */
function readErrorBody(text: string): {
  body: unknown;
  message: string | undefined;
  code: string | undefined;
} {
  const parsed = readStrictJson(text, { maxBytes: MAX_ERROR_BODY_BYTES });
  if (!parsed.ok || !isRecord(parsed.value)) {
    return { body: truncateText(text, MAX_ERROR_BODY_BYTES), message: undefined, code: undefined };
  }
  const body = parsed.value;
  const message = field(body, 'message');
  const type = field(body, 'type');
  const code = field(body, 'code');
  const detail = field(body, 'detail');
  const details = Array.isArray(detail)
    ? detail
        .filter(isRecord)
        .map((item) => {
          const where = Array.isArray(field(item, 'loc')) ? (field(item, 'loc') as unknown[]).join('.') : '';
          const problem = field(item, 'msg');
          return `${where}: ${typeof problem === 'string' ? problem : 'invalid'}`;
        })
        .join('; ')
    : undefined;
  return {
    body,
    message: typeof message === 'string' ? message : details,
    code: typeof type === 'string' ? type : typeof code === 'string' ? code : undefined,
  };
}

/**
 * Maps whatever the Mistral SDK threw (or a stream broke with) onto the core error family: 429 → `RateLimitError`
 * with the server's `retry-after` as `retryAfterMs`; 401 / 403 → `AuthenticationError`; a context-length refusal →
 * `ContextLengthExceededError`; 408 / 409 / 5xx and a refused connection or timeout → `ProviderUnavailableError`
 * (retryable); other 4xx (422 validation errors included) → `InvalidRequestError` with Mistral's own message; an
 * abort → `AbortedError`; once a stream has started, a lost connection → `StreamInterruptedError` with the partial
 * text. An error of the family passes through unchanged.
 *
 * @example
 * catch (error) { throw mapMistralError(error, { operation: "The mistral request to 'mistral-large-latest'", signal }); }
 */
export function mapMistralError(error: unknown, context: ErrorContext): OrgError {
  if (OrgError.isInstance(error)) return error;
  if (context.signal?.aborted === true || (error instanceof Error && error.name === 'RequestAbortedError')) {
    return new AbortedError({ operation: context.operation, cause: context.signal?.reason ?? error });
  }
  if (isHttpFailure(error) && error.name !== 'ResponseValidationError') return mapHttpFailure(error, context);
  const name = error instanceof Error ? error.name : '';
  if (name === 'SDKValidationError') {
    // The SDK checks the request against its own schema before sending.
    return new InvalidRequestError({
      provider: PROVIDER,
      providerCode: 'request_validation_failed',
      message: `${context.operation} was refused by the Mistral SDK before sending: ${errorMessageOf(error)}`,
      cause: error,
    });
  }
  if (context.partialText !== undefined) {
    const malformed = name === 'ZodError' || name === 'SyntaxError' || name === 'ResponseValidationError';
    return new StreamInterruptedError({
      provider: PROVIDER,
      providerCode: malformed ? 'invalid_stream_event' : 'connection_lost',
      message: malformed
        ? `${context.operation}: the stream sent an event that is not a chat completion chunk (${errorMessageOf(error)}); the answer is incomplete.`
        : `${context.operation}: the stream broke before it finished (${errorMessageOf(error)}); the answer is incomplete.`,
      partialText: context.partialText,
      cause: error,
      ...(malformed ? { retryable: false } : {}),
    });
  }
  if (name === 'ResponseValidationError' || name === 'SyntaxError') {
    return new ProviderError({
      provider: PROVIDER,
      providerCode: 'invalid_response',
      message: `${context.operation}: the answer is not a chat completion (${errorMessageOf(error)}).`,
      cause: error,
    });
  }
  if (name === 'ConnectionError' || name === 'RequestTimeoutError' || name === 'UnexpectedClientError') {
    return new ProviderUnavailableError({
      provider: PROVIDER,
      providerCode: name === 'RequestTimeoutError' ? 'timeout' : 'connection_error',
      message: `${context.operation} could not reach the server: ${errorMessageOf(error)}`,
      cause: error,
    });
  }
  return new ProviderError({
    provider: PROVIDER,
    message: `${context.operation} failed: ${errorMessageOf(error)}`,
    cause: error,
  });
}

function mapHttpFailure(error: HttpFailure, context: ErrorContext): OrgError {
  const status = error.statusCode;
  const { body, message, code } = readErrorBody(error.body);
  const base = {
    provider: PROVIDER,
    statusCode: status,
    message: `${context.operation} failed with ${status}: ${message ?? (truncateText(error.body, 1024) || 'no message')}`,
    responseBody: body,
    cause: error,
    ...(code === undefined ? {} : { providerCode: code }),
  };
  if (status === 429) {
    const retryAfterMs = parseRetryAfterMs(error.headers);
    return new RateLimitError({ ...base, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
  }
  if (status === 401 || status === 403) return new AuthenticationError(base);
  if (status < 500 && CONTEXT_LENGTH_PATTERN.test(message ?? '')) return new ContextLengthExceededError(base);
  if (status === 408 || status === 409 || status >= 500) return new ProviderUnavailableError(base);
  return new InvalidRequestError(base);
}
