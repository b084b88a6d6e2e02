/**
 * The longest delay, in milliseconds, a timer can wait (2^31 - 1): Node fires a `setTimeout` with a larger delay
 * after 1 ms. Every timeout option in the library is bounded by it.
 *
 * @example
 * if (timeoutMs > MAX_TIMER_DELAY_MS) throw new RangeError('a timer cannot wait that long');
 */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;
