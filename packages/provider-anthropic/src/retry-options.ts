/**
 * How the adapter retries a request that failed before its answer started (the count is `maxRetries` of
 * `createAnthropic`). The retry loop itself is `withRetries` of `@org/core`, shared with the other providers;
 * its option names are the same as `withRetries` and the other providers use.
 *
 * @example
 * const provider = createAnthropic({ maxRetries: 4, retry: { maxRetryAfterMs: 10_000, initialDelayMs: 250 } });
 */
export interface RetryOptions {
  /**
   * The longest wait the adapter accepts before a retry. When the server asks for more (`retry-after: 3600`), the
   * adapter fails at once with the error, whose `retryAfterMs` says how long to wait. Default 60 000.
   */
  readonly maxRetryAfterMs?: number | undefined;
  /** The first backoff delay when the server names none; doubled per retry. Default 500. */
  readonly initialDelayMs?: number | undefined;
  /** The longest backoff delay. Default 8 000. */
  readonly maxDelayMs?: number | undefined;
  /** Waits before a retry. Replace it to run retries on a virtual clock, or to observe the waits. */
  readonly sleep?: ((delayMs: number, signal?: AbortSignal) => Promise<void>) | undefined;
}
