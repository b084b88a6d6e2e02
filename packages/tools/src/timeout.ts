import { timerDelayProblem } from '@org/core';

/**
 * Why a `timeoutMs` value cannot be used, or `undefined` when it can: the shared rule of `@org/core`
 * (`timerDelayProblem`): a number of milliseconds above zero and at most `MAX_TIMER_DELAY_MS`, or `Infinity` (no
 * timeout).
 */
export function timeoutProblem(value: unknown): string | undefined {
  return timerDelayProblem(value, { infinity: true });
}

/** The delay to arm a timer with: `undefined` for none (unset or `Infinity`). */
export function effectiveTimeout(value: number | undefined): number | undefined {
  return value === undefined || value === Number.POSITIVE_INFINITY ? undefined : value;
}
