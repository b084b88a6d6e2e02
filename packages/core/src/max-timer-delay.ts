/**
 * The longest delay, in milliseconds, a timer can wait (2^31 - 1): Node fires a `setTimeout` with a larger delay
 * after 1 ms. Every timeout option in the library is bounded by it.
 *
 * @example
 * if (timeoutMs > MAX_TIMER_DELAY_MS) throw new RangeError('a timer cannot wait that long');
 */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

/** What {@link timerDelayProblem} accepts besides a number of milliseconds above 0 and at most the maximum. */
export interface TimerDelayRule {
  /**
   * `Infinity` means "no timeout": accepted for an optional timeout, where no timer is armed then. Never for a wait
   * (a retry delay, a back-off cap), which a timer must actually wait. Default `false`.
   */
  readonly infinity?: boolean;
  /** 0 is accepted (a wait that may be none). Default `false`: a timeout of 0 would time everything out. */
  readonly zero?: boolean;
  /** Only whole milliseconds (the option is counted in whole ms, or handed to an SDK that wants them). */
  readonly integer?: boolean;
}

/**
 * The one rule for every option a timer waits (timeouts, retry waits, back-off caps, simulated latency): why `value`
 * cannot be used, or `undefined` when it can. A number of milliseconds above 0 (from 0 with `zero`) and at most
 * {@link MAX_TIMER_DELAY_MS}; `Infinity` only where `infinity` allows it (no timeout). `NaN`, negative numbers,
 * non-numbers and anything above the maximum (a timer would fire after 1 ms) are refused. Each package throws its
 * own typed options error with this text, naming the option.
 *
 * @example
 * const problem = timerDelayProblem(options.stepTimeoutMs, { infinity: true });
 * if (problem !== undefined) throw new PlanOptionsError({ option: 'stepTimeoutMs', ... });
 */
export function timerDelayProblem(value: unknown, rule: TimerDelayRule = {}): string | undefined {
  if (value === Number.POSITIVE_INFINITY && rule.infinity === true) return undefined;
  if (
    typeof value === 'number' &&
    (rule.zero === true ? value >= 0 : value > 0) &&
    value <= MAX_TIMER_DELAY_MS &&
    (rule.integer !== true || Number.isInteger(value))
  ) {
    return undefined;
  }
  const kind = rule.integer === true ? 'a whole number of milliseconds' : 'a number of milliseconds';
  const range = rule.zero === true ? 'from 0' : 'above 0';
  const infinity = rule.infinity === true ? ', or Infinity for no timeout' : '';
  return `must be ${kind} ${range} and at most ${MAX_TIMER_DELAY_MS} (the longest a timer can wait)${infinity}; got ${describeOptionValue(value)}`;
}

/** An option's value for a message: short, never throwing. */
export function describeOptionValue(value: unknown): string {
  try {
    if (typeof value === 'string')
      return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
    if (typeof value === 'bigint') return `${value}n`;
    if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'an array' : 'an object';
    return String(value);
  } catch {
    return 'an unprintable value';
  }
}
