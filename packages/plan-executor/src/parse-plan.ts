import { closestMatch, errorMessageOf } from '@org/core';
import { compileArguments, forEachReference } from './argument-template.js';
import { checkJsonText, checkJsonValue, type JsonLimitViolation } from './json-limits.js';
import type { Plan, PlanStep } from './plan.js';
import type { PlanLimits } from './plan-limits.js';
import { resolvePlanLimits } from './plan-limits.js';
import type { LimitExceededProblem, PlanProblem } from './plan-problem.js';
import { PlanValidationError } from './plan-validation-error.js';
import { readJsonObjectText } from './read-json-text.js';
import { STEP_ID_PATTERN } from './reference.js';
import { expandArgumentReferences, findEscapedReferenceMarker } from './short-reference.js';

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

/** What one step holds as far as it could be read; absent parts had a problem (or were missing). */
export interface StepParts {
  /** The id, when it is a valid step id. */
  readonly id: string | undefined;
  /** `Step 'id'`, or `Step 3` when the id is not a string: for messages. */
  readonly label: string;
  /** The id as written when it is a string (valid or not), else the step's position: for `stepId` in problems. */
  readonly name: string;
  readonly tool: string | undefined;
  readonly arguments: Record<string, unknown> | undefined;
  readonly argumentRepairs: readonly string[] | undefined;
}

/**
 * How a plan lists its steps: `list`, the array `[{id, tool, arguments}]`; `map`, the steps object
 * `{id: {tool: arguments}}`, where `$id` is a reference too and `output_steps` defaults to the steps no step uses.
 */
export type PlanForm = 'list' | 'map';

/**
 * A plan read as far as possible: every shape problem, and the parts that could be read, so validation goes on to
 * check tools, references and cycles too. `steps` is undefined when the plan as a whole could not be read (not
 * JSON, not an object, no steps, a limit passed); entries are undefined for steps that are not objects. Step
 * arguments are in the canonical form (`$ref:` references) whatever form the plan was written in.
 */
export interface PlanParts {
  readonly problems: readonly PlanProblem[];
  readonly steps: readonly (StepParts | undefined)[] | undefined;
  /** `output_steps` as written; absent when the plan left it out. */
  readonly outputSteps: readonly string[] | undefined;
  readonly form: PlanForm;
}

function parseArguments(
  value: unknown,
  stepId: string,
  path: string,
  limits: PlanLimits,
  problems: PlanProblem[],
): { value: Record<string, unknown>; repairs?: readonly string[] } | undefined {
  const subject = `The arguments of step '${stepId}'`;
  if (value === undefined) return { value: {} };
  if (typeof value === 'string') {
    const violation = checkJsonText(value, limits.maxArgumentsBytes, limits.maxDepth);
    if (violation) {
      problems.push(limitProblem(violation, limits, 'maxArgumentsBytes', path, subject, stepId));
      return undefined;
    }
    const read = readJsonObjectText(value, {
      maxBytes: limits.maxArgumentsBytes,
      maxDepth: limits.maxDepth,
      complete: true,
    });
    if (!read.ok) {
      problems.push({
        code: 'invalid_arguments_json',
        stepId,
        path,
        message: `${subject} could not be read: ${read.message}`,
      });
      return undefined;
    }
    return read.repairs.length === 0 ? { value: read.value } : { value: read.value, repairs: read.repairs };
  }
  if (!isRecord(value)) {
    problems.push({
      code: 'malformed_plan',
      stepId,
      path,
      message: `${subject} must be an object or a JSON string, not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}.`,
    });
    return undefined;
  }
  const violation = checkJsonValue(value, limits.maxArgumentsBytes, limits.maxDepth);
  if (violation) {
    problems.push(limitProblem(violation, limits, 'maxArgumentsBytes', path, subject, stepId));
    return undefined;
  }
  return { value };
}

/**
 * Checks a plan's shape and parses its argument strings: `input` is the plan object, or its JSON text. Text (the whole
 * plan, and each `arguments` string) is read by the strict reader of `@org/tools` with the same safe repairs as a
 * direct tool call. Size limits are checked first, in time independent of the input's size; every other problem is
 * collected, so the error lists all of them. Tools, references and cycles are checked by {@link validatePlan}.
 *
 * @example
 * const parsed = parsePlan('{"steps":[{"id":"w","tool":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"}]}');
 * if (parsed.ok) console.log(parsed.plan.steps[0]?.arguments); // { city: 'Paris' }
 */
export function parsePlan(input: unknown, options: ParsePlanOptions = {}): ParsePlanResult {
  const parts = readPlanParts(input, resolvePlanLimits(options.limits));
  if (parts.problems.length > 0 || parts.steps === undefined)
    return { ok: false, error: new PlanValidationError(parts.problems) };
  const steps: PlanStep[] = [];
  for (const step of parts.steps) {
    // No problem was reported, so every step is an object with a valid id, a tool and arguments.
    const planStep: Mutable<PlanStep> = { id: step!.id!, tool: step!.tool!, arguments: step!.arguments! };
    if (step!.argumentRepairs !== undefined) planStep.argumentRepairs = step!.argumentRepairs;
    steps.push(planStep);
  }
  // The steps-object form returns the steps no step uses by default: said explicitly, so the plan means the same
  // read again as a list.
  const outputSteps = parts.outputSteps ?? (parts.form === 'map' ? leafStepIds(parts.steps) : undefined);
  return {
    ok: true,
    plan: outputSteps === undefined ? { steps } : { steps, output_steps: outputSteps },
  };
}

type Mutable<T> = { -readonly [Key in keyof T]: T[Key] };

/**
 * Reads a plan as far as it can, collecting every shape problem (see {@link PlanParts}). Never throws: a caller-built
 * object that throws while being read (a getter, a Proxy) is a problem too.
 */
export function readPlanParts(input: unknown, limits: PlanLimits): PlanParts {
  try {
    return readPlanValue(input, limits);
  } catch (error) {
    return {
      problems: [
        { code: 'malformed_plan', path: '', message: `The plan could not be read: ${errorMessageOf(error)}` },
      ],
      steps: undefined,
      outputSteps: undefined,
      form: 'list',
    };
  }
}

const PLAN_SHAPE = 'A plan is {"steps": {"<id>": {"<tool>": {<arguments>}}}, "output_steps": ["<id>"]}';

function readPlanValue(input: unknown, limits: PlanLimits): PlanParts {
  const problems: PlanProblem[] = [];
  let form: PlanForm = 'list';
  const fail = (): PlanParts => ({ problems, steps: undefined, outputSteps: undefined, form });
  let value = input;
  if (typeof input === 'string') {
    const violation = checkJsonText(input, limits.maxPlanBytes, limits.maxDepth + 3);
    if (violation) {
      problems.push(limitProblem(violation, limits, 'maxPlanBytes', '', 'The plan'));
      return fail();
    }
    const read = readJsonObjectText(input, {
      maxBytes: limits.maxPlanBytes,
      maxDepth: limits.maxDepth + 3,
      complete: false,
    });
    if (!read.ok) {
      problems.push({
        code: 'malformed_plan',
        path: '',
        message: `The plan could not be read: ${read.message}`,
      });
      return fail();
    }
    value = read.value;
  }
  if (!isRecord(value)) {
    problems.push({ code: 'malformed_plan', path: '', message: `A plan must be an object. ${PLAN_SHAPE}.` });
    return fail();
  }
  const steps = own(value, 'steps');
  const isList = Array.isArray(steps);
  if (!isList && !isRecord(steps)) {
    problems.push({
      code: 'malformed_plan',
      path: 'steps',
      message: `A plan must have "steps": an object of steps by id, or an array of {"id", "tool", "arguments"}. ${PLAN_SHAPE}.`,
    });
    return fail();
  }
  form = isList ? 'list' : 'map';
  const count = isList ? steps.length : Object.keys(steps).length;
  if (count > limits.maxSteps) {
    problems.push({
      code: 'limit_exceeded',
      limit: 'maxSteps',
      maximum: limits.maxSteps,
      actual: count,
      path: 'steps',
      message: `The plan has ${count} steps; the limit 'maxSteps' is ${limits.maxSteps}. Split it into smaller plans.`,
    });
    return fail();
  }
  if (count === 0) {
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

  const parts: (StepParts | undefined)[] = [];
  if (isList) {
    for (let index = 0; index < steps.length; index++)
      parts.push(readListStep(steps[index], index, limits, problems));
  } else {
    for (const id of Object.keys(steps)) parts.push(readMapStep(id, steps[id], limits, problems));
  }
  return { problems, steps: parts, outputSteps: parsedOutputSteps, form };
}

/**
 * Reads one step of the list form (`{"id", "tool", "arguments"}` at position `index`), adding its problems to
 * `problems`; `undefined` when it is not an object.
 */
export function readListStep(
  step: unknown,
  index: number,
  limits: PlanLimits,
  problems: PlanProblem[],
): StepParts | undefined {
  const path = `steps[${index}]`;
  if (!isRecord(step)) {
    problems.push({
      code: 'malformed_plan',
      path,
      message: `Step ${index} must be an object {"id", "tool", "arguments"}.`,
    });
    return undefined;
  }
  const id = own(step, 'id');
  const tool = own(step, 'tool');
  const label = typeof id === 'string' ? `Step '${id.slice(0, 80)}'` : `Step ${index}`;
  let validId: string | undefined;
  if (typeof id !== 'string') {
    problems.push({ code: 'malformed_plan', path: `${path}.id`, message: `${label} needs a string "id".` });
  } else if (!STEP_ID_PATTERN.test(id)) {
    problems.push(invalidIdProblem(id, `${path}.id`));
  } else validId = id;
  const stepId = typeof id === 'string' ? id : undefined;
  if (typeof tool !== 'string' || tool === '') {
    problems.push({
      code: 'malformed_plan',
      path: `${path}.tool`,
      ...(stepId === undefined ? {} : { stepId }),
      message: `${label} needs a "tool" naming the tool to call.`,
    });
  }
  unknownKeyProblems(step, STEP_KEYS, path, label, problems, stepId);
  // A misspelt "arguments" ("argument", "args") is reported above; its value is still read, so that the problems
  // in it (bad JSON, references to unknown steps) are reported in the same answer.
  let argumentsKey = 'arguments';
  if (!Object.hasOwn(step, 'arguments')) {
    const misspelt = Object.keys(step).find(
      (key) => !STEP_KEYS.includes(key as never) && closestMatch(key, STEP_KEYS) === 'arguments',
    );
    if (misspelt !== undefined) argumentsKey = misspelt;
  }
  const args = parseArguments(
    own(step, argumentsKey),
    stepId ?? String(index),
    `${path}.${argumentsKey}`,
    limits,
    problems,
  );
  return {
    id: validId,
    label,
    name: stepId ?? String(index),
    tool: typeof tool === 'string' && tool !== '' ? tool : undefined,
    arguments: args?.value,
    argumentRepairs: args?.repairs,
  };
}

/** Where a step of the steps-object form is, for problems: `steps.a1`, or `steps["odd id"]`. */
export function mapStepPath(id: string): string {
  return STEP_ID_PATTERN.test(id) ? `steps.${id}` : `steps[${JSON.stringify(id.slice(0, 80))}]`;
}

/**
 * Reads one step of the steps-object form: `id` is its key, `value` is `{"<tool>": <arguments>}` (or
 * `{"tool", "arguments"}`). Its short references (`$id.field`) are rewritten to the canonical `$ref:` form.
 */
export function readMapStep(
  id: string,
  value: unknown,
  limits: PlanLimits,
  problems: PlanProblem[],
): StepParts {
  const path = mapStepPath(id);
  const label = `Step '${id.slice(0, 80)}'`;
  const validId = STEP_ID_PATTERN.test(id) ? id : undefined;
  if (validId === undefined) problems.push(invalidIdProblem(id, path));
  let tool: string | undefined;
  let written: unknown;
  let argumentsPath = path;
  if (isRecord(value)) {
    const keys = Object.keys(value);
    const toolField = own(value, 'tool');
    if (typeof toolField === 'string' && keys.every((key) => key === 'tool' || key === 'arguments')) {
      tool = toolField;
      written = own(value, 'arguments');
      argumentsPath = `${path}.arguments`;
    } else if (keys.length === 1) {
      tool = keys[0]!;
      written = own(value, tool);
      argumentsPath = `${path}.${tool}`;
    } else {
      problems.push({
        code: 'malformed_plan',
        stepId: id,
        path,
        message:
          `${label} must be {"<tool>": {<arguments>}}: one tool name and its arguments` +
          (keys.length === 0
            ? ', and it is empty.'
            : `, not ${keys.length} fields (${keys.slice(0, 5).join(', ')}${keys.length > 5 ? ', ...' : ''}).`),
      });
    }
  } else {
    problems.push({
      code: 'malformed_plan',
      stepId: id,
      path,
      message: `${label} must be {"<tool>": {<arguments>}}, not ${describeValue(value)}.`,
    });
  }
  if (tool === '') {
    problems.push({ code: 'malformed_plan', stepId: id, path, message: `${label} names no tool.` });
    tool = undefined;
  }
  const args = tool === undefined ? undefined : parseArguments(written, id, argumentsPath, limits, problems);
  const marker = args === undefined ? undefined : findEscapedReferenceMarker(args.value);
  if (marker !== undefined) {
    problems.push({
      code: 'invalid_reference',
      stepId: id,
      path: argumentsPath,
      reference: marker,
      message:
        `${label} writes ${JSON.stringify(marker)}: "$$" is a literal "$", but the text "$ref:" always starts a ` +
        'reference, so it cannot be written as text. Reword it (for example "ref: ..."), or write a reference as $id.',
    });
  }
  return {
    id: validId,
    label,
    name: id,
    tool,
    arguments: args === undefined ? undefined : expandArgumentReferences(args.value),
    argumentRepairs: args?.repairs,
  };
}

/** The ids of the steps no other step refers to, in plan order: what the steps-object form returns by default. */
export function leafStepIds(steps: readonly (StepParts | undefined)[]): string[] {
  const used = new Set<string>();
  for (const step of steps) {
    if (step?.arguments === undefined) continue;
    const template = compileArguments(step.arguments).template;
    if (template === undefined) continue;
    for (const site of template.sites)
      forEachReference(site, (reference) => {
        if (reference.stepId !== step.id) used.add(reference.stepId);
      });
  }
  return steps.flatMap((step) => (step?.id === undefined || used.has(step.id) ? [] : [step.id]));
}

function invalidIdProblem(id: string, path: string): PlanProblem {
  return {
    code: 'invalid_step_id',
    stepId: id,
    path,
    message: `Step id '${id.slice(0, 80)}' must be 1 to 64 letters, digits, '_' or '-'.`,
  };
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? 'a string' : `a ${typeof value}`;
}
