import {
  AbortedError,
  AuthenticationError,
  ContextLengthExceededError,
  errorMessageOf,
  type HeadersLike,
  InvalidRequestError,
  OrgError,
  ProviderError,
  type ProviderErrorOptions,
  ProviderUnavailableError,
  parseRetryAfterMs,
  RateLimitError,
  StreamInterruptedError,
  TimeoutError,
} from '@org/core';
import { MalformedStreamError } from './malformed-stream-error.js';
import { StreamingRequiredError } from './streaming-required-error.js';

const PROVIDER = 'anthropic';

/** Where the failure happened: before the answer started, or while reading a stream that had started. */
export interface ErrorContext {
  readonly phase: 'request' | 'stream';
  /** Text received before a stream broke. */
  readonly partialText?: string;
  readonly maxOutputTokens: number;
  readonly timeoutMs: number;
  readonly modelId: string;
  readonly signal?: AbortSignal | undefined;
}

/** The parts of an `@anthropic-ai/sdk` `APIError` the mapping reads; checked by shape, not `instanceof`, so a client
 * from another copy of the SDK maps the same. */
interface SdkApiErrorShape {
  readonly name?: unknown;
  readonly status?: unknown;
  readonly headers?: unknown;
  readonly error?: unknown;
  readonly requestID?: unknown;
  readonly message?: unknown;
}

// The API's wording for a prompt that does not fit ("prompt is too long: 215000 tokens > 200000 maximum",
// "input length and `max_tokens` exceed context limit: ...").
const CONTEXT_LENGTH_PATTERN =
  /prompt is too long|exceeds? (?:the )?context (?:limit|window)|context (?:length|window) (?:exceeded|limit)|too many (?:input )?tokens/i;

/**
 * Maps anything the SDK (or the network under it) throws onto the core error family:
 *
 * | SDK / wire | core |
 * | --- | --- |
 * | 429 `rate_limit_error` | `RateLimitError` with `retryAfterMs` from `retry-after-ms` / `retry-after` |
 * | 529 `overloaded_error`, 5xx, 408, connection failures | `ProviderUnavailableError` (retryable) |
 * | 401, 403 | `AuthenticationError` |
 * | 400 "prompt is too long" | `ContextLengthExceededError` |
 * | 400, 404, 413, 422 | `InvalidRequestError` with the API's own message |
 * | in-stream `error` event | by its `error.type`, as above |
 * | request timeout | `TimeoutError`; abort | `AbortedError` |
 * | connection lost mid-stream | `StreamInterruptedError` with the partial text |
 * | invalid JSON in an event | `MalformedStreamError` (`invalid-json`) |
 * | SDK refusal of a long non-streaming request | `StreamingRequiredError` |
 *
 * `x-should-retry: false` makes any of them non-retryable. Messages and bodies are redacted of secrets.
 */
export function mapAnthropicError(error: unknown, context: ErrorContext): OrgError {
  if (OrgError.isInstance(error)) return error;
  const shape = (typeof error === 'object' && error !== null ? error : {}) as SdkApiErrorShape;
  const name = typeof shape.name === 'string' ? shape.name : '';
  const message = errorMessageOf(error);

  if (context.signal?.aborted === true || name === 'APIUserAbortError' || name === 'AbortError') {
    return new AbortedError({
      operation: `The Anthropic request to '${context.modelId}'`,
      cause: context.signal?.reason ?? error,
    });
  }
  if (name === 'APIConnectionTimeoutError') {
    return new TimeoutError({
      operation: `The Anthropic request to '${context.modelId}'`,
      timeoutMs: context.timeoutMs,
      cause: error,
    });
  }
  if (/Streaming is required for operations that may take longer than 10 minutes/.test(message)) {
    return new StreamingRequiredError({ maxOutputTokens: context.maxOutputTokens, cause: error });
  }
  if (/Could not resolve authentication method/.test(message)) {
    return new AuthenticationError({
      provider: PROVIDER,
      message:
        `No Anthropic credentials: pass apiKey to createAnthropic, set ANTHROPIC_API_KEY, ` +
        `or pass a configured Anthropic client.`,
      cause: error,
    });
  }

  const status = typeof shape.status === 'number' ? shape.status : undefined;
  // An HTTP error response has a status; an in-stream `event: error` is an `APIError` without one.
  if (status !== undefined || name === 'APIError') return mapApiError(shape, status, error);

  if (name === 'APIConnectionError' || context.phase === 'stream') {
    if (context.phase === 'stream') {
      if (error instanceof SyntaxError) {
        return new MalformedStreamError({
          reason: 'invalid-json',
          message: `An Anthropic stream event was not valid JSON (${message}); the stream was stopped.`,
          partialText: context.partialText ?? '',
          cause: error,
        });
      }
      return new StreamInterruptedError({
        provider: PROVIDER,
        message:
          `The Anthropic stream was interrupted (${describeCause(error)}) after ` +
          `${(context.partialText ?? '').length} character(s) of text; incomplete tool calls were dropped.`,
        partialText: context.partialText ?? '',
        cause: error,
      });
    }
    return new ProviderUnavailableError({
      provider: PROVIDER,
      message: `Could not reach the Anthropic API (${describeCause(error)}).`,
      cause: error,
    });
  }

  return new ProviderError({
    provider: PROVIDER,
    message: `Anthropic request failed: ${message}`,
    cause: error,
  });
}

function mapApiError(shape: SdkApiErrorShape, status: number | undefined, error: unknown): OrgError {
  const body = shape.error;
  const detail = readErrorBody(body);
  const headers = shape.headers as { get?(name: string): string | null } | undefined;
  const header = (key: string): string | undefined => headers?.get?.(key) ?? undefined;
  const shouldRetryHeader = header('x-should-retry');
  const requestId = typeof shape.requestID === 'string' ? shape.requestID : undefined;
  const apiMessage = detail.message ?? (typeof shape.message === 'string' ? shape.message : 'no message');
  const where = status === undefined ? 'in the stream' : `${status}`;
  const options: ProviderErrorOptions = {
    provider: PROVIDER,
    message: `Anthropic API error ${where}${detail.type ? ` (${detail.type})` : ''}: ${apiMessage}`,
    ...(status === undefined ? {} : { statusCode: status }),
    ...(detail.type === undefined ? {} : { providerCode: detail.type }),
    responseBody: body,
    ...(requestId === undefined ? {} : { requestId }),
    cause: error,
    ...(shouldRetryHeader === 'false' ? { retryable: false } : {}),
    ...(shouldRetryHeader === 'true' ? { retryable: true } : {}),
  };

  const kind = classify(status, detail.type);
  switch (kind) {
    case 'rate-limit': {
      const retryAfterMs = parseRetryAfterMs(headersOf(shape));
      return new RateLimitError({ ...options, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
    }
    case 'authentication':
      return new AuthenticationError(options);
    case 'invalid-request':
      return CONTEXT_LENGTH_PATTERN.test(apiMessage)
        ? new ContextLengthExceededError(options)
        : new InvalidRequestError(options);
    case 'unavailable':
      return new ProviderUnavailableError(options);
    default:
      return new ProviderError({ ...options, retryable: options.retryable ?? status === 409 });
  }
}

function classify(
  status: number | undefined,
  type: string | undefined,
): 'rate-limit' | 'authentication' | 'invalid-request' | 'unavailable' | 'other' {
  if (status === 429 || type === 'rate_limit_error') return 'rate-limit';
  if (status === 401 || status === 403 || type === 'authentication_error' || type === 'permission_error') {
    return 'authentication';
  }
  if (status === 408 || (status !== undefined && status >= 500)) return 'unavailable';
  if (type === 'overloaded_error' || type === 'api_error' || type === 'timeout_error') return 'unavailable';
  if (status === 400 || status === 404 || status === 413 || status === 422) return 'invalid-request';
  if (type === 'invalid_request_error' || type === 'not_found_error') return 'invalid-request';
  return 'other';
}

function readErrorBody(body: unknown): { type: string | undefined; message: string | undefined } {
  const outer = (typeof body === 'object' && body !== null ? body : {}) as {
    error?: unknown;
    message?: unknown;
  };
  const inner = (typeof outer.error === 'object' && outer.error !== null ? outer.error : outer) as {
    type?: unknown;
    message?: unknown;
  };
  return {
    type: typeof inner.type === 'string' ? inner.type : undefined,
    message: typeof inner.message === 'string' ? inner.message : undefined,
  };
}

/** The response headers of an SDK `APIError` (a `Headers`), read by shape; `undefined` for anything else. */
export function headersOf(error: unknown): HeadersLike | undefined {
  const headers = (error as { headers?: unknown } | null | undefined)?.headers;
  return typeof headers === 'object' && headers !== null ? (headers as HeadersLike) : undefined;
}

function describeCause(error: unknown): string {
  let current: unknown = error;
  const parts: string[] = [];
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const text = errorMessageOf(current);
    const code = (current as { code?: unknown }).code;
    parts.push(typeof code === 'string' ? `${text} [${code}]` : text);
    current = (current as { cause?: unknown }).cause;
  }
  return parts.length > 0 ? parts.join(': ') : errorMessageOf(error);
}
