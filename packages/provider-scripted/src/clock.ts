import { AbortedError, type Clock as CoreClock } from '@org/core';
import { InvalidDurationError } from './errors.js';

/**
 * A source of time that simulated work can wait on. The scripted model, tools and benchmarks share one clock, so
 * that simulated latencies add up the way real ones would and elapsed time is read in one place. It extends
 * `Clock` from `@org/core` with `kind`, so the same clock can be passed to `runAgent` and `executePlan`.
 *
 * @example
 * const clock = createVirtualClock();
 * await runAgent({ model: createScriptedModel({ script, clock }), tools, task, clock });
 */
export interface Clock extends CoreClock {
  /** `virtual` for a `createVirtualClock()` clock, `real` for `realClock`. */
  readonly kind: 'virtual' | 'real';
  /** The current time in milliseconds. */
  now(): number;
  /**
   * Resolves after `ms` milliseconds of this clock's time. Narrows the core contract: rejects with `AbortedError` when `signal` aborts
   * (at once when it already has), and with `InvalidDurationError` for a negative or non-finite duration.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Throws `InvalidDurationError` unless `ms` is a finite number >= 0. */
export function assertDuration(ms: unknown): asserts ms is number {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) throw new InvalidDurationError(ms);
}

/** The error a sleep rejects with when its signal aborts; the signal's reason is the cause. */
export function sleepAborted(signal: AbortSignal): AbortedError {
  return new AbortedError({ operation: 'sleep', cause: signal.reason });
}

/**
 * The wall clock: `now()` is `Date.now()` and `sleep` uses real timers. Use it to watch a demo unfold at the pace
 * a real provider would set.
 *
 * @example
 * const model = createScriptedModel({ script, latency: LATENCY_PROFILES.typical, clock: realClock });
 */
export const realClock: Clock = Object.freeze({
  kind: 'real' as const,
  now: (): number => Date.now(),
  sleep: (ms: number, signal?: AbortSignal): Promise<void> => {
    assertDuration(ms);
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(sleepAborted(signal));
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(sleepAborted(signal as AbortSignal));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
});
