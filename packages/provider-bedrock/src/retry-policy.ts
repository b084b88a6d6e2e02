import { AbortedError, OrgError } from '@org/core';
import { InvalidBedrockOptionsError } from './invalid-bedrock-options-error.js';

/**
 * Retries of failed Bedrock calls (throttling, 5xx, connection failures).
 *
 * @example
 * createBedrock({ retry: { maxRetries: 5, maxRetryAfterMs: 10_000 } });
 */
export interface RetryOptions {
  /** Retries after the first attempt. Default 2 (0 when the provider was given a ready client, see the README). */
  readonly maxRetries?: number;
  /** First backoff delay when the provider gives no `retry-after`. Default 500 ms; doubled per retry. */
  readonly initialDelayMs?: number;
  /** Cap of one backoff delay. Default 8,000 ms. */
  readonly maxDelayMs?: number;
  /**
   * The longest `retry-after` the adapter waits for. A longer one fails at once with a `RateLimitError` carrying
   * `retryAfterMs`, so the caller decides. Default 60,000 ms.
   */
  readonly maxRetryAfterMs?: number;
  /**
   * Waits between attempts. Defaults to a timer honouring the request's signal; replace it to run on a virtual
   * clock or a scheduler of your own.
   */
  readonly sleep?: (delayMs: number, signal: AbortSignal | undefined) => Promise<void>;
}

/** The retry options with every default filled in. */
export interface ResolvedRetryOptions {
  readonly maxRetries: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxRetryAfterMs: number;
  readonly sleep: (delayMs: number, signal: AbortSignal | undefined) => Promise<void>;
}

/** A failure the retry loop may act on: whether to retry, and the wait the provider asked for. */
export interface RetryDecisionInput {
  readonly error: Error;
  /** Milliseconds the provider asked to wait (`retry-after`, `x-amz-retry-after`), when it said. */
  readonly retryAfterMs: number | undefined;
  /** `x-should-retry` when the server sent it: `true` forces a retry, `false` forbids one. */
  readonly shouldRetryHeader: boolean | undefined;
}

/**
 * Fills in the defaults of `RetryOptions` and checks them.
 *
 * @example
 * resolveRetryOptions({ maxRetries: 5 }, { clientSupplied: false });
 */
export function resolveRetryOptions(
  options: RetryOptions | undefined,
  context: { clientSupplied: boolean },
): ResolvedRetryOptions {
  const resolved: ResolvedRetryOptions = {
    maxRetries: options?.maxRetries ?? (context.clientSupplied ? 0 : 2),
    initialDelayMs: options?.initialDelayMs ?? 500,
    maxDelayMs: options?.maxDelayMs ?? 8_000,
    maxRetryAfterMs: options?.maxRetryAfterMs ?? 60_000,
    sleep: options?.sleep ?? sleepWithSignal,
  };
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

/**
 * Runs `attempt` until it succeeds, a failure is not retryable, or the retries are spent. The delay is the
 * provider's `retry-after` when given (a longer wait than `maxRetryAfterMs` fails at once), else exponential
 * backoff with jitter. Errors are thrown as they came from `classify`.
 *
 * @example
 * await withRetries(() => client.send(command), retry, signal, classify);
 */
export async function withRetries<T>(
  attempt: (attemptIndex: number) => Promise<T>,
  retry: ResolvedRetryOptions,
  signal: AbortSignal | undefined,
  classify: (thrown: unknown) => RetryDecisionInput,
): Promise<T> {
  for (let attemptIndex = 0; ; attemptIndex++) {
    try {
      return await attempt(attemptIndex);
    } catch (thrown) {
      const decision = classify(thrown);
      const error = decision.error;
      if (signal?.aborted) throw error;
      const retryable = decision.shouldRetryHeader ?? (OrgError.isInstance(error) ? error.retryable : false);
      if (!retryable || attemptIndex >= retry.maxRetries) throw error;
      if (decision.retryAfterMs !== undefined && decision.retryAfterMs > retry.maxRetryAfterMs) {
        throw error;
      }
      const delay = decision.retryAfterMs ?? backoffDelay(attemptIndex, retry);
      await retry.sleep(delay, signal);
    }
  }
}

/** Exponential backoff with "equal jitter": between half and all of `initial * 2^n`, capped. */
export function backoffDelay(retryIndex: number, retry: ResolvedRetryOptions): number {
  const ceiling = Math.min(retry.maxDelayMs, retry.initialDelayMs * 2 ** retryIndex);
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

/** The default `sleep`: a timer that rejects with `AbortedError` when the signal aborts. */
export function sleepWithSignal(delayMs: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(new AbortedError({ operation: 'Bedrock retry wait', cause: signal.reason }));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new AbortedError({ operation: 'Bedrock retry wait', cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, delayMs);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
