import { MAX_TIMER_DELAY_MS } from '@org/core';

/**
 * Why a `timeoutMs` value cannot be used, or `undefined` when it can: a number of milliseconds above zero and at most
 * `MAX_TIMER_DELAY_MS`, or `Infinity` (no timeout).
 */
export function timeoutProblem(value: unknown): string | undefined {
  if (value === Number.POSITIVE_INFINITY) return undefined;
  if (typeof value !== 'number' || Number.isNaN(value) || value <= 0 || value > MAX_TIMER_DELAY_MS) {
    return `must be a number of milliseconds above 0 and at most ${MAX_TIMER_DELAY_MS}, or Infinity for no timeout; got ${String(value)}`;
  }
  return undefined;
}

/** The delay to arm a timer with: `undefined` for none (unset or `Infinity`). */
export function effectiveTimeout(value: number | undefined): number | undefined {
  return value === undefined || value === Number.POSITIVE_INFINITY ? undefined : value;
}
