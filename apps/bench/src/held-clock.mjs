// A virtual clock that can be held: the modes benchmark's clock for code mode.
//
// `createVirtualClock` (@org/provider-scripted) moves time whenever the main thread has nothing left to run (the
// microtask queue is empty). Code mode runs its program on a worker thread: a call the program makes after a result
// arrives is requested by a message from the worker, a macrotask that lands a fraction of a real millisecond later.
// By then the main thread was idle, the clock had jumped to the next wake-up, and the call started late in virtual
// time (measured: five of the six `get_order` calls of one `Promise.all` starting 240 virtual ms after the first; the
// research task's six page opens run one after the other, 1,150 ms late at worst, differently from run to run).
// Nothing real takes that time: it is the clock outrunning a thread it cannot see. This clock behaves exactly as
// `createVirtualClock` (same API, same wake-up order) and adds `holdWhile(waiting, capMs)`: time does not move while
// `waiting()` says a call is still to come. The benchmark holds it in code mode after each streamed fragment of the
// program, each tool result and when the program starts, while a call code mode must start now (it is written in the
// stream so far, and all it reads has ended) has not started, and measures what is left (each call's start against
// the stream and the actual ends of what it reads), so a hold that gave up shows as a late call rather than hiding.

/**
 * A deterministic virtual clock, `createVirtualClock`'s twin, whose time can be held for a stretch of real time.
 *
 * @example
 * const clock = createHeldClock();
 * clock.holdWhile(() => expectedCalls > startedCalls, 1000); // time waits for the worker's calls
 */
export function createHeldClock() {
  let now = 0;
  let sequence = 0;
  let tickScheduled = false;
  let holds = 0;
  const pending = [];

  const earliestIndex = () => {
    let best = 0;
    for (let index = 1; index < pending.length; index++) {
      const candidate = pending[index];
      const current = pending[best];
      if (
        candidate.wakeAt < current.wakeAt ||
        (candidate.wakeAt === current.wakeAt && candidate.sequence < current.sequence)
      )
        best = index;
    }
    return best;
  };

  const scheduleTick = () => {
    if (tickScheduled || holds > 0 || pending.length === 0) return;
    tickScheduled = true;
    // After the microtask queue has drained, as createVirtualClock does.
    setImmediate(() => {
      tickScheduled = false;
      if (holds > 0 || pending.length === 0) return;
      const [next] = pending.splice(earliestIndex(), 1);
      now = Math.max(now, next.wakeAt);
      next.resolve();
      scheduleTick();
    });
  };

  const wakeAt = (time, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = () => {
        const index = pending.indexOf(entry);
        if (index >= 0) pending.splice(index, 1);
        reject(signal.reason);
      };
      const entry = {
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

  const checked = (ms) => {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`a duration must be finite and ≥ 0, got ${ms}`);
    return ms;
  };

  return {
    kind: 'virtual',
    now: () => now,
    pendingSleeps: () => pending.length,
    advanceBy: (ms) => {
      now += checked(ms);
    },
    sleep: (ms, signal) => wakeAt(now + checked(ms), signal),
    sleepUntil: (time, signal) => wakeAt(Math.max(now, checked(time)), signal),
    /**
     * Virtual time stands still while `waiting()` is true, checked every real millisecond, for at most `capMs` real
     * milliseconds (holds add up: each ends on its own). `onGiveUp` runs when the cap ended a hold that was still
     * waiting.
     */
    holdWhile: (waiting, capMs, onGiveUp) => {
      if (!waiting()) return;
      holds++;
      const started = performance.now();
      const check = () => {
        if (waiting()) {
          if (performance.now() - started < capMs) {
            setTimeout(check, 1);
            return;
          }
          onGiveUp?.();
        }
        holds--;
        scheduleTick();
      };
      setTimeout(check, 1);
    },
  };
}
