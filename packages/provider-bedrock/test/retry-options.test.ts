import { InvalidProviderOptionsError } from '@org/core';
import { describe, expect, it } from 'vitest';
import { InvalidBedrockOptionsError } from '../src/invalid-bedrock-options-error.js';
import { type RetryOptions, resolveBedrockRetryOptions } from '../src/retry-options.js';

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

  it("a bad option of the provider's retry is named retry.<field>", () => {
    let thrown: unknown;
    try {
      resolveBedrockRetryOptions({ maxRetries: -1 }, undefined, { clientSupplied: false });
    } catch (error) {
      thrown = error;
    }
    expect(InvalidBedrockOptionsError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ option: 'retry.maxRetries', value: -1 });
  });

  it("a negative, fractional or non-numeric value of a model's retry is an InvalidBedrockOptionsError naming the option", () => {
    for (const [options, option] of [
      [{ maxRetries: -1 }, 'settings.retry.maxRetries'],
      [{ initialDelayMs: 1.5 }, 'settings.retry.initialDelayMs'],
      [{ maxDelayMs: Number.NaN }, 'settings.retry.maxDelayMs'],
      [{ maxRetryAfterMs: '10' as unknown as number }, 'settings.retry.maxRetryAfterMs'],
      [{ maxWaitMs: 10 } as RetryOptions, 'settings.retry.maxWaitMs'],
      [{ maxDelay: 10 } as RetryOptions, 'settings.retry.maxDelay'],
      [[] as RetryOptions, 'settings.retry'],
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
      expect((thrown as InvalidBedrockOptionsError).value).toEqual(
        option === 'settings.retry'
          ? options
          : (options as Record<string, unknown>)[option.split('.')[2] ?? ''],
      );
    }
  });
});
