import {
  AbortedError,
  AuthenticationError,
  ContextLengthExceededError,
  errorMessageOf,
  InvalidRequestError,
  OrgError,
  ProviderError,
  type ProviderErrorOptions,
  ProviderUnavailableError,
  RateLimitError,
  type RetryFailure,
  retryHintsFromHeaders,
} from '@org/core';

/**
 * The provider name on every error and model of this package.
 *
 * @example
 * if (ProviderError.isInstance(error) && error.provider === BEDROCK_PROVIDER) report(error.requestId);
 */
export const BEDROCK_PROVIDER = 'bedrock';

/**
 * A failure as the retry loop (`withRetries` of `@org/core`) sees it: the mapped error, the wait the service asked
 * for (`retry-after`, `x-amz-retry-after`) and `x-should-retry` (`true` forces a retry, `false` forbids one).
 */
export interface BedrockFailure extends RetryFailure {
  readonly retryAfterMs: number | undefined;
  readonly shouldRetryHeader: boolean | undefined;
}

/** The fields of an AWS SDK v3 service exception this adapter reads; everything is optional and checked. */
interface SdkErrorShape {
  readonly name?: unknown;
  readonly code?: unknown;
  readonly $fault?: unknown;
  readonly $metadata?: { readonly httpStatusCode?: unknown; readonly requestId?: unknown };
  readonly $response?: { readonly headers?: Readonly<Record<string, unknown>> };
}

// Connection-level failures from Node's http/http2 stacks and the SDK's handlers: retryable, no HTTP status.
const CONNECTION_ERROR_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ERR_HTTP2_STREAM_ERROR',
  'ERR_HTTP2_SESSION_ERROR',
  'ERR_HTTP2_GOAWAY_SESSION',
  'ERR_HTTP2_STREAM_CANCEL',
  'ERR_HTTP2_INVALID_SESSION',
  'ERR_HTTP2_ERROR',
  'ERR_STREAM_PREMATURE_CLOSE',
]);
const CONNECTION_ERROR_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'NetworkingError']);
const CONNECTION_MESSAGE =
  /socket hang up|ECONNRESET|ECONNREFUSED|stream (?:was )?(?:closed|destroyed)|GOAWAY|premature close|NGHTTP2/i;

// Bedrock words "the prompt does not fit" differently per model family; these are the phrasings seen in its
// ValidationExceptions (Anthropic, Meta, Mistral, Amazon models).
const CONTEXT_LENGTH_MESSAGE =
  /input is too long|prompt is too long|too many (?:input )?tokens|context (?:length|limit|window)|maximum context|exceeds? (?:the )?(?:model's )?(?:maximum )?(?:input )?(?:token|context)/i;

// "This model doesn't support the toolConfig.toolChoice.any field. Remove toolConfig.toolChoice.any and try again."
const UNSUPPORTED_TOOL_CHOICE_MESSAGE = /toolChoice\.(any|tool)\b/i;

const AUTHENTICATION_NAMES = new Set([
  'AccessDeniedException',
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'ExpiredTokenException',
  'IncompleteSignatureException',
  'MissingAuthenticationTokenException',
  'CredentialsProviderError',
  'TokenProviderError',
]);

/**
 * Maps whatever the AWS SDK threw (a modeled exception such as `ThrottlingException`, an unmodeled HTTP error, a
 * socket failure, an abort) onto the core error family, with the wait the service asked for and `x-should-retry`.
 * Messages and the kept `cause` (the SDK exception itself) are redacted of secrets by the core errors; nothing of
 * the request is copied into them.
 *
 * @example
 * const { error } = mapBedrockError(thrown, { modelId });
 * throw error;
 */
export function mapBedrockError(thrown: unknown, context: { modelId: string }): BedrockFailure {
  if (OrgError.isInstance(thrown)) {
    return { error: thrown as Error, retryAfterMs: undefined, shouldRetryHeader: undefined };
  }
  const shape = (typeof thrown === 'object' && thrown !== null ? thrown : {}) as SdkErrorShape;
  const name = typeof shape.name === 'string' ? shape.name : '';
  const message = errorMessageOf(thrown);
  const headers = shape.$response?.headers ?? {};
  const statusCode =
    typeof shape.$metadata?.httpStatusCode === 'number' ? shape.$metadata.httpStatusCode : undefined;
  const requestId =
    typeof shape.$metadata?.requestId === 'string'
      ? shape.$metadata.requestId
      : headerValue(headers, 'x-amzn-requestid');
  const { retryAfterMs, shouldRetryHeader } = retryHintsOf(headers);

  const base: ProviderErrorOptions = {
    provider: BEDROCK_PROVIDER,
    message: `Bedrock (${context.modelId}): ${name ? `${name}: ` : ''}${message}`,
    cause: thrown,
    responseBody: { name, message },
    ...(statusCode === undefined ? {} : { statusCode }),
    ...(name === '' ? {} : { providerCode: name }),
    ...(requestId === undefined ? {} : { requestId }),
  };
  const decided = (error: OrgError): BedrockFailure => ({ error, retryAfterMs, shouldRetryHeader });

  if (name === 'AbortError' || (typeof shape.code === 'string' && shape.code === 'ABORT_ERR')) {
    return decided(new AbortedError({ operation: `Bedrock call to '${context.modelId}'`, cause: thrown }));
  }
  if (name === 'ThrottlingException' || name === 'throttlingException' || statusCode === 429) {
    if (name === 'ModelNotReadyException') return decided(new ProviderUnavailableError(base));
    return decided(new RateLimitError({ ...base, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) }));
  }
  if (name === 'ServiceQuotaExceededException') {
    // A quota, not a burst: waiting a few seconds does not help, so it is not retryable.
    return decided(new RateLimitError({ ...base, retryable: false }));
  }
  if (AUTHENTICATION_NAMES.has(name) || statusCode === 401 || statusCode === 403) {
    return decided(new AuthenticationError(base));
  }
  if (name === 'ValidationException' || name === 'validationException') {
    if (CONTEXT_LENGTH_MESSAGE.test(message)) return decided(new ContextLengthExceededError(base));
    return decided(new InvalidRequestError(base));
  }
  if (
    name === 'ModelNotReadyException' ||
    name === 'ModelTimeoutException' ||
    name === 'ServiceUnavailableException' ||
    name === 'serviceUnavailableException' ||
    name === 'InternalServerException' ||
    name === 'internalServerException' ||
    (statusCode !== undefined && statusCode >= 500)
  ) {
    return decided(new ProviderUnavailableError(base));
  }
  if (name === 'ModelErrorException') return decided(new ProviderError({ ...base, retryable: false }));
  if (statusCode !== undefined && statusCode >= 400) return decided(new InvalidRequestError(base));
  if (isConnectionError(thrown)) {
    return decided(
      new ProviderUnavailableError({
        ...base,
        providerCode: 'connection_error',
        message: `Bedrock (${context.modelId}): connection failed before an answer: ${message}`,
      }),
    );
  }
  return decided(new ProviderError(base));
}

/** True when a thrown value is a socket / HTTP/2 / timeout failure rather than an answer from Bedrock. */
export function isConnectionError(thrown: unknown): boolean {
  if (typeof thrown !== 'object' || thrown === null) return false;
  const { code, name, message, cause } = thrown as {
    code?: unknown;
    name?: unknown;
    message?: unknown;
    cause?: unknown;
  };
  if (typeof code === 'string' && CONNECTION_ERROR_CODES.has(code)) return true;
  if (typeof name === 'string' && CONNECTION_ERROR_NAMES.has(name)) return true;
  if (typeof message === 'string' && CONNECTION_MESSAGE.test(message)) return true;
  return cause !== undefined && cause !== thrown && isConnectionError(cause);
}

/**
 * When a ValidationException says the model does not support `toolChoice.any` / `toolChoice.tool`, the core mode
 * it concerns (`required` / `tool`); otherwise `undefined`.
 */
export function unsupportedToolChoiceMode(thrown: unknown): 'required' | 'tool' | undefined {
  const name = (thrown as { name?: unknown } | null)?.name;
  if (name !== 'ValidationException') return undefined;
  const match = UNSUPPORTED_TOOL_CHOICE_MESSAGE.exec(errorMessageOf(thrown));
  if (match === null) return undefined;
  return match[1]?.toLowerCase() === 'any' ? 'required' : 'tool';
}

/** `x-amz-retry-after` (milliseconds), else `retry-after` (seconds or an HTTP date), as milliseconds. */
export function parseRetryAfter(headers: Readonly<Record<string, unknown>>): number | undefined {
  return retryHintsOf(headers).retryAfterMs;
}

/**
 * `x-should-retry` and the requested wait, read by the shared reader of `@org/core`. Bedrock names its
 * millisecond wait `x-amz-retry-after`, which that reader knows as `retry-after-ms`; a `retry-after-ms` header is
 * not Bedrock's and is not read.
 */
function retryHintsOf(headers: Readonly<Record<string, unknown>>): {
  shouldRetryHeader: boolean | undefined;
  retryAfterMs: number | undefined;
} {
  return retryHintsFromHeaders({
    'retry-after-ms': headerValue(headers, 'x-amz-retry-after'),
    'retry-after': headerValue(headers, 'retry-after'),
    'x-should-retry': headerValue(headers, 'x-should-retry'),
  });
}

function headerValue(headers: Readonly<Record<string, unknown>>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
    if (typeof value === 'number') return String(value);
  }
  return undefined;
}
