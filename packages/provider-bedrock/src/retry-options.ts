import {
  type RetryOptions as CoreRetryOptions,
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

const RETRY_KEYS: readonly string[] = [
  'maxRetries',
  'initialDelayMs',
  'maxDelayMs',
  'maxRetryAfterMs',
  'sleep',
];

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
  for (const layer of [providerOptions, modelOptions]) {
    if (layer === undefined) continue;
    if (typeof layer !== 'object' || layer === null) {
      throw new InvalidBedrockOptionsError({
        option: 'retry',
        value: layer,
        expected: 'an object of retry options',
      });
    }
    // resolveRetryOptions reads only the keys it knows: a misspelt one would be silently ignored.
    for (const key of Object.keys(layer)) {
      if (!RETRY_KEYS.includes(key)) {
        throw new InvalidBedrockOptionsError({
          option: `retry.${key}`,
          value: (layer as Record<string, unknown>)[key],
          expected: `no such option: retry takes ${RETRY_KEYS.map((name) => `'${name}'`).join(', ')}`,
        });
      }
    }
  }
  const resolved = resolveRetryOptions(
    { maxRetries: context.clientSupplied ? 0 : 2 },
    providerOptions,
    modelOptions,
  );
  for (const key of ['maxRetries', 'initialDelayMs', 'maxDelayMs', 'maxRetryAfterMs'] as const) {
    const value = resolved[key];
    if (!Number.isInteger(value) || value < 0) {
      throw new InvalidBedrockOptionsError({
        option: `retry.${key}`,
        value,
        expected: 'a non-negative integer',
      });
    }
  }
  return resolved;
}
