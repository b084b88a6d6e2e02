/**
 * A source of time: what a run reads elapsed time from and waits on. The contract shared by the packages that
 * measure or simulate time (the planner's event timestamps, the plan executor's timeouts and retries, the scripted
 * provider's simulated latency), so that one clock (the system's, or a virtual one in tests and benchmarks) can be
 * passed to all of them. Core defines only the type; implementations live in the packages that need them.
 *
 * @example
 * import type { Clock } from '@org/core';
 *
 * const systemClock: Clock = {
 *   now: () => Date.now(),
 *   sleep: (ms, signal) =>
 *     new Promise((resolve) => {
 *       const timer = setTimeout(resolve, ms);
 *       signal?.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
 *     }),
 * };
 */
export interface Clock {
  /** The current time in milliseconds. Only differences matter, except where a value is used as a timestamp. */
  now(): number;
  /**
   * Settles after `ms` milliseconds of this clock's time. When `signal` aborts first (or already has), the timer
   * is released and the promise settles early: it may resolve, or reject with `AbortedError`, depending on the
   * implementation, so callers check `signal.aborted` themselves rather than rely on either.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}
