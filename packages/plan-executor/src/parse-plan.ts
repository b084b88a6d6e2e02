import { closestMatch, errorMessageOf } from '@org/core';
import { checkJsonText, checkJsonValue, type JsonLimitViolation } from './json-limits.js';
import type { Plan, PlanStep } from './plan.js';
import type { PlanLimits } from './plan-limits.js';
import { resolvePlanLimits } from './plan-limits.js';
import type { LimitExceededProblem, PlanProblem } from './plan-problem.js';
import { PlanValidationError } from './plan-validation-error.js';
import { STEP_ID_PATTERN } from './reference.js';

/** Options of {@link parsePlan}. */
export interface ParsePlanOptions {
  /** Size limits; unset ones take {@link DEFAULT_PLAN_LIMITS}. */
  readonly limits?: Partial<PlanLimits>;
}

/** The outcome of {@link parsePlan}: a plan, or every problem found. */
export type ParsePlanResult =
  | { readonly ok: true; readonly plan: Plan }
  | { readonly ok: false; readonly error: PlanValidationError };

const PLAN_KEYS = ['steps', 'output_steps'] as const;
const STEP_KEYS = ['id', 'tool', 'arguments'] as const;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const own = (record: Record<string, unknown>, key: string): unknown =>
  Object.hasOwn(record, key) ? record[key] : undefined;

function limitProblem(
  violation: JsonLimitViolation,
  limits: PlanLimits,
  bytesLimit: 'maxArgumentsBytes' | 'maxPlanBytes',
  path: string,
  subject: string,
  stepId?: string,
): LimitExceededProblem {
  const limit = violation.limit === 'bytes' ? bytesLimit : 'maxDepth';
  const maximum = violation.limit === 'bytes' ? limits[bytesLimit] : limits.maxDepth;
  const what =
    violation.limit === 'bytes' ? `is ${violation.actual} bytes` : `is nested deeper than ${maximum}`;
  return {
    code: 'limit_exceeded',
    limit,
    maximum,
    actual: violation.actual,
    path,
    ...(stepId === undefined ? {} : { stepId }),
    message: `${subject} ${what}; the limit '${limit}' is ${maximum}.`,
  };
}

function unknownKeyProblems(
  record: Record<string, unknown>,
  known: readonly string[],
  path: string,
  subject: string,
  problems: PlanProblem[],
  stepId?: string,
): void {
  for (const key of Object.keys(record)) {
    if (known.includes(key)) continue;
    const suggestion = closestMatch(key, known);
    problems.push({
      code: 'malformed_plan',
      path: path === '' ? key : `${path}.${key}`,
      ...(stepId === undefined ? {} : { stepId }),
      message:
        `${subject} has an unknown field '${key}'${suggestion ? `; did you mean '${suggestion}'?` : '.'} ` +
        `Allowed fields: ${known.join(', ')}.`,
    });
  }
}

function parseArguments(
  value: unknown,
  stepId: string,
  path: string,
  limits: PlanLimits,
  problems: PlanProblem[],
): Record<string, unknown> | undefined {
  const subject = `The arguments of step '${stepId}'`;
  if (value === undefined) return {};
  let parsed: unknown = value;
  if (typeof value === 'string') {
    const violation = checkJsonText(value, limits.maxArgumentsBytes, limits.maxDepth);
    if (violation) {
      problems.push(limitProblem(violation, limits, 'maxArgumentsBytes', path, subject, stepId));
      return undefined;
    }
    try {
      parsed = value.trim() === '' ? {} : JSON.parse(value);
    } catch (error) {
      problems.push({
        code: 'invalid_arguments_json',
        stepId,
        path,
        message: `${subject} are not valid JSON (${(error as Error).message}); write them as a JSON object.`,
      });
      return undefined;
    }
    if (!isRecord(parsed)) {
      problems.push({
        code: 'invalid_arguments_json',
        stepId,
        path,
        message: `${subject} must be a JSON object, not ${parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : typeof parsed}.`,
      });
      return undefined;
    }
    return parsed;
  }
  if (!isRecord(parsed)) {
    problems.push({
      code: 'malformed_plan',
      stepId,
      path,
      message: `${subject} must be an object or a JSON string, not ${parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : typeof parsed}.`,
    });
    return undefined;
  }
  const violation = checkJsonValue(parsed, limits.maxArgumentsBytes, limits.maxDepth);
  if (violation) {
    problems.push(limitProblem(violation, limits, 'maxArgumentsBytes', path, subject, stepId));
    return undefined;
  }
  return parsed;
}

/**
 * Checks a plan's shape and parses its argument strings: `input` is the plan object, or its JSON text.
 * Size limits are checked first, in time independent of the input's size; every other problem is collected, so
 * the error lists all of them. Tools, references and cycles are checked by {@link validatePlan}.
 *
 * @example
 * const parsed = parsePlan('{"steps":[{"id":"w","tool":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"}]}');
 * if (parsed.ok) console.log(parsed.plan.steps[0]?.arguments); // { city: 'Paris' }
 */
export function parsePlan(input: unknown, options: ParsePlanOptions = {}): ParsePlanResult {
  try {
    return parsePlanValue(input, resolvePlanLimits(options.limits));
  } catch (error) {
    // Only a caller-built object can throw while being read (a getter, a Proxy); JSON never does.
    return {
      ok: false,
      error: new PlanValidationError([
        { code: 'malformed_plan', path: '', message: `The plan could not be read: ${errorMessageOf(error)}` },
      ]),
    };
  }
}

function parsePlanValue(input: unknown, limits: PlanLimits): ParsePlanResult {
  const problems: PlanProblem[] = [];
  const fail = (): ParsePlanResult => ({ ok: false, error: new PlanValidationError(problems) });
  let value = input;
  if (typeof input === 'string') {
    const violation = checkJsonText(input, limits.maxPlanBytes, limits.maxDepth + 3);
    if (violation) {
      problems.push(limitProblem(violation, limits, 'maxPlanBytes', '', 'The plan'));
      return fail();
    }
    try {
      value = JSON.parse(input);
    } catch (error) {
      problems.push({
        code: 'malformed_plan',
        path: '',
        message: `The plan is not valid JSON (${(error as Error).message}).`,
      });
      return fail();
    }
  }
  if (!isRecord(value)) {
    problems.push({
      code: 'malformed_plan',
      path: '',
      message: 'A plan must be an object: {"steps": [{"id", "tool", "arguments"}], "output_steps": [...]}.',
    });
    return fail();
  }
  const steps = own(value, 'steps');
  if (!Array.isArray(steps)) {
    problems.push({
      code: 'malformed_plan',
      path: 'steps',
      message: 'A plan must have a "steps" array of {"id", "tool", "arguments"}.',
    });
    return fail();
  }
  if (steps.length > limits.maxSteps) {
    problems.push({
      code: 'limit_exceeded',
      limit: 'maxSteps',
      maximum: limits.maxSteps,
      actual: steps.length,
      path: 'steps',
      message: `The plan has ${steps.length} steps; the limit 'maxSteps' is ${limits.maxSteps}. Split it into smaller plans.`,
    });
    return fail();
  }
  if (steps.length === 0) {
    problems.push({ code: 'malformed_plan', path: 'steps', message: 'A plan needs at least one step.' });
  }
  unknownKeyProblems(value, PLAN_KEYS, '', 'The plan', problems);

  const outputSteps = own(value, 'output_steps');
  let parsedOutputSteps: string[] | undefined;
  if (outputSteps !== undefined) {
    if (!Array.isArray(outputSteps) || outputSteps.some((item) => typeof item !== 'string')) {
      problems.push({
        code: 'malformed_plan',
        path: 'output_steps',
        message: '"output_steps" must be an array of step ids.',
      });
    } else if (outputSteps.length > limits.maxSteps) {
      problems.push({
        code: 'limit_exceeded',
        limit: 'maxSteps',
        maximum: limits.maxSteps,
        actual: outputSteps.length,
        path: 'output_steps',
        message: `"output_steps" lists ${outputSteps.length} ids; the limit 'maxSteps' is ${limits.maxSteps}.`,
      });
    } else {
      parsedOutputSteps = outputSteps as string[];
    }
  }

  const parsedSteps: PlanStep[] = [];
  for (let index = 0; index < steps.length; index++) {
    const step: unknown = steps[index];
    const path = `steps[${index}]`;
    if (!isRecord(step)) {
      problems.push({
        code: 'malformed_plan',
        path,
        message: `Step ${index} must be an object {"id", "tool", "arguments"}.`,
      });
      continue;
    }
    const id = own(step, 'id');
    const tool = own(step, 'tool');
    const label = typeof id === 'string' ? `Step '${id}'` : `Step ${index}`;
    const stepId = typeof id === 'string' ? id : undefined;
    let valid = true;
    if (typeof id !== 'string') {
      problems.push({ code: 'malformed_plan', path: `${path}.id`, message: `${label} needs a string "id".` });
      valid = false;
    } else if (!STEP_ID_PATTERN.test(id)) {
      problems.push({
        code: 'invalid_step_id',
        stepId: id,
        path: `${path}.id`,
        message: `Step id '${id.slice(0, 80)}' must be 1 to 64 letters, digits, '_' or '-'.`,
      });
      valid = false;
    }
    if (typeof tool !== 'string' || tool === '') {
      problems.push({
        code: 'malformed_plan',
        path: `${path}.tool`,
        ...(stepId === undefined ? {} : { stepId }),
        message: `${label} needs a "tool" naming the tool to call.`,
      });
      valid = false;
    }
    unknownKeyProblems(step, STEP_KEYS, path, label, problems, stepId);
    const args = parseArguments(
      own(step, 'arguments'),
      stepId ?? String(index),
      `${path}.arguments`,
      limits,
      problems,
    );
    if (valid && args !== undefined && typeof id === 'string' && typeof tool === 'string') {
      parsedSteps.push({ id, tool, arguments: args });
    }
  }
  if (problems.length > 0) return fail();
  return {
    ok: true,
    plan:
      parsedOutputSteps === undefined
        ? { steps: parsedSteps }
        : { steps: parsedSteps, output_steps: parsedOutputSteps },
  };
}
