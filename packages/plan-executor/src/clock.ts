import type { Clock } from '@org/core';

/**
 * The time source of a plan run: `Clock` from `@org/core`, re-exported so existing imports from this package keep
 * working. The default reads real time and sleeps with timers; a virtual clock (tests, benchmarks) makes a run
 * deterministic and instant. `now()` is read for durations and event timestamps; when a sleep's signal aborts,
 * the executor ignores whether the promise resolved or rejected.
 *
 * @example
 * const clock: Clock = { now: () => virtualNow, sleep: (ms, signal) => scheduleVirtualTimer(ms, signal) };
 * await executePlan(plan, { tools, clock });
 */
export type { Clock };

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
