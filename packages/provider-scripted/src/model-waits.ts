import { AbortedError, MAX_TIMER_DELAY_MS, type ModelRequest } from '@org/core';
import type { Clock } from './clock.js';
import { ScriptMismatchError } from './errors.js';
import type { VirtualClock } from './virtual-clock.js';

function throwIfAborted(request: ModelRequest): void {
  if (request.signal?.aborted) {
    throw new AbortedError({ operation: 'model call', cause: request.signal.reason });
  }
}

/** Spends `ms` of simulated latency on the clock, failing with `AbortedError` when the request aborts. */
export async function sleepOrAbort(clock: Clock, ms: number, request: ModelRequest): Promise<void> {
  throwIfAborted(request);
  // A latency of many tokens can add up past what one timer can wait (a real clock would fire it after 1 ms): it is
  // waited in parts. Not finite never happens (the profile is checked), and would wait nothing.
  let left = Number.isFinite(ms) ? ms : 0;
  while (left > 0) {
    const part = Math.min(left, MAX_TIMER_DELAY_MS);
    await clock.sleep(part, request.signal);
    left -= part;
  }
}

function hasSleepUntil(clock: Clock): clock is VirtualClock {
  return clock.kind === 'virtual' && typeof (clock as Partial<VirtualClock>).sleepUntil === 'function';
}

/**
 * Waits until the clock reads `time`, at once when it already does (a consumer that pulls a stream late gets what
 * is due without waiting again). Fails with `AbortedError` when the request aborts, also when nothing is left to
 * wait. On a virtual clock the wait lands exactly on `time` (`sleepUntil`), so a stream whose deadlines are
 * computed as `generate`'s ends exactly when `generate` would.
 */
export async function waitUntil(clock: Clock, time: number, request: ModelRequest): Promise<void> {
  throwIfAborted(request);
  const now = clock.now();
  if (time <= now) return;
  if (hasSleepUntil(clock)) await clock.sleepUntil(time, request.signal);
  else await sleepOrAbort(clock, time - now, request);
}

/** Waits until the request is aborted; a stall without a signal could never end, so it is refused. */
export function untilAborted(request: ModelRequest, callIndex: number): Promise<never> {
  const signal = request.signal;
  if (signal === undefined) {
    return Promise.reject(
      new ScriptMismatchError({
        callIndex,
        mismatch: 'stall-without-signal',
        message: 'the turn stalls, but the request has no abort signal, so it could never end.',
      }),
    );
  }
  return new Promise<never>((_, reject) => {
    const abort = (): void => reject(new AbortedError({ operation: 'model call', cause: signal.reason }));
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
  });
}
