import { closestMatch, errorMessageOf } from '@org/core';
import type { Tool, ToolRegistry } from '@org/tools';
import { type ArgumentTemplate, compileArguments, forEachReference } from './argument-template.js';
import { checkReference, resolveStepTool, type StepScope, stepPath } from './check-step.js';
import { orderSteps } from './find-cycles.js';
import { type ParsePlanOptions, readPlanParts } from './parse-plan.js';
import type { Plan, PlanStep } from './plan.js';
import { type PlanLimits, resolvePlanLimits } from './plan-limits.js';
import type { PlanProblem } from './plan-problem.js';
import { PlanValidationError } from './plan-validation-error.js';

/** Options of {@link validatePlan}. */
export interface ValidatePlanOptions extends ParsePlanOptions {
  /** The tools steps may call. */
  readonly tools: ToolRegistry;
}

/** A plan that passed validation against a set of tools, ready for {@link executePlan}. */
export interface ValidatedPlan {
  readonly plan: Plan;
  /**
   * The steps whose results go back to the model: `output_steps`; omitted, the steps no step uses (object form) or
   * every step (list form).
   */
  readonly outputStepIds: readonly string[];
  /** Steps in an order where each comes after its dependencies. */
  readonly executionOrder: readonly string[];
}

/** The outcome of {@link validatePlan}. */
export type ValidatePlanResult =
  | { readonly ok: true; readonly plan: ValidatedPlan }
  | { readonly ok: false; readonly error: PlanValidationError };

/** What the scheduler needs, computed once per validation. Module-private: reached through a WeakMap. */
export interface PlanGraph {
  readonly tools: ToolRegistry;
  readonly steps: readonly PlanStep[];
  readonly stepTools: readonly Tool[];
  readonly indexOf: ReadonlyMap<string, number>;
  readonly dependencyStart: Int32Array;
  readonly dependencyList: Int32Array;
  readonly dependentStart: Int32Array;
  readonly dependentList: Int32Array;
  readonly order: Int32Array;
  readonly templates: readonly (ArgumentTemplate | undefined)[];
  readonly outputIndexes: Int32Array;
  /** The ids at `outputIndexes`, as `ValidatedPlan.outputStepIds` lists them. */
  readonly outputStepIds: readonly string[];
}

const graphs = new WeakMap<ValidatedPlan, PlanGraph>();

/** Distinct names a validation searches a did-you-mean for; later unknown names get none. */
const MAX_SEARCHES = 64;

/** The graph of a plan validated by this copy of the package, if it is one. */
export function graphOf(plan: unknown): PlanGraph | undefined {
  return typeof plan === 'object' && plan !== null ? graphs.get(plan as ValidatedPlan) : undefined;
}

/**
 * Parses (when needed) and validates a plan against the tools it calls, reporting every problem at once:
 * malformed steps, duplicate ids, unknown tools (with a did-you-mean), steps calling `execute_tool_plan`,
 * references to unknown steps, self-references, reserved path names (`__proto__`, `constructor`, `toString`),
 * fields an output schema lacks (with a did-you-mean), cycles (named), and size limits. Limits are checked before
 * anything is walked.
 *
 * @example
 * const checked = validatePlan(
 *   { steps: [{ id: 'w', tool: 'get_weather', arguments: { city: 'Paris' } },
 *             { id: 'm', tool: 'send_message', arguments: { text: 'It is $ref:w.temperature C' } }] },
 *   { tools },
 * );
 * if (!checked.ok) console.log(checked.error.message);
 */
export function validatePlan(input: unknown, options: ValidatePlanOptions): ValidatePlanResult {
  // Outside the try: a limit option that is not a whole number is the caller's error (`PlanOptionsError`), thrown,
  // never a problem of the plan.
  const limits = resolvePlanLimits(options.limits);
  try {
    return validatePlanValue(input, options, limits);
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

function validatePlanValue(
  input: unknown,
  options: ValidatePlanOptions,
  limits: PlanLimits,
): ValidatePlanResult {
  const existing = graphOf(input);
  if (existing !== undefined && existing.tools === options.tools)
    return { ok: true, plan: input as ValidatedPlan };
  const source = existing !== undefined ? (input as ValidatedPlan).plan : input;
  const parts = readPlanParts(source, limits);
  if (parts.steps === undefined) return { ok: false, error: new PlanValidationError(parts.problems) };
  const tools = options.tools;
  // Shape problems do not stop validation: tools, references and cycles are checked on whatever could be read,
  // so one answer lists every problem.
  const problems: PlanProblem[] = [...parts.problems];
  const steps = parts.steps;
  const count = steps.length;
  // Did-you-means over model-chosen names: each distinct name searched once, and at most MAX_SEARCHES searches per
  // plan, so a plan naming 10^5 unknown steps costs linear time, not 10^5 searches over 500 ids.
  const suggestions = new Map<string, string | undefined>();
  const suggest = (kind: string, name: string, candidates: () => Iterable<string>): string | undefined => {
    const key = `${kind}:${name}`;
    if (suggestions.has(key)) return suggestions.get(key);
    const found = suggestions.size < MAX_SEARCHES ? closestMatch(name, candidates()) : undefined;
    suggestions.set(key, found);
    return found;
  };

  const indexOf = new Map<string, number>();
  const duplicates = new Map<string, number[]>();
  for (let index = 0; index < count; index++) {
    const id = steps[index]?.id;
    if (id === undefined) continue;
    const first = indexOf.get(id);
    if (first === undefined) indexOf.set(id, index);
    else {
      const list = duplicates.get(id) ?? [first];
      list.push(index);
      duplicates.set(id, list);
    }
  }
  for (const [id, indexes] of duplicates) {
    problems.push({
      code: 'duplicate_step_id',
      stepId: id,
      indexes,
      path: `steps[${indexes[1]}].id`,
      message: `Step id '${id}' is used by ${indexes.length} steps (positions ${indexes.join(', ')}); ids must be unique.`,
    });
  }

  // Steps name tools as the model was shown them: the provider name (`orders_get`) or the registered one
  // (`orders.get`), both through the registry's one mapping. Messages use the provider names.
  let toolNames: string[] | undefined;
  const stepTools: Tool[] = [];
  const scope: StepScope = {
    tools,
    limits,
    form: parts.form,
    problems,
    indexOf: (stepId) => indexOf.get(stepId),
    stepToolName: (index) => steps[index]?.tool,
    toolAt: (index) => stepTools[index],
    suggest,
    toolNames: () => {
      toolNames ??= modelToolNames(tools);
      return toolNames;
    },
    stepIds: () => indexOf.keys(),
  };
  for (let index = 0; index < count; index++) {
    const step = steps[index];
    if (step === undefined) continue;
    const tool = resolveStepTool(scope, index, step);
    if (tool !== undefined) stepTools[index] = tool;
  }

  // Dependencies in CSR form: each step's distinct referenced steps, sorted. `seenBy` dedupes without a Set.
  const dependencyStart = new Int32Array(count + 1);
  const dependencyItems: number[] = [];
  const seenBy = new Int32Array(count).fill(-1);
  const templates: (ArgumentTemplate | undefined)[] = new Array(count);
  for (let index = 0; index < count; index++) {
    const step = steps[index];
    dependencyStart[index] = dependencyItems.length;
    if (step?.arguments === undefined) continue;
    const compiled = compileArguments(step.arguments);
    templates[index] = compiled.template;
    for (const { malformed, pathText } of compiled.malformed) {
      problems.push({
        code: 'invalid_reference',
        stepId: step.name,
        reference: malformed.text,
        path: `${stepPath(parts.form, index, step)}.arguments.${pathText}`,
        message: `${step.label} has '$ref:' without a step id at arguments.${pathText}; write "$ref:<step id>".`,
      });
    }
    if (compiled.template === undefined) continue;
    const first = dependencyItems.length;
    for (const site of compiled.template.sites) {
      forEachReference(site, (reference) => {
        const target = checkReference(scope, index, step, reference, site);
        if (target === undefined) return;
        reference.stepIndex = target;
        if (seenBy[target] !== index) {
          seenBy[target] = index;
          dependencyItems.push(target);
        }
      });
    }
    // Insertion sort: a step has a handful of dependencies, and Array#sort with a comparator costs more.
    for (let position = first + 1; position < dependencyItems.length; position++) {
      const item = dependencyItems[position]!;
      let slot = position;
      while (slot > first && dependencyItems[slot - 1]! > item) {
        dependencyItems[slot] = dependencyItems[slot - 1]!;
        slot--;
      }
      dependencyItems[slot] = item;
    }
  }
  dependencyStart[count] = dependencyItems.length;
  const dependencyList = Int32Array.from(dependencyItems);
  const dependentStart = new Int32Array(count + 1);
  for (const dependency of dependencyList) dependentStart[dependency + 1]!++;
  for (let index = 0; index < count; index++) dependentStart[index + 1]! += dependentStart[index]!;
  const dependentList = new Int32Array(dependencyList.length);
  const fill = dependentStart.slice(0, count);
  for (let index = 0; index < count; index++) {
    for (let edge = dependencyStart[index]!; edge < dependencyStart[index + 1]!; edge++) {
      dependentList[fill[dependencyList[edge]!]!++] = index;
    }
  }
  const { order, cycles } = orderSteps(count, dependencyStart, dependencyList, dependentStart, dependentList);
  for (const cycle of cycles) {
    // Only steps with valid ids can be referenced, so every step in a cycle has one.
    const names = cycle.map((index) => steps[index]!.name);
    problems.push({
      code: 'cycle',
      cycle: names,
      path: stepPath(parts.form, cycle[0]!, steps[cycle[0]!]!),
      stepId: names[0]!,
      message: `Steps ${names.join(' → ')} form a cycle (each needs the output of the next); no order can run them.`,
    });
  }

  // Omitted, `output_steps` is every step in the list form, and the steps no step uses in the object form.
  const outputIds =
    parts.outputSteps ??
    steps.flatMap((step, index) =>
      step?.id === undefined || (parts.form === 'map' && dependentStart[index + 1]! > dependentStart[index]!)
        ? []
        : [step.id],
    );
  const outputIndexes = new Int32Array(outputIds.length);
  outputIds.forEach((id, position) => {
    const index = indexOf.get(id);
    if (index === undefined) {
      const suggestion = suggest('step', id, () => indexOf.keys());
      problems.push({
        code: 'unknown_step',
        reference: id,
        missingStepId: id,
        path: `output_steps[${position}]`,
        ...(suggestion === undefined ? {} : { suggestion }),
        message: `output_steps names unknown step '${id.slice(0, 80)}'${suggestion ? `; did you mean '${suggestion}'?` : '.'}`,
      });
    } else outputIndexes[position] = index;
  });

  if (problems.length > 0) return { ok: false, error: new PlanValidationError(problems) };
  // No problem: every step is an object with a valid id, a known tool and readable arguments.
  const planSteps: PlanStep[] = steps.map((step) => {
    const planStep: { -readonly [Key in keyof PlanStep]: PlanStep[Key] } = {
      id: step!.id!,
      tool: step!.tool!,
      arguments: step!.arguments!,
    };
    if (step!.argumentRepairs !== undefined) planStep.argumentRepairs = step!.argumentRepairs;
    return planStep;
  });
  // The object form's default is said explicitly, so the plan means the same read again as a list.
  const plan: Plan =
    parts.outputSteps === undefined && parts.form === 'list'
      ? { steps: planSteps }
      : { steps: planSteps, output_steps: Object.freeze([...outputIds]) };
  const outputStepIds = Object.freeze([...outputIds]);
  const validated: ValidatedPlan = Object.freeze({
    plan,
    outputStepIds,
    executionOrder: Object.freeze(Array.from(order, (index) => planSteps[index]!.id)),
  });
  graphs.set(validated, {
    tools,
    steps: planSteps,
    stepTools,
    indexOf,
    dependencyStart,
    dependencyList,
    dependentStart,
    dependentList,
    order,
    templates,
    outputIndexes,
    outputStepIds,
  });
  return { ok: true, plan: validated };
}

/** The tool names a model is shown: provider names (`orders_get` for `orders.get`). */
export function modelToolNames(tools: ToolRegistry): string[] {
  return tools.names().map((name) => tools.providerName(name) ?? name);
}
