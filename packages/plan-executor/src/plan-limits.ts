import { limitValueProblem } from '@org/core';
import { PlanOptionsError } from './plan-options-error.js';

/**
 * Size limits a plan must respect. Each is checked before any recursive walk or scheduling, so an oversized
 * plan (10^5 steps, a 50 MB argument string, 10^5-deep nesting) is rejected in time proportional to the limit,
 * not to the input. They hold what actually runs too: a step's arguments once its references are filled in, and
 * the outputs read to follow a reference. Every value is a whole number of at least 1; anything else (`NaN`, a
 * negative number, a fraction) is refused with a `PlanOptionsError`, never read as "no limit".
 */
export interface PlanLimits {
  /** Maximum number of steps. Default 500. */
  readonly maxSteps: number;
  /**
   * Maximum UTF-8 size of one step's arguments: as written, and again once its `$ref`s are filled in (checked while
   * filling, before any text is built; a step that would grow past it fails with `limit_exceeded` and does not
   * run). Default 1 MiB.
   */
  readonly maxArgumentsBytes: number;
  /** Maximum UTF-8 size of a plan given as JSON text. Default 4 MiB. */
  readonly maxPlanBytes: number;
  /** Maximum JSON nesting depth of one step's arguments (and of a plan given as text, plus 3). Default 64. */
  readonly maxDepth: number;
  /** Maximum number of field segments after the step id in one `$ref` (`$ref:a.b.c` has 2). Default 32. */
  readonly maxReferencePathSegments: number;
  /**
   * Largest output text (UTF-8 bytes) of a step that is read as JSON to follow a `$ref` path into it
   * (`$ref:search.items.0`); the value read is kept for the step's other references. A longer output is not read:
   * such a reference is missing, with the reason. Default 8 MiB.
   */
  readonly maxReferencedOutputBytes: number;
}

/**
 * The default limits, shared with `@org/tools` where they overlap (arguments 1 MiB, depth 64).
 *
 * @example
 * parsePlan(text, { limits: { ...DEFAULT_PLAN_LIMITS, maxSteps: 50 } });
 */
export const DEFAULT_PLAN_LIMITS: PlanLimits = Object.freeze({
  maxSteps: 500,
  maxArgumentsBytes: 1024 * 1024,
  maxPlanBytes: 4 * 1024 * 1024,
  maxDepth: 64,
  maxReferencePathSegments: 32,
  maxReferencedOutputBytes: 8 * 1024 * 1024,
});

const LIMIT_KEYS = Object.keys(DEFAULT_PLAN_LIMITS) as (keyof PlanLimits)[];

/**
 * Fills unset limits with the defaults, after checking each given one with the shared rule of `@org/core`
 * (`limitValueProblem`). Throws `PlanOptionsError` naming `limits.<key>` for a value that is not a whole number of at
 * least 1, and for a key that is not a limit (a misspelt limit would otherwise be silently ignored).
 */
export function resolvePlanLimits(limits: Partial<PlanLimits> | undefined): PlanLimits {
  if (limits === undefined) return DEFAULT_PLAN_LIMITS;
  if (typeof limits !== 'object' || limits === null || Array.isArray(limits)) {
    throw new PlanOptionsError({ option: 'limits', value: limits, expected: 'an object of plan limits' });
  }
  for (const key of Object.keys(limits)) {
    if (!(LIMIT_KEYS as string[]).includes(key)) {
      throw new PlanOptionsError({
        option: `limits.${key}`,
        value: (limits as Record<string, unknown>)[key],
        problem: `is not a plan limit; the limits are ${LIMIT_KEYS.join(', ')}`,
      });
    }
  }
  for (const key of LIMIT_KEYS) {
    const value = limits[key];
    if (value === undefined) continue;
    const problem = limitValueProblem(value);
    if (problem !== undefined) throw new PlanOptionsError({ option: `limits.${key}`, value, problem });
  }
  return { ...DEFAULT_PLAN_LIMITS, ...withoutUndefined(limits) };
}

function withoutUndefined(limits: Partial<PlanLimits>): Partial<PlanLimits> {
  const defined: Partial<Record<keyof PlanLimits, number>> = {};
  for (const key of LIMIT_KEYS) if (limits[key] !== undefined) defined[key] = limits[key];
  return defined;
}
