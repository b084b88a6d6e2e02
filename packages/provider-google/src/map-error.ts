import {
  AbortedError,
  AuthenticationError,
  ContextLengthExceededError,
  errorMessageOf,
  InvalidRequestError,
  OrgError,
  type ProviderError,
  ProviderUnavailableError,
  RateLimitError,
  readStrictJson,
  TimeoutError,
} from '@org/core';
import { PROVIDER } from './provider-name.js';
import { arrayField, field } from './wire-values.js';

/** The most of an error body read, in characters. */
const MAX_ERROR_BODY_CHARACTERS = 64 * 1024;

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The SDK's `ApiError`, recognised by shape (a second copy of the SDK fails `instanceof`). */
function apiErrorOf(thrown: unknown): { status: number; message: string } | undefined {
  if (!(thrown instanceof Error) || thrown.name !== 'ApiError') return undefined;
  const status = (thrown as Error & { status?: unknown }).status;
  return typeof status === 'number' ? { status, message: thrown.message } : undefined;
}

/**
 * Gemini's error body, `{ error: { code, message, status, details } }`. The SDK puts it in `ApiError.message` as JSON
 * text (after `got status: ...` for an error inside a stream); it is read back with the strict reader, bounded.
 */
function errorBodyOf(message: string): unknown {
  const start = message.indexOf('{');
  if (start === -1 || message.length - start > MAX_ERROR_BODY_CHARACTERS) return undefined;
  const parsed = readStrictJson(message.slice(start));
  return parsed.ok ? parsed.value : undefined;
}

/**
 * The wait a 429 asks for: `google.rpc.RetryInfo.retryDelay` in the error's `details` (`"7s"`, `"0.5s"`), in ms.
 *
 * @example
 * retryDelayMs({ details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' }] }); // 7000
 */
export function retryDelayMs(error: unknown): number | undefined {
  if (!isRecord(error)) return undefined;
  for (const detail of arrayField(error, 'details', 'error')) {
    if (!isRecord(detail) || field(detail, '@type') !== 'type.googleapis.com/google.rpc.RetryInfo') continue;
    const delay = field(detail, 'retryDelay');
    const seconds = typeof delay === 'string' ? /^(\d{1,9})(?:\.(\d{1,9}))?s$/.exec(delay) : null;
    if (seconds === null) return undefined;
    return Math.ceil(Number(`${seconds[1]}.${seconds[2] ?? '0'}`) * 1000);
  }
  return undefined;
}

// Gemini states an over-long prompt in a 400 INVALID_ARGUMENT: "The input token count (1200000) exceeds the maximum
// number of tokens allowed (1048576)."
const CONTEXT_LENGTH = /input token count.*exceeds the maximum number of tokens/i;

/**
 * Maps an HTTP error of the API onto the core error family: 429 → `RateLimitError` (with `retryAfterMs` from the
 * `RetryInfo` detail), 401 / 403 → `AuthenticationError`, an over-long prompt → `ContextLengthExceededError`, 5xx →
 * `ProviderUnavailableError` (retryable), other 4xx → `InvalidRequestError`. Gemini's own message and status
 * (`INVALID_ARGUMENT`, `RESOURCE_EXHAUSTED`, ...) are kept; the body is redacted of secrets.
 */
export function mapApiError(status: number, sdkMessage: string, cause: unknown): ProviderError {
  const body = errorBodyOf(sdkMessage);
  const error = isRecord(body) ? field(body, 'error') : undefined;
  const apiMessage =
    isRecord(error) && typeof field(error, 'message') === 'string'
      ? (field(error, 'message') as string)
      : sdkMessage;
  const apiStatus =
    isRecord(error) && typeof field(error, 'status') === 'string'
      ? (field(error, 'status') as string)
      : undefined;
  const options = {
    provider: PROVIDER,
    statusCode: status,
    message: `${PROVIDER} request failed with ${status}${apiStatus === undefined ? '' : ` ${apiStatus}`}: ${apiMessage}`,
    responseBody: body ?? sdkMessage,
    cause,
    ...(apiStatus === undefined ? {} : { providerCode: apiStatus }),
  };
  if (status === 429) {
    const retryAfterMs = retryDelayMs(error);
    return new RateLimitError({ ...options, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
  }
  if (status === 401 || status === 403) return new AuthenticationError(options);
  if (CONTEXT_LENGTH.test(apiMessage)) return new ContextLengthExceededError(options);
  if (status >= 500) return new ProviderUnavailableError(options);
  return new InvalidRequestError(options);
}

/**
 * Whatever a call threw, as an error of the family: an abort → `AbortedError`, the SDK's own timer firing (an
 * `AbortError` nobody asked for, with `timeoutMs` set) → `TimeoutError`, an error of the family as is, the SDK's
 * `ApiError` by status, anything else (a refused connection, a reset socket) → `ProviderUnavailableError` (retryable).
 */
export function mapThrownError(
  thrown: unknown,
  signal: AbortSignal | undefined,
  operation: string,
  timeoutMs?: number,
): OrgError {
  if (signal?.aborted) return new AbortedError({ operation, cause: signal.reason });
  if (OrgError.isInstance(thrown)) return thrown;
  if (timeoutMs !== undefined && thrown instanceof Error && thrown.name === 'AbortError') {
    return new TimeoutError({ operation, timeoutMs, cause: thrown });
  }
  const apiError = apiErrorOf(thrown);
  if (apiError !== undefined) return mapApiError(apiError.status, apiError.message, thrown);
  return new ProviderUnavailableError({
    provider: PROVIDER,
    providerCode: 'connection_error',
    message: `${PROVIDER}: ${errorMessageOf(thrown)}`,
    cause: thrown,
  });
}
