import {
  type RetryOptions as CoreRetryOptions,
  InvalidProviderOptionsError,
  type ResolvedRetryOptions,
  resolveProviderRetryOptions,
} from '@org/core';
import { InvalidBedrockOptionsError } from './invalid-bedrock-options-error.js';
import { BEDROCK_PROVIDER } from './map-error.js';

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
 * The retry options of one model, resolved the way every adapter resolves them (`resolveProviderRetryOptions` of
 * `@org/core`): the defaults, then the provider's `retry`, then the model's, field by field, every level checked.
 * A bad option is reported as this package's `InvalidBedrockOptionsError` (a subclass of the core error), naming
 * the option (`retry.maxDelayMs`, `settings.retry.sleep`).
 *
 * @example
 * resolveBedrockRetryOptions({ maxRetries: 5 }, { maxDelayMs: 2_000 }, { clientSupplied: false });
 */
export function resolveBedrockRetryOptions(
  providerOptions: RetryOptions | undefined,
  modelOptions: RetryOptions | undefined,
  context: { clientSupplied: boolean },
): ResolvedRetryOptions {
  try {
    return resolveProviderRetryOptions({
      provider: BEDROCK_PROVIDER,
      retry: providerOptions,
      modelRetry: modelOptions,
      // The AWS SDK's own retry strategy cannot be turned off per request, so a ready client keeps its own.
      defaultMaxRetries: context.clientSupplied ? 0 : 2,
    });
  } catch (error) {
    if (!InvalidProviderOptionsError.isInstance(error)) throw error;
    throw new InvalidBedrockOptionsError({
      option: error.option,
      value: valueAt(error.option, { retry: providerOptions, settings: { retry: modelOptions } }),
      expected: 'a retry option',
      message: error.message,
    });
  }
}

/** The value the option path names (`settings.retry.maxDelayMs`), read without touching prototypes. */
function valueAt(path: string, root: unknown): unknown {
  let value = root;
  for (const key of path.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
