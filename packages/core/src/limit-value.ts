import { describeOptionValue } from './max-timer-delay.js';

/** What {@link limitValueProblem} accepts. */
export interface LimitValueRule {
  /** The smallest value accepted. Default 1 (a limit of 0 would refuse everything). */
  readonly minimum?: number;
  /** `Infinity` means "no limit". Default `false`: a limit is switched off by leaving it at a large number. */
  readonly infinity?: boolean;
  /** Only whole numbers (counts, bytes, depths). Default `true`. */
  readonly integer?: boolean;
}

/**
 * The one rule for a limit option (a size, a depth, a count, a budget): why `value` cannot be used, or `undefined`
 * when it can. `NaN`, negative numbers, fractions where a count is meant and non-numbers are refused: every check
 * of the form `actual > limit` is false for `NaN`, so such a value would silently switch the limit off. Each package
 * throws its own typed options error with this text, naming the option.
 *
 * @example
 * const problem = limitValueProblem(limits.maxSteps);
 * if (problem !== undefined) throw new PlanOptionsError({ option: 'limits.maxSteps', ... });
 */
export function limitValueProblem(value: unknown, rule: LimitValueRule = {}): string | undefined {
  const minimum = rule.minimum ?? 1;
  if (value === Number.POSITIVE_INFINITY && rule.infinity === true) return undefined;
  if (
    typeof value === 'number' &&
    value >= minimum &&
    (rule.integer === false ? Number.isFinite(value) : Number.isSafeInteger(value))
  ) {
    return undefined;
  }
  const kind = rule.integer === false ? 'a finite number' : 'a whole number';
  const infinity = rule.infinity === true ? ', or Infinity for no limit' : '';
  return `must be ${kind} of at least ${minimum}${infinity}; got ${describeOptionValue(value)}`;
}
