/**
 * Size limits a plan must respect. Each is checked before any recursive walk or scheduling, so an oversized
 * plan (10^5 steps, a 50 MB argument string, 10^5-deep nesting) is rejected in time proportional to the limit,
 * not to the input.
 */
export interface PlanLimits {
  /** Maximum number of steps. Default 500. */
  readonly maxSteps: number;
  /** Maximum UTF-8 size of one step's arguments. Default 1 MiB. */
  readonly maxArgumentsBytes: number;
  /** Maximum UTF-8 size of a plan given as JSON text. Default 4 MiB. */
  readonly maxPlanBytes: number;
  /** Maximum JSON nesting depth of one step's arguments (and of a plan given as text, plus 3). Default 64. */
  readonly maxDepth: number;
  /** Maximum number of field segments after the step id in one `$ref` (`$ref:a.b.c` has 2). Default 32. */
  readonly maxReferencePathSegments: number;
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
});

/** Fills unset limits with the defaults. */
export function resolvePlanLimits(limits: Partial<PlanLimits> | undefined): PlanLimits {
  return limits === undefined ? DEFAULT_PLAN_LIMITS : { ...DEFAULT_PLAN_LIMITS, ...limits };
}
