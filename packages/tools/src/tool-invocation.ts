import type { ObservationError, ObservationStatus } from '@org/core';

/** How a tool's invocation ended. */
export type Outcome =
  | { readonly kind: 'returned'; readonly value: unknown }
  | { readonly kind: 'thrown'; readonly error: unknown }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'aborted'; readonly reason: unknown }
  /** Ended from outside with a final answer of its own (a streaming call whose arguments turned out invalid). */
  | { readonly kind: 'rejected'; readonly status: ObservationStatus; readonly error: ObservationError };

/** What stopped a call from outside. */
export type Interruption =
  | { readonly kind: 'timeout' | 'aborted'; readonly reason: unknown }
  | {
      readonly kind: 'rejected';
      readonly reason: unknown;
      readonly status: ObservationStatus;
      readonly error: ObservationError;
    };

/** A call whose result is a promise or a stream, still to be awaited. */
interface Pending {
  readonly kind: 'pending';
  readonly value: unknown;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  try {
    return (
      typeof value === 'object' &&
      value !== null &&
      typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
    );
  } catch {
    return false;
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  try {
    return (
      (typeof value === 'object' || typeof value === 'function') &&
      value !== null &&
      typeof (value as { then?: unknown }).then === 'function'
    );
  } catch {
    return false;
  }
}

/** Calls the tool; a plain (synchronous) result or throw is final, a promise or stream is still pending. */
function startWithoutInterruption(start: () => unknown): Outcome | Pending {
  let first: unknown;
  try {
    first = start();
  } catch (error) {
    return { kind: 'thrown', error };
  }
  return isAsyncIterable(first) || isThenable(first)
    ? { kind: 'pending', value: first }
    : { kind: 'returned', value: first };
}

/** Closes a stream whose call is over; its own cleanup failing changes nothing any more. */
async function closeIterator(iterator: AsyncIterator<unknown>): Promise<void> {
  try {
    await iterator.return?.();
  } catch {
    // The call already has its final state.
  }
}

/** How {@link ToolInvocation.run} may be interrupted. */
export interface InvocationLimits {
  /** The call's deadline in ms; `undefined` for none. */
  readonly timeoutMs: number | undefined;
  /** The caller's signal. */
  readonly signal: AbortSignal | undefined;
  /** The reason the tool's signal is aborted with at the deadline. */
  readonly timeoutReason: () => unknown;
  /** Whether `interrupt` may be called from outside (a streaming call): then the call is always raced. */
  readonly interruptible: boolean;
}

/**
 * One invocation of a tool: the call itself, raced against its deadline, the caller's signal and any outside
 * interruption. The tool's AbortController is created only when something can abort it (a timeout, an external
 * signal) or someone reads its signal (the tool through `context.signal`, or a hook): most calls never need one.
 */
export class ToolInvocation {
  #controller: AbortController | undefined;
  /** Set once the call is interrupted; a signal first read after that is born aborted. */
  #interruption: Interruption | undefined;
  #settle: ((outcome: Outcome) => void) | undefined;
  #settled = false;
  #activeIterator: AsyncIterator<unknown> | undefined;
  readonly #report: (progress: unknown) => void;

  /** `report` receives the tool's progress (each item of a streaming tool but the last) until the outcome is known. */
  constructor(report: (progress: unknown) => void) {
    this.#report = report;
  }

  /** The tool's `context.reportProgress`: progress after the outcome is known is dropped. */
  readonly reportProgress = (progress: unknown): void => {
    if (!this.#settled) this.#report(progress);
  };

  /** The tool's AbortController, created on first use. */
  readonly controllerOf = (): AbortController => {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#interruption !== undefined) this.#controller.abort(this.#interruption.reason);
    }
    return this.#controller;
  };

  /** Whether the call has its outcome (progress reported after that is dropped). */
  get settled(): boolean {
    return this.#settled;
  }

  /**
   * Stops the call from outside: the race settles first, then the tool's signal aborts, as listeners always saw. After
   * the outcome is known only the signal is aborted (a streaming call whose answer is discarded after its tool
   * returned: what the tool left running stops).
   */
  interrupt(interruption: Interruption): void {
    if (this.#interruption !== undefined) return;
    this.#interruption = interruption;
    const settle = this.#settle;
    if (settle !== undefined && !this.#settled) {
      settle(outcomeOf(interruption));
    }
    this.#controller?.abort(interruption.reason);
  }

  /** Calls `start` (which calls the tool) and awaits its outcome, a promise or a stream drained to its last item. */
  async run(start: () => unknown, limits: InvocationLimits): Promise<Outcome> {
    let outcome: Outcome | Pending;
    if (limits.timeoutMs === undefined && limits.signal === undefined && !limits.interruptible) {
      // Nothing can interrupt the call, so there is nothing to race: a synchronous result is used as it is.
      outcome = startWithoutInterruption(start);
      if (outcome.kind === 'pending') {
        try {
          outcome = { kind: 'returned', value: await this.#consume(outcome.value) };
        } catch (error) {
          outcome = { kind: 'thrown', error };
        }
      }
      this.#settled = true;
      return outcome;
    }
    // The controller stays lazy here too: a tool that never reads its signal never needs one.
    let timer: ReturnType<typeof setTimeout> | undefined;
    let removeAbortListener: (() => void) | undefined;
    if (limits.signal !== undefined) {
      const external = limits.signal;
      const onAbort = (): void => this.interrupt({ kind: 'aborted', reason: external.reason });
      external.addEventListener('abort', onAbort, { once: true });
      removeAbortListener = () => external.removeEventListener('abort', onAbort);
    }
    if (limits.timeoutMs !== undefined) {
      timer = setTimeout(() => {
        this.interrupt({ kind: 'timeout', reason: limits.timeoutReason() });
      }, limits.timeoutMs);
    }
    const first = this.#interruption === undefined ? startWithoutInterruption(start) : undefined;
    const interruption = this.#interruption;
    if (interruption !== undefined) {
      // Interrupted before or while the tool ran synchronously (it aborted the caller's signal itself): the
      // interruption wins, as it would in the race below.
      outcome = outcomeOf(interruption);
    } else if (first !== undefined && first.kind !== 'pending') {
      // A synchronous result or throw: nothing can have interrupted it, so there is nothing to race.
      outcome = first;
    } else {
      const interrupted = new Promise<Outcome>((resolve) => {
        this.#settle = resolve;
      });
      const completed: Promise<Outcome> = this.#consume((first as Pending).value).then(
        (value) => ({ kind: 'returned', value }),
        (error: unknown) => ({ kind: 'thrown', error }),
      );
      outcome = await Promise.race([completed, interrupted]);
    }
    this.#settled = true;
    if (timer !== undefined) clearTimeout(timer);
    removeAbortListener?.();
    if (outcome.kind !== 'returned' && outcome.kind !== 'thrown') {
      // A late result is discarded (`completed` is never read again); a stream stuck in `next()` is asked to close.
      if (this.#activeIterator !== undefined) void closeIterator(this.#activeIterator);
    }
    return outcome;
  }

  /** Awaits a promise, then drains a stream: progress items, the last is the result. */
  async #consume(first: unknown): Promise<unknown> {
    let result = first;
    // An async function may return the stream (`async execute() { return stream() }`).
    if (!isAsyncIterable(result) && isThenable(result)) result = await result;
    if (!isAsyncIterable(result)) return result;
    const iterator = result[Symbol.asyncIterator]();
    this.#activeIterator = iterator;
    let last: unknown;
    let hasLast = false;
    try {
      for (;;) {
        const step = await iterator.next();
        if (this.#interruption !== undefined) return undefined;
        if (step.done === true) {
          if (step.value !== undefined) {
            if (hasLast) this.reportProgress(last);
            return step.value;
          }
          return last;
        }
        if (hasLast) this.reportProgress(last);
        last = step.value;
        hasLast = true;
      }
    } finally {
      this.#activeIterator = undefined;
      if (this.#interruption !== undefined) await closeIterator(iterator);
    }
  }
}

function outcomeOf(interruption: Interruption): Outcome {
  if (interruption.kind === 'rejected')
    return { kind: 'rejected', status: interruption.status, error: interruption.error };
  return interruption.kind === 'timeout'
    ? { kind: 'timeout' }
    : { kind: 'aborted', reason: interruption.reason };
}
