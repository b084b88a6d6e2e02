import { assertDuration, type Clock, sleepAborted } from './clock.js';

/** A clock whose time moves only when everything that runs on it is asleep. */
export interface VirtualClock extends Clock {
  readonly kind: 'virtual';
  /** How many sleeps are waiting to be woken. */
  pendingSleeps(): number;
  /**
   * Moves time forward by `ms` at once, as if that much work had run without sleeping (e.g. simulated CPU time).
   * Sleeps that fall due are woken in time order as usual.
   */
  advanceBy(ms: number): void;
  /**
   * Resolves when `now()` reaches `time` (at the next wake-up when it already has). Unlike `sleep(time - now())`,
   * which can land a rounding error away (`0.7 + (3.3000000000000003 - 0.7)` is `3.3000000000000007`), it lands on
   * `time` exactly, so waits computed from one start time add up to what a single sleep from it would. Rejects
   * like `sleep`: `AbortedError` when `signal` aborts, `InvalidDurationError` for a negative or non-finite time.
   */
  sleepUntil(time: number, signal?: AbortSignal): Promise<void>;
}

/** Options of `createVirtualClock`. */
export interface VirtualClockOptions {
  /** The time `now()` starts at, in milliseconds. Default 0. */
  readonly startAt?: number;
}

interface PendingSleep {
  readonly wakeAt: number;
  /** Registration order: sleeps due at the same instant wake in the order they were started. */
  readonly sequence: number;
  readonly resolve: () => void;
}

/**
 * A deterministic clock for tests and benchmarks. `sleep(ms)` registers a wake-up at `now() + ms`; whenever the
 * process has nothing else to do but wait (the microtask queue is empty), the clock jumps to the earliest wake-up
 * and wakes that one sleeper alone, so its continuation can start new sleeps before the next one is considered.
 * Concurrent sleeps therefore complete in time order (ties in start order), and a run of simulated work takes no
 * real time at all.
 *
 * Everything that should take simulated time must sleep on this clock: work that waits on real I/O or real
 * timers while others sleep lets virtual time run ahead of it.
 *
 * @example
 * const clock = createVirtualClock();
 * const order: string[] = [];
 * await Promise.all([
 *   clock.sleep(900).then(() => order.push('slow')),
 *   clock.sleep(100).then(() => order.push('fast')),
 * ]);
 * // order: ['fast', 'slow'], clock.now() === 900, and no real time has passed
 */
export function createVirtualClock(options: VirtualClockOptions = {}): VirtualClock {
  const startAt = options.startAt ?? 0;
  assertDuration(startAt);
  let now = startAt;
  let sequence = 0;
  let tickScheduled = false;
  const pending: PendingSleep[] = [];

  const earliestIndex = (): number => {
    let best = 0;
    for (let index = 1; index < pending.length; index++) {
      const candidate = pending[index] as PendingSleep;
      const current = pending[best] as PendingSleep;
      if (
        candidate.wakeAt < current.wakeAt ||
        (candidate.wakeAt === current.wakeAt && candidate.sequence < current.sequence)
      ) {
        best = index;
      }
    }
    return best;
  };

  const scheduleTick = (): void => {
    if (tickScheduled || pending.length === 0) return;
    tickScheduled = true;
    // setImmediate runs after the microtask queue has drained: every continuation of the previous wake-up has
    // had its chance to start new sleeps, which may be due earlier than the ones already waiting.
    setImmediate(() => {
      tickScheduled = false;
      if (pending.length === 0) return;
      const [next] = pending.splice(earliestIndex(), 1) as [PendingSleep];
      now = Math.max(now, next.wakeAt);
      next.resolve();
      scheduleTick();
    });
  };

  const wakeAt = (time: number, signal: AbortSignal | undefined): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(sleepAborted(signal));
        return;
      }
      const onAbort = (): void => {
        const index = pending.indexOf(entry);
        if (index >= 0) pending.splice(index, 1);
        reject(sleepAborted(signal as AbortSignal));
      };
      const entry: PendingSleep = {
        wakeAt: time,
        sequence: sequence++,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      pending.push(entry);
      signal?.addEventListener('abort', onAbort, { once: true });
      scheduleTick();
    });

  return {
    kind: 'virtual',
    now: (): number => now,
    pendingSleeps: (): number => pending.length,
    advanceBy: (ms: number): void => {
      assertDuration(ms);
      now += ms;
    },
    sleep: (ms: number, signal?: AbortSignal): Promise<void> => {
      assertDuration(ms);
      return wakeAt(now + ms, signal);
    },
    sleepUntil: (time: number, signal?: AbortSignal): Promise<void> => {
      assertDuration(time);
      return wakeAt(Math.max(now, time), signal);
    },
  };
}
