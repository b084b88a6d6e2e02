/**
 * The time source of a plan run. The default reads real time and sleeps with timers; a virtual clock (tests,
 * benchmarks) makes a run deterministic and instant. Only these two operations are needed.
 *
 * @example
 * const clock: Clock = { now: () => virtualNow, sleep: (ms, signal) => scheduleVirtualTimer(ms, signal) };
 * await executePlan(plan, { tools, clock });
 */
export interface Clock {
  /** Milliseconds; only differences are used, except for event timestamps. */
  now(): number;
  /**
   * Resolves after `ms`. When `signal` aborts first, the timer is released and the promise settles early
   * (resolving or rejecting; the executor ignores which).
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

const timeOrigin = performance.timeOrigin;

/**
 * Real time: `now()` is milliseconds since the epoch with sub-millisecond precision, `sleep` uses `setTimeout`.
 *
 * @example
 * const started = systemClock.now();
 * await systemClock.sleep(10);
 */
export const systemClock: Clock = {
  now: (): number => timeOrigin + performance.now(),
  sleep: (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) {
        resolve();
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};
