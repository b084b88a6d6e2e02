import { InvalidProviderOptionsError } from '@org/core';
import { describe, expect, it } from 'vitest';
import { InvalidBedrockOptionsError } from './invalid-bedrock-options-error.js';
import { type RetryOptions, resolveBedrockRetryOptions } from './retry-options.js';

describe('resolveBedrockRetryOptions', () => {
  it('defaults: 2 retries for a client the adapter creates, none for a supplied client', () => {
    expect(resolveBedrockRetryOptions(undefined, undefined, { clientSupplied: false })).toMatchObject({
      maxRetries: 2,
      initialDelayMs: 500,
      maxDelayMs: 8_000,
      maxRetryAfterMs: 60_000,
    });
    expect(resolveBedrockRetryOptions(undefined, undefined, { clientSupplied: true }).maxRetries).toBe(0);
  });

  it("a model's fields override the provider's one by one", () => {
    const resolved = resolveBedrockRetryOptions(
      { maxRetries: 5, maxDelayMs: 1_000 },
      { maxDelayMs: 2_000 },
      { clientSupplied: true },
    );
    expect(resolved).toMatchObject({ maxRetries: 5, maxDelayMs: 2_000, initialDelayMs: 500 });
  });

  it('a negative, fractional or non-numeric value is an InvalidBedrockOptionsError naming the option', () => {
    for (const [options, option] of [
      [{ maxRetries: -1 }, 'retry.maxRetries'],
      [{ initialDelayMs: 1.5 }, 'retry.initialDelayMs'],
      [{ maxDelayMs: Number.NaN }, 'retry.maxDelayMs'],
      [{ maxRetryAfterMs: '10' as unknown as number }, 'retry.maxRetryAfterMs'],
      [{ maxWaitMs: 10 } as RetryOptions, 'retry.maxWaitMs'],
      [{ maxDelay: 10 } as RetryOptions, 'retry.maxDelay'],
      [[] as RetryOptions, 'retry'],
    ] as const) {
      let thrown: unknown;
      try {
        resolveBedrockRetryOptions(undefined, options, { clientSupplied: false });
      } catch (error) {
        thrown = error;
      }
      expect(InvalidBedrockOptionsError.isInstance(thrown)).toBe(true);
      // Every provider's option errors share @org/core's class.
      expect(InvalidProviderOptionsError.isInstance(thrown)).toBe(true);
      expect(thrown).toMatchObject({ option, provider: 'bedrock', code: 'invalid_provider_options' });
    }
  });
});
