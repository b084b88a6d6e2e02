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
  StreamInterruptedError,
} from '@org/core';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';

/** Where the failure happened, for the message and for the stream-interrupted case. */
export interface ErrorContext {
  readonly provider: string;
  readonly operation: string;
  readonly signal?: AbortSignal | undefined;
  /** Set once a stream has started: failures after that point are interruptions carrying this text. */
  readonly partialText?: string | undefined;
}

// OpenAI says `context_length_exceeded`; OpenAI-compatible servers (vLLM, LM Studio, Ollama) say it in words.
const CONTEXT_LENGTH_PATTERN =
  /context_length_exceeded|maximum context length|context length|context window|too many tokens|prompt is too long/i;

function providerCodeOf(error: APIError): string | undefined {
  const code = error.code ?? error.type;
  return typeof code === 'string' ? code : undefined;
}

/** The API's own message, without the SDK's `400 ` status prefix. */
function apiMessageOf(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  if (body && typeof body.message === 'string' && body.message !== '') return body.message;
  return error.message.replace(/^\d{3}\s+/, '');
}

/**
 * Maps whatever the OpenAI SDK threw (or a stream broke with) onto the core error family. An abort is an
 * `AbortedError`; once a stream has started, a lost connection is a `StreamInterruptedError` with the partial text.
 *
 * @example
 * catch (error) { throw mapOpenAIError(error, { provider: 'openai', operation: 'chat completion' }); }
 */
export function mapOpenAIError(error: unknown, context: ErrorContext): Error {
  // Already one of ours (a history check, a failed response decoded by the adapter): keep it as it is.
  if (OrgError.isInstance(error)) return error;
  if (context.signal?.aborted || error instanceof APIUserAbortError) {
    return new AbortedError({
      operation: `${context.provider} ${context.operation}`,
      cause: context.signal?.reason,
    });
  }
  const { provider } = context;
  if (error instanceof APIError && typeof error.status === 'number') {
    const status = error.status;
    const message = apiMessageOf(error);
    const providerCode = providerCodeOf(error);
    const requestId = error.requestID ?? undefined;
    const base = {
      provider,
      statusCode: status,
      message: `${provider} ${context.operation} failed with ${status}: ${message}`,
      responseBody: error.error,
      cause: error,
      ...(providerCode === undefined ? {} : { providerCode }),
      ...(requestId === undefined ? {} : { requestId }),
    };
    const retryAfterMs = parseRetryAfterMs(error.headers);
    if (status === 429) {
      // A spent quota is also a 429, but waiting does not help.
      const quota = providerCode === 'insufficient_quota';
      return new RateLimitError({
        ...base,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
        ...(quota ? { retryable: false } : {}),
      });
    }
    if (status === 401 || status === 403) return new AuthenticationError(base);
    if (CONTEXT_LENGTH_PATTERN.test(`${providerCode ?? ''} ${message}`) && status < 500) {
      return new ContextLengthExceededError(base);
    }
    if (status === 408 || status === 409 || status >= 500) return new ProviderUnavailableError(base);
    if (status >= 400) return new InvalidRequestError(base);
    return new ProviderError(base);
  }
  if (error instanceof APIConnectionTimeoutError) {
    return new ProviderUnavailableError({
      provider,
      providerCode: 'timeout',
      message: `${provider} ${context.operation} timed out before the server answered.`,
      cause: error,
    });
  }
  if (error instanceof APIConnectionError) {
    return new ProviderUnavailableError({
      provider,
      providerCode: 'connection_error',
      message: `${provider} ${context.operation} could not reach the server: ${errorMessageOf(error.cause ?? error)}.`,
      cause: error,
    });
  }
  if (error instanceof APIError) {
    // An error reported inside a stream (`data: {"error": ...}`): no status, the type or code says what it is.
    const message = apiMessageOf(error);
    const providerCode = providerCodeOf(error);
    const base = {
      provider,
      message: `${provider} ${context.operation} reported an error in the stream: ${message}`,
      responseBody: error.error,
      cause: error,
      ...(providerCode === undefined ? {} : { providerCode }),
    };
    if (/rate_limit/i.test(providerCode ?? '')) return new RateLimitError(base);
    if (CONTEXT_LENGTH_PATTERN.test(`${providerCode ?? ''} ${message}`))
      return new ContextLengthExceededError(base);
    if (/server_error|overloaded|unavailable/i.test(providerCode ?? ''))
      return new ProviderUnavailableError(base);
    if (context.partialText !== undefined) {
      return new StreamInterruptedError({ ...base, partialText: context.partialText, retryable: false });
    }
    return new ProviderError(base);
  }
  if (context.partialText !== undefined) {
    return new StreamInterruptedError({
      provider,
      providerCode: error instanceof SyntaxError ? 'invalid_event' : 'connection_lost',
      message:
        error instanceof SyntaxError
          ? `${provider} ${context.operation}: the stream sent an event that is not valid JSON (${errorMessageOf(error)}); the answer is incomplete.`
          : `${provider} ${context.operation}: the stream broke before it finished (${errorMessageOf(error)}); the answer is incomplete.`,
      partialText: context.partialText,
      cause: error,
    });
  }
  return new ProviderError({
    provider,
    message: `${provider} ${context.operation} failed: ${errorMessageOf(error)}`,
    cause: error,
  });
}
