import { LimitExceededError } from '@org/core';
import { safeParse } from 'zod/v4/core';
import { type CompiledTool, compiledToolOf } from './compiled-tool.js';
import { InvalidToolArgumentsError, type ToolArgumentIssue } from './errors.js';
import { type ArgumentLimits, assertValueWithinLimits, countValues, resolveLimits } from './limits.js';

const DEFAULT_LIMITS = resolveLimits(undefined);
/** Schema visits allowed per value of the arguments (unions and coercion retries try a value more than once). */
const WALK_WORK_PER_VALUE = 64;
const WALK_WORK_BASE = 10_000;
const SHARED_BUDGET: { maxDepth: number; visits: number } = { maxDepth: 0, visits: 0 };
/** The coercions of a call that needed none: one frozen list shared by every such call (the hot path). */
const NO_COERCIONS: readonly Coercion[] = Object.freeze([]);

import { isParsedArguments } from './parse-tool-arguments.js';
import { type Coercion, childPath, describeValue, INVALID, type WalkContext, walk } from './schema-walker.js';
import type { Tool } from './tool.js';

/** Options of `validateToolArguments`. */
export interface ValidateToolArgumentsOptions {
  /** Apply the round-trip-exact coercions (`"42"` → 42, `"yes"` → true, ...). Default true. */
  readonly coerce?: boolean;
  readonly limits?: ArgumentLimits;
  /** Named in the error, so a planner can answer the right call. */
  readonly toolCallId?: string;
}

/** The outcome of `validateToolArguments`. */
export type ValidateToolArgumentsResult<Args = Record<string, unknown>> =
  | { readonly ok: true; readonly value: Args; readonly coercions: readonly Coercion[] }
  | { readonly ok: false; readonly error: InvalidToolArgumentsError | LimitExceededError };

interface ZodIssueLike {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly keys?: readonly string[];
  readonly values?: readonly unknown[];
}

function zodPath(path: readonly PropertyKey[]): string {
  let result = '';
  for (const segment of path) {
    if (typeof segment === 'number') result += `[${segment}]`;
    else result = childPath(result, String(segment));
  }
  return result;
}

/** zod issue codes for checks JSON Schema does not carry (so the walk cannot have reported them). */
const BEYOND_JSON_SCHEMA: ReadonlySet<string> = new Set(['custom', 'invalid_format', 'not_multiple_of']);

function fromZodIssue(issue: ZodIssueLike): ToolArgumentIssue[] {
  const path = zodPath(issue.path);
  if (issue.code === 'unrecognized_keys' && issue.keys !== undefined) {
    return issue.keys.map((key) => ({
      path: childPath(path, key),
      problem: 'is not a parameter of this tool.',
    }));
  }
  const message = issue.message.replace(/^Invalid input: /, '');
  return [
    {
      path,
      problem: `${message.charAt(0).toLowerCase()}${message.slice(1)}${/[.!?]$/.test(message) ? '' : '.'}`,
    },
  ];
}

function overlapsExisting(path: string, existing: readonly ToolArgumentIssue[]): boolean {
  return existing.some(
    (issue) =>
      issue.path === path ||
      path.startsWith(`${issue.path}.`) ||
      path.startsWith(`${issue.path}[`) ||
      issue.path.startsWith(`${path}.`) ||
      issue.path.startsWith(`${path}[`) ||
      issue.path === '' ||
      path === '',
  );
}

function failure(
  tool: Tool,
  issues: readonly ToolArgumentIssue[],
  toolCallId: string | undefined,
): ValidateToolArgumentsResult<never> {
  return {
    ok: false,
    error: new InvalidToolArgumentsError({
      toolName: tool.name,
      issues,
      ...(toolCallId === undefined ? {} : { toolCallId }),
    }),
  };
}

function safeZod(
  compiled: CompiledTool,
  value: unknown,
):
  | { success: true; data: unknown }
  | { success: false; issues: ToolArgumentIssue[]; beyondJsonSchema: ToolArgumentIssue[] } {
  try {
    const result = safeParse(compiled.zod!, value);
    if (result.success) return { success: true, data: result.data };
    const zodIssues = result.error.issues as readonly ZodIssueLike[];
    return {
      success: false,
      issues: zodIssues.flatMap(fromZodIssue),
      beyondJsonSchema: zodIssues.filter((issue) => BEYOND_JSON_SCHEMA.has(issue.code)).flatMap(fromZodIssue),
    };
  } catch (error) {
    // A refinement of the user's schema threw: report it as a problem rather than crash the caller.
    const message = error instanceof Error ? error.message : String(error);
    const issues = [{ path: '', problem: `the arguments could not be checked: ${message}` }];
    return { success: false, issues, beyondJsonSchema: issues };
  }
}

/**
 * Checks a model's arguments against a tool's input schema, after forgiving the honest mistakes that convert back
 * exactly: `"42"` → 42, `"3.5"` → 3.5, `"true"`/`"yes"`/`"on"`/`"1"` → true (and the false forms), a JSON string
 * holding an array or object, one value where an array is expected, `null` for an optional field (OpenAI strict
 * mode) → absent. Every coercion is recorded. Every failing field is reported at once, with its path: unknown
 * parameters with a did-you-mean, missing required ones, enum misses with the allowed values. Keys such as
 * `__proto__` are data, never prototypes. Valid input takes a fast path (one zod `safeParse`). Never throws.
 *
 * @example
 * const result = validateToolArguments(getWeather, { city: 'Paris', days: '3' });
 * // { ok: true, value: { city: 'Paris', days: 3 }, coercions: [{ path: 'days', kind: 'string-to-integer', ... }] }
 */
export function validateToolArguments<Args>(
  tool: Tool<Args>,
  value: unknown,
  options?: ValidateToolArgumentsOptions,
): ValidateToolArgumentsResult<Args> {
  const compiled = compiledToolOf(tool as unknown as Tool);
  const toolCallId = options?.toolCallId;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return failure(
      tool as unknown as Tool,
      [
        {
          path: '',
          problem: `the arguments must be a JSON object with named parameters; got ${describeValue(value)}.`,
        },
      ],
      toolCallId,
    );
  }
  const limits = options?.limits === undefined ? DEFAULT_LIMITS : resolveLimits(options.limits);
  let setsHidden = false;
  if (compiled.hidden.size > 0)
    for (const key of compiled.hidden) if (Object.hasOwn(value, key)) setsHidden = true;

  // Fast path: one zod parse, then one compiled scan that reports unknown keys (zod strips them silently) and checks
  // the depth limit. zod itself only descends as far as a non-recursive schema goes, so a hostile depth cannot hurt
  // it; recursive schemas (no compiled check) get the limit check first.
  let accepted: { readonly data: unknown } | undefined;
  if (
    compiled.zod !== undefined &&
    !setsHidden &&
    (compiled.keyCheck !== undefined || isParsedArguments(value))
  ) {
    try {
      const parsed = safeParse(compiled.zod, value);
      if (parsed.success) {
        // The check is synchronous and never re-entered, so one budget object serves every call.
        SHARED_BUDGET.maxDepth = limits.maxDepth;
        SHARED_BUDGET.visits = limits.maxBytes;
        if (compiled.keyCheck?.(value, 1, SHARED_BUDGET) === true)
          return { ok: true, value: parsed.data as Args, coercions: NO_COERCIONS };
        accepted = parsed;
      }
    } catch {
      // A refinement threw; the slow path reports it as a problem.
    }
  }

  if (!isParsedArguments(value)) {
    try {
      assertValueWithinLimits(value, limits);
    } catch (error) {
      if (LimitExceededError.isInstance(error)) return { ok: false, error };
      throw error;
    }
  }

  const coerce = options?.coerce ?? true;
  // Work proportional to the value: a recursive schema with unions cannot make a small value cost exponential time.
  const workBudget = WALK_WORK_PER_VALUE * countValues(value, limits.maxBytes) + WALK_WORK_BASE;
  const context: WalkContext = {
    root: compiled.inputSchema,
    coerce,
    limits,
    hidden: compiled.hidden,
    implicitlyClosed: compiled.zod === undefined ? 'top-level' : 'everywhere',
    budget: { remaining: workBudget, maximum: workBudget },
    issues: [],
    coercions: [],
  };
  let walked: unknown;
  try {
    walked = walk(compiled.inputSchema, value, '', context);
  } catch (error) {
    if (LimitExceededError.isInstance(error)) return { ok: false, error };
    throw error;
  }
  if (compiled.zod === undefined) {
    if (walked === INVALID || context.issues.length > 0)
      return failure(tool as unknown as Tool, context.issues, toolCallId);
    return { ok: true, value: walked as Args, coercions: context.coercions };
  }
  if (
    accepted !== undefined &&
    walked !== INVALID &&
    context.issues.length === 0 &&
    context.coercions.length === 0
  ) {
    return { ok: true, value: accepted.data as Args, coercions: [] };
  }
  const parsed = safeZod(compiled, walked === INVALID ? value : walked);
  if (parsed.success && context.issues.length === 0) {
    return { ok: true, value: parsed.data as Args, coercions: context.coercions };
  }
  const issues = [...context.issues];
  if (!parsed.success) {
    // After a failed walk zod saw the raw value, so its type and enum complaints repeat the walk's or concern
    // values the walk coerced; only what JSON Schema cannot express (refinements, formats) is new.
    const candidates = walked === INVALID ? parsed.beyondJsonSchema : parsed.issues;
    for (const issue of candidates) if (!overlapsExisting(issue.path, issues)) issues.push(issue);
    if (issues.length === 0) issues.push(...parsed.issues);
  }
  return failure(tool as unknown as Tool, issues, toolCallId);
}
