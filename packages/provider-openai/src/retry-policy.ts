import { AbortedError, OrgError, RateLimitError } from '@org/core';
import { APIError } from 'openai';
import { parseRetryAfterMs } from './retry-after.js';

/**
 * How the adapter retries. The adapter runs its own retries (the SDK's are turned off per request) so that it can
 * fail fast when the server asks for a wait longer than `maxRetryAfterMs`, rather than sleeping for an hour.
 *
 * @example
 * createOpenAI({ maxRetries: 4, retry: { maxRetryAfterMs: 10_000 } });
 */
export interface RetryOptions {
  /** Retries after the first attempt. Default 2. */
  readonly maxRetries?: number;
  /** First back-off delay when the server gives no `retry-after`; doubles per retry. Default 500 ms. */
  readonly initialDelayMs?: number;
  /** Cap of the back-off delay. Default 8000 ms. */
  readonly maxDelayMs?: number;
  /**
   * The longest server-requested wait worth sleeping through. A longer `retry-after` fails at once with the
   * wait in `RateLimitError.retryAfterMs`. Default 60 000 ms.
   */
  readonly maxRetryAfterMs?: number;
  /** How to wait; replace it to schedule retries on your own clock. Must reject when `signal` aborts. */
  readonly sleep?: (milliseconds: number, signal: AbortSignal | undefined) => Promise<void>;
}

/** `RetryOptions` with every default filled in. */
export type ResolvedRetryOptions = Required<RetryOptions>;

/** Waits `milliseconds`, or rejects with the abort reason as soon as `signal` aborts. */
export function abortableSleep(milliseconds: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, milliseconds);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Fills in the defaults. */
export function resolveRetryOptions(
  options: RetryOptions | undefined,
  maxRetries: number | undefined,
): ResolvedRetryOptions {
  return {
    maxRetries: options?.maxRetries ?? maxRetries ?? 2,
    initialDelayMs: options?.initialDelayMs ?? 500,
    maxDelayMs: options?.maxDelayMs ?? 8000,
    maxRetryAfterMs: options?.maxRetryAfterMs ?? 60_000,
    sleep: options?.sleep ?? abortableSleep,
  };
}

/**
 * Runs `attempt` until it succeeds, a failure is not retryable, the server says not to (`x-should-retry: false`),
 * asks for a wait longer than `maxRetryAfterMs`, or the retries are spent. Failures are mapped with `mapError`
 * before deciding, and the last mapped failure is thrown.
 */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  options: {
    readonly retry: ResolvedRetryOptions;
    readonly signal: AbortSignal | undefined;
    readonly mapError: (error: unknown) => Error;
    readonly operation: string;
  },
): Promise<T> {
  const { retry, signal } = options;
  for (let retriesDone = 0; ; retriesDone++) {
    try {
      return await attempt();
    } catch (thrown) {
      const error = options.mapError(thrown);
      const headers = thrown instanceof APIError ? thrown.headers : undefined;
      const shouldRetryHeader = headers?.get('x-should-retry');
      const retryable =
        shouldRetryHeader === 'true'
          ? true
          : shouldRetryHeader === 'false'
            ? false
            : OrgError.isInstance(error) && error.retryable;
      if (!retryable || retriesDone >= retry.maxRetries || AbortedError.isInstance(error)) throw error;
      const requested = RateLimitError.isInstance(error) ? error.retryAfterMs : parseRetryAfterMs(headers);
      if (requested !== undefined && requested > retry.maxRetryAfterMs) throw error;
      const backoff =
        Math.min(retry.initialDelayMs * 2 ** retriesDone, retry.maxDelayMs) * (1 - Math.random() * 0.25);
      try {
        await retry.sleep(requested ?? backoff, signal);
      } catch (reason) {
        throw new AbortedError({ operation: options.operation, cause: reason });
      }
    }
  }
}
