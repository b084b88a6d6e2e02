import { inspect } from 'node:util';
import { AccessDeniedException } from '@aws-sdk/client-bedrock-runtime';
import {
  AbortedError,
  AuthenticationError,
  ContextLengthExceededError,
  InvalidRequestError,
  ProviderError,
  ProviderUnavailableError,
  RateLimitError,
} from '@org/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isConnectionError,
  mapBedrockError,
  parseRetryAfter,
  unsupportedToolChoiceMode,
} from '../src/map-error.js';

const sdkError = (
  name: string,
  message: string,
  status?: number,
  headers: Record<string, string> = {},
): Error =>
  Object.assign(new Error(message), {
    name,
    $fault: 'client',
    $metadata: status === undefined ? {} : { httpStatusCode: status, requestId: 'r-1' },
    $response: { headers },
  });

describe('mapBedrockError', () => {
  it('keeps the SDK exception as cause, redacted of secrets a proxy echoed (core redacts every cause)', () => {
    const token = 'ASIAIOSFODNN7EXAMPLE';
    const thrown = new AccessDeniedException({
      message: `Access denied for credential ${token}; Authorization: Bearer abcdefghijklmnop`,
      $metadata: { httpStatusCode: 403, requestId: 'r-9' },
    });
    Object.assign(thrown, {
      $response: { statusCode: 403, headers: { 'x-echo': `aws_session_token=${token}` } },
    });
    const { error } = mapBedrockError(thrown, { modelId: 'm' });
    expect(AuthenticationError.isInstance(error)).toBe(true);
    const printed = inspect(error, { depth: 10 });
    expect(printed).not.toContain(token);
    expect(printed).not.toContain('abcdefghijklmnop');
    expect(error.cause).toBe(thrown);
    expect(error.cause).toBeInstanceOf(AccessDeniedException);
    expect((error.cause as AccessDeniedException).$metadata.requestId).toBe('r-9');
  });

  it.each([
    ['ThrottlingException', 429, RateLimitError, true],
    ['ServiceQuotaExceededException', 400, RateLimitError, false],
    ['AccessDeniedException', 403, AuthenticationError, false],
    ['UnrecognizedClientException', 403, AuthenticationError, false],
    ['ExpiredTokenException', 400, AuthenticationError, false],
    ['ValidationException', 400, InvalidRequestError, false],
    ['ResourceNotFoundException', 404, InvalidRequestError, false],
    ['ConflictException', 400, InvalidRequestError, false],
    ['ModelNotReadyException', 429, ProviderUnavailableError, true],
    ['ModelTimeoutException', 408, ProviderUnavailableError, true],
    ['InternalServerException', 500, ProviderUnavailableError, true],
    ['ServiceUnavailableException', 503, ProviderUnavailableError, true],
    ['ModelErrorException', 424, ProviderError, false],
  ] as const)('%s (%i) → %o', (name, status, errorClass, retryable) => {
    const { error } = mapBedrockError(sdkError(name, 'message from AWS', status), { modelId: 'm' });
    expect(errorClass.isInstance(error), String(error)).toBe(true);
    expect((error as ProviderError).retryable).toBe(retryable);
    expect((error as ProviderError).statusCode).toBe(status);
    expect((error as ProviderError).providerCode).toBe(name);
    expect((error as ProviderError).requestId).toBe('r-1');
    expect(error.message).toContain('message from AWS');
  });

  it('context length wording → ContextLengthExceededError; other validation → InvalidRequestError', () => {
    const long = mapBedrockError(
      sdkError('ValidationException', 'Input is too long for requested model.', 400),
      {
        modelId: 'm',
      },
    );
    expect(ContextLengthExceededError.isInstance(long.error)).toBe(true);
    const other = mapBedrockError(sdkError('ValidationException', 'messages: field required', 400), {
      modelId: 'm',
    });
    expect(ContextLengthExceededError.isInstance(other.error)).toBe(false);
  });

  it('reads retry-after, x-amz-retry-after and x-should-retry', () => {
    const decision = mapBedrockError(
      sdkError('ThrottlingException', 'slow', 429, { 'Retry-After': '3', 'x-should-retry': 'false' }),
      { modelId: 'm' },
    );
    expect(decision.retryAfterMs).toBe(3000);
    expect((decision.error as RateLimitError).retryAfterMs).toBe(3000);
    expect(decision.shouldRetryHeader).toBe(false);
  });

  it('socket failures are retryable connection errors; aborts are AbortedError', () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(isConnectionError(reset)).toBe(true);
    const mapped = mapBedrockError(reset, { modelId: 'm' }).error;
    expect(ProviderUnavailableError.isInstance(mapped)).toBe(true);
    expect((mapped as ProviderUnavailableError).providerCode).toBe('connection_error');
    const abort = Object.assign(new Error('Request aborted'), { name: 'AbortError' });
    expect(AbortedError.isInstance(mapBedrockError(abort, { modelId: 'm' }).error)).toBe(true);
  });

  it('property: any thrown value maps to a core error without throwing', () => {
    fc.assert(
      fc.property(fc.anything(), (thrown) => {
        const { error } = mapBedrockError(thrown, { modelId: 'm' });
        expect(error).toBeInstanceOf(Error);
      }),
      { numRuns: Number(process.env.FC_NUM_RUNS ?? 1000) },
    );
  });
});

describe('parseRetryAfter', () => {
  it('property: whole seconds become milliseconds; junk is undefined, never a throw', () => {
    fc.assert(
      fc.property(fc.nat({ max: 100_000 }), fc.string(), (seconds, junk) => {
        expect(parseRetryAfter({ 'retry-after': String(seconds) })).toBe(seconds * 1000);
        const parsed = parseRetryAfter({ 'retry-after': junk });
        expect(parsed === undefined || (Number.isFinite(parsed) && parsed >= 0)).toBe(true);
      }),
      { numRuns: Number(process.env.FC_NUM_RUNS ?? 1000) },
    );
  });

  it('an HTTP date in the future gives the time until it', () => {
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    const parsed = parseRetryAfter({ 'retry-after': inTenSeconds }) ?? 0;
    expect(parsed).toBeGreaterThan(5_000);
    expect(parsed).toBeLessThanOrEqual(10_000);
  });
});

describe('unsupportedToolChoiceMode', () => {
  it.each([
    [
      "This model doesn't support the toolConfig.toolChoice.any field. Remove toolConfig.toolChoice.any and try again.",
      'required',
    ],
    [
      "This model doesn't support the toolConfig.toolChoice.tool field. Remove toolConfig.toolChoice.tool and try again.",
      'tool',
    ],
    ['Malformed input request', undefined],
  ] as const)('%s → %s', (message, mode) => {
    expect(unsupportedToolChoiceMode(sdkError('ValidationException', message, 400))).toBe(mode);
  });
});
