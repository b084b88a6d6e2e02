import { AbortedError, type OrgError, RateLimitError } from '@org/core';
import { retryAfterMsFrom } from './map-error.js';

/**
 * How the adapter retries a request that failed before its answer started (the count is `maxRetries` of
 * `createAnthropic`).
 *
 * @example
 * const provider = createAnthropic({ maxRetries: 4, retry: { maxWaitMs: 10_000, initialDelayMs: 250 } });
 */
export interface RetryOptions {
  /**
   * The longest wait the adapter accepts before a retry. When the server asks for more (`retry-after: 3600`), the
   * adapter fails at once with the error, whose `retryAfterMs` says how long to wait. Default 60 000.
   */
  readonly maxWaitMs?: number | undefined;
  /** The first backoff delay when the server names none; doubled per retry. Default 500. */
  readonly initialDelayMs?: number | undefined;
  /** The longest backoff delay. Default 8 000. */
  readonly maxDelayMs?: number | undefined;
  /** Waits before a retry. Replace it to run retries on a virtual clock, or to observe the waits. */
  readonly sleep?: ((delayMs: number, signal?: AbortSignal) => Promise<void>) | undefined;
}

/** Retry options with every default filled in. */
export interface ResolvedRetryOptions {
  readonly maxRetries: number;
  readonly maxWaitMs: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly sleep: (delayMs: number, signal?: AbortSignal) => Promise<void>;
}

/** Waits `delayMs`, or rejects with the signal's reason when it aborts first. */
export function defaultSleep(delayMs: number, signal?: AbortSignal): Promise<void> {
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
    }, delayMs);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `attempt` and retries it while the mapped error is retryable and the budget allows: the server's
 * `retry-after-ms` / `retry-after` wait when it names one (failing fast when that exceeds `maxWaitMs`), otherwise
 * exponential backoff with jitter. `x-should-retry` from the server overrides the decision either way.
 */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  options: {
    retry: ResolvedRetryOptions;
    signal: AbortSignal | undefined;
    mapError: (error: unknown) => OrgError;
    operation: string;
  },
): Promise<T> {
  for (let retriesDone = 0; ; retriesDone++) {
    try {
      return await attempt();
    } catch (thrown) {
      const error = options.mapError(thrown);
      const retry = serverSaysRetry(thrown) ?? error.retryable;
      if (!retry || AbortedError.isInstance(error) || retriesDone >= options.retry.maxRetries) throw error;
      const serverWait = serverRequestedWait(thrown, error);
      if (serverWait !== undefined && serverWait > options.retry.maxWaitMs) throw error;
      const delay = serverWait ?? backoff(retriesDone, options.retry);
      try {
        await options.retry.sleep(delay, options.signal);
      } catch (reason) {
        throw new AbortedError({ operation: options.operation, cause: reason });
      }
      if (options.signal?.aborted)
        throw new AbortedError({ operation: options.operation, cause: options.signal.reason });
    }
  }
}

/** `x-should-retry: true` / `false` from the server, which overrides the error's own verdict (as the SDK does). */
function serverSaysRetry(thrown: unknown): boolean | undefined {
  const value = headersOf(thrown)?.get?.('x-should-retry');
  return value === 'true' ? true : value === 'false' ? false : undefined;
}

function headersOf(thrown: unknown): { get?(name: string): string | null } | undefined {
  return (thrown as { headers?: { get?(name: string): string | null } } | null)?.headers;
}

function serverRequestedWait(thrown: unknown, error: OrgError): number | undefined {
  if (RateLimitError.isInstance(error) && error.retryAfterMs !== undefined) return error.retryAfterMs;
  const headers = headersOf(thrown);
  if (headers?.get === undefined) return undefined;
  return retryAfterMsFrom((key) => headers.get?.(key) ?? undefined);
}

function backoff(retriesDone: number, retry: ResolvedRetryOptions): number {
  const base = Math.min(retry.initialDelayMs * 2 ** retriesDone, retry.maxDelayMs);
  return base * (1 - Math.random() * 0.25);
}
