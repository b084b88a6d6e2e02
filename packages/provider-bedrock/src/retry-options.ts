import {
  type RetryOptions as CoreRetryOptions,
  checkRetryOptions,
  InvalidProviderOptionsError,
  type ResolvedRetryOptions,
  resolveRetryOptions,
} from '@org/core';
import { InvalidBedrockOptionsError } from './invalid-bedrock-options-error.js';

/**
 * Retries of failed Bedrock calls (throttling, 5xx, connection failures): the shared `RetryOptions` of
 * `@org/core`. `maxRetries` defaults to 2, or to 0 when the provider was given a ready client (whose own SDK
 * retry strategy then applies, so retries do not multiply); `initialDelayMs` 500, `maxDelayMs` 8 000,
 * `maxRetryAfterMs` 60 000.
 *
 * @example
 * createBedrock({ retry: { maxRetries: 5, maxRetryAfterMs: 10_000 } });
 */
export type RetryOptions = CoreRetryOptions;

/**
 * The retry options of one model: the defaults, then the provider's options, then the model's, field by field;
 * every number checked.
 *
 * @example
 * resolveBedrockRetryOptions({ maxRetries: 5 }, { maxDelayMs: 2_000 }, { clientSupplied: false });
 */
export function resolveBedrockRetryOptions(
  providerOptions: RetryOptions | undefined,
  modelOptions: RetryOptions | undefined,
  context: { clientSupplied: boolean },
): ResolvedRetryOptions {
  // The shared check first (unknown keys with a did-you-mean, types), reported under this package's error class.
  for (const layer of [providerOptions, modelOptions]) {
    try {
      checkRetryOptions(layer, { provider: 'bedrock' });
    } catch (error) {
      if (!InvalidProviderOptionsError.isInstance(error)) throw error;
      const key = error.option.slice('retry.'.length);
      throw new InvalidBedrockOptionsError({
        option: error.option,
        value: key === '' ? layer : (layer as Record<string, unknown> | undefined)?.[key],
        expected: 'a retry option',
        message: `Invalid Bedrock option: ${error.message}`,
      });
    }
  }
  // Every layer was checked above and the defaults are valid, so the result needs no check of its own.
  return resolveRetryOptions({ maxRetries: context.clientSupplied ? 0 : 2 }, providerOptions, modelOptions);
}
