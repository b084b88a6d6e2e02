import { AbortedError, InvalidRequestError, ProviderUnavailableError, RateLimitError } from '@org/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay, resolveRetryOptions, sleepWithSignal, withRetries } from './retry-policy.js';

const unavailable = (): ProviderUnavailableError =>
  new ProviderUnavailableError({ provider: 'bedrock', message: 'down' });

describe('withRetries', () => {
  it('property: attempts = min(failures + 1, maxRetries + 1); waits = attempts - 1, each within the backoff bounds', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 6 }), fc.nat({ max: 6 }), async (failures, maxRetries) => {
        const sleeps: number[] = [];
        const retry = resolveRetryOptions(
          { maxRetries, sleep: async (delay) => void sleeps.push(delay) },
          { clientSupplied: false },
        );
        let attempts = 0;
        const result = await withRetries(
          async () => {
            attempts++;
            if (attempts <= failures) throw unavailable();
            return 'ok';
          },
          retry,
          undefined,
          (error) => ({ error: error as Error, retryAfterMs: undefined, shouldRetryHeader: undefined }),
        ).catch((error: unknown) => error);
        expect(attempts).toBe(Math.min(failures + 1, maxRetries + 1));
        expect(result === 'ok').toBe(failures <= maxRetries);
        expect(sleeps).toHaveLength(attempts - 1);
        sleeps.forEach((delay, index) => {
          const ceiling = Math.min(retry.maxDelayMs, retry.initialDelayMs * 2 ** index);
          expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
          expect(delay).toBeLessThanOrEqual(ceiling);
        });
      }),
      { numRuns: 200 },
    );
  });

  it('does not retry a non-retryable error, nor a wait longer than maxRetryAfterMs', async () => {
    const retry = resolveRetryOptions({ sleep: async () => {} }, { clientSupplied: false });
    let attempts = 0;
    const classify = (error: unknown) => ({
      error: error as Error,
      retryAfterMs: RateLimitError.isInstance(error) ? error.retryAfterMs : undefined,
      shouldRetryHeader: undefined,
    });
    await withRetries(
      async () => {
        attempts++;
        throw new InvalidRequestError({ provider: 'bedrock', message: 'bad' });
      },
      retry,
      undefined,
      classify,
    ).catch(() => {});
    expect(attempts).toBe(1);
    attempts = 0;
    await withRetries(
      async () => {
        attempts++;
        throw new RateLimitError({ provider: 'bedrock', message: 'wait', retryAfterMs: 61_000 });
      },
      retry,
      undefined,
      classify,
    ).catch(() => {});
    expect(attempts).toBe(1);
  });

  it('defaults: 2 retries for a client the adapter creates, none for a supplied client', () => {
    expect(resolveRetryOptions(undefined, { clientSupplied: false }).maxRetries).toBe(2);
    expect(resolveRetryOptions(undefined, { clientSupplied: true }).maxRetries).toBe(0);
    expect(backoffDelay(10, resolveRetryOptions(undefined, { clientSupplied: false }))).toBeLessThanOrEqual(
      8_000,
    );
  });

  it('the default sleep rejects with AbortedError when the signal aborts', async () => {
    const controller = new AbortController();
    const waiting = sleepWithSignal(60_000, controller.signal);
    controller.abort();
    await expect(waiting).rejects.toSatisfy((error: unknown) => AbortedError.isInstance(error));
    await expect(sleepWithSignal(1, controller.signal)).rejects.toSatisfy((error: unknown) =>
      AbortedError.isInstance(error),
    );
  });
});
