import {
  ContextLengthExceededError,
  ProviderError,
  ProviderUnavailableError,
  RateLimitError,
} from '@org/core';
import { asRecord, stringField } from '../wire-fields.js';

/** The error a `failed` response (or a `response.failed` event) carries, as a core error chosen by its code. */
export function failedResponseError(
  response: Record<string, unknown> | undefined,
  provider: string,
): ProviderError {
  const error = asRecord(response?.error);
  const code = stringField(error, 'code');
  const options = {
    provider,
    message: `${provider} response failed: ${stringField(error, 'message') ?? 'no reason given'}`,
    responseBody: response?.error,
    ...(code === undefined ? {} : { providerCode: code }),
  };
  if (code === 'rate_limit_exceeded') return new RateLimitError(options);
  if (code === 'context_length_exceeded') return new ContextLengthExceededError(options);
  if (code === 'server_error' || code === 'overloaded') return new ProviderUnavailableError(options);
  return new ProviderError(options);
}
