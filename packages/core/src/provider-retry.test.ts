import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_OPTIONS, InvalidProviderOptionsError, resolveProviderRetryOptions } from './index.js';

const provider = 'test-provider';

function failureOf(run: () => unknown): InvalidProviderOptionsError {
  try {
    run();
  } catch (error) {
    if (InvalidProviderOptionsError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected InvalidProviderOptionsError, nothing was thrown');
}

describe('resolveProviderRetryOptions', () => {
  it('fills in the shared defaults', () => {
    const resolved = resolveProviderRetryOptions({ provider });
    expect({ ...resolved, sleep: undefined }).toEqual({ ...DEFAULT_RETRY_OPTIONS, sleep: undefined });
    expect(typeof resolved.sleep).toBe('function');
  });

  it("takes the adapter's default budget (a ready client's own count, or 0)", () => {
    expect(resolveProviderRetryOptions({ provider, defaultMaxRetries: 0 }).maxRetries).toBe(0);
    expect(resolveProviderRetryOptions({ provider, defaultMaxRetries: 5 }).maxRetries).toBe(5);
  });

  it('layers the top-level maxRetries, then retry, then the model retry, field by field', () => {
    const sleep = async (): Promise<void> => {};
    const resolved = resolveProviderRetryOptions({
      provider,
      defaultMaxRetries: 0,
      maxRetries: 4,
      retry: { maxDelayMs: 2_000, initialDelayMs: 100 },
      modelRetry: { initialDelayMs: 50, sleep },
    });
    expect(resolved).toEqual({
      maxRetries: 4,
      initialDelayMs: 50,
      maxDelayMs: 2_000,
      maxRetryAfterMs: DEFAULT_RETRY_OPTIONS.maxRetryAfterMs,
      sleep,
    });
    expect(
      resolveProviderRetryOptions({ provider, retry: { maxRetries: 1 }, modelRetry: { maxRetries: 3 } })
        .maxRetries,
    ).toBe(3);
  });

  it('refuses maxRetries given twice at the provider level instead of letting one win', () => {
    const error = failureOf(() =>
      resolveProviderRetryOptions({ provider, maxRetries: 1, retry: { maxRetries: 3 } }),
    );
    expect(error.option).toBe('retry.maxRetries');
    expect(error.provider).toBe(provider);
    expect(error.message).toContain('pass one');
  });

  it('refuses an unknown key with a did-you-mean, under the option path it was given at', () => {
    const provided = failureOf(() => resolveProviderRetryOptions({ provider, retry: { maxWaitMs: 10 } }));
    expect(provided.option).toBe('retry.maxWaitMs');
    const model = failureOf(() => resolveProviderRetryOptions({ provider, modelRetry: { maxDelay: 10 } }));
    expect(model.option).toBe('settings.retry.maxDelay');
    expect(model.message).toContain("did you mean 'maxDelayMs'");
  });

  it('refuses values a timer or a retry count cannot take', () => {
    expect(failureOf(() => resolveProviderRetryOptions({ provider, maxRetries: -1 })).option).toBe(
      'maxRetries',
    );
    expect(failureOf(() => resolveProviderRetryOptions({ provider, maxRetries: 1.5 })).option).toBe(
      'maxRetries',
    );
    expect(
      failureOf(() => resolveProviderRetryOptions({ provider, defaultMaxRetries: Number.NaN })).option,
    ).toBe('maxRetries');
    expect(
      failureOf(() =>
        resolveProviderRetryOptions({ provider, retry: { maxDelayMs: Number.POSITIVE_INFINITY } }),
      ).option,
    ).toBe('retry.maxDelayMs');
    expect(failureOf(() => resolveProviderRetryOptions({ provider, retry: 'fast' })).option).toBe('retry');
    expect(failureOf(() => resolveProviderRetryOptions({ provider, modelRetry: { sleep: 1 } })).option).toBe(
      'settings.retry.sleep',
    );
  });
});
