import { closestMatch, type JsonSchema } from '@org/core';
import type { Tool, ToolRegistry } from '@org/tools';
import { type ArgumentTemplate, compileArguments } from './argument-template.js';
import { orderSteps } from './find-cycles.js';
import { lookupSchemaField } from './output-schema-field.js';
import { type ParsePlanOptions, parsePlan } from './parse-plan.js';
import { type Plan, type PlanStep, TOOL_PLAN_TOOL_NAME } from './plan.js';
import { resolvePlanLimits } from './plan-limits.js';
import type { PlanProblem } from './plan-problem.js';
import { PlanValidationError } from './plan-validation-error.js';
import { RESERVED_PATH_SEGMENTS } from './reference.js';
import { toolOutputSchema } from './tool-source.js';

/** Options of {@link validatePlan}. */
export interface ValidatePlanOptions extends ParsePlanOptions {
  /** The tools steps may call. */
  readonly tools: ToolRegistry;
}

/** A plan that passed validation against a set of tools, ready for {@link executePlan}. */
export interface ValidatedPlan {
  readonly plan: Plan;
  /** The steps whose results go back to the model: `output_steps`, or every step when it was omitted. */
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
}

const graphs = new WeakMap<ValidatedPlan, PlanGraph>();

/** The graph of a plan validated by this copy of the package, if it is one. */
export function graphOf(plan: unknown): PlanGraph | undefined {
  return typeof plan === 'object' && plan !== null ? graphs.get(plan as ValidatedPlan) : undefined;
}

function toCsr(lists: readonly (readonly number[])[]): { start: Int32Array; list: Int32Array } {
  const start = new Int32Array(lists.length + 1);
  let total = 0;
  for (let index = 0; index < lists.length; index++) {
    start[index] = total;
    total += lists[index]!.length;
  }
  start[lists.length] = total;
  const list = new Int32Array(total);
  let position = 0;
  for (const items of lists) for (const item of items) list[position++] = item;
  return { start, list };
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
  const existing = graphOf(input);
  if (existing !== undefined && existing.tools === options.tools)
    return { ok: true, plan: input as ValidatedPlan };
  const source = existing !== undefined ? (input as ValidatedPlan).plan : input;
  const parsed = parsePlan(source, options);
  if (!parsed.ok) return parsed;
  const plan = parsed.plan;
  const limits = resolvePlanLimits(options.limits);
  const tools = options.tools;
  const problems: PlanProblem[] = [];
  const steps = plan.steps;
  const count = steps.length;

  const indexOf = new Map<string, number>();
  const duplicates = new Map<string, number[]>();
  for (let index = 0; index < count; index++) {
    const id = steps[index]!.id;
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

  let toolNames: string[] | undefined;
  const stepTools: Tool[] = [];
  const outputSchemas = new Map<string, JsonSchema | undefined>();
  for (let index = 0; index < count; index++) {
    const step = steps[index]!;
    if (step.tool === TOOL_PLAN_TOOL_NAME) {
      problems.push({
        code: 'nested_plan',
        stepId: step.id,
        path: `steps[${index}].tool`,
        message: `Step '${step.id}' calls ${TOOL_PLAN_TOOL_NAME}; plans cannot nest. Put its steps in this plan.`,
      });
      continue;
    }
    const tool = tools.has(step.tool) ? tools.get(step.tool) : undefined;
    if (tool === undefined) {
      toolNames ??= tools.names();
      const suggestion = closestMatch(step.tool, toolNames);
      problems.push({
        code: 'unknown_tool',
        stepId: step.id,
        toolName: step.tool,
        path: `steps[${index}].tool`,
        ...(suggestion === undefined ? {} : { suggestion }),
        message:
          `Step '${step.id}' calls unknown tool '${step.tool.slice(0, 80)}'` +
          (suggestion ? `; did you mean '${suggestion}'?` : '.') +
          ` Available tools: ${toolNames.slice(0, 40).join(', ')}${toolNames.length > 40 ? ', ...' : ''}.`,
      });
      continue;
    }
    stepTools[index] = tool;
    if (!outputSchemas.has(step.tool)) outputSchemas.set(step.tool, toolOutputSchema(tool));
  }

  const dependencies: number[][] = [];
  const templates: (ArgumentTemplate | undefined)[] = [];
  for (let index = 0; index < count; index++) {
    const step = steps[index]!;
    const compiled = compileArguments(step.arguments);
    templates.push(compiled.template);
    const needs = new Set<number>();
    const base = `steps[${index}].arguments`;
    for (const { malformed, pathText } of compiled.malformed) {
      problems.push({
        code: 'invalid_reference',
        stepId: step.id,
        reference: malformed.text,
        path: `${base}.${pathText}`,
        message: `Step '${step.id}' has '$ref:' without a step id at arguments.${pathText}; write "$ref:<step id>".`,
      });
    }
    for (const { reference, pathText } of compiled.references) {
      const path = `${base}.${pathText}`;
      const target = indexOf.get(reference.stepId);
      if (reference.path.length > limits.maxReferencePathSegments) {
        problems.push({
          code: 'limit_exceeded',
          limit: 'maxReferencePathSegments',
          maximum: limits.maxReferencePathSegments,
          actual: reference.path.length,
          stepId: step.id,
          path,
          message: `Step '${step.id}' has a $ref with ${reference.path.length} path segments; the limit 'maxReferencePathSegments' is ${limits.maxReferencePathSegments}.`,
        });
        continue;
      }
      const reserved = reference.path.find((segment) => RESERVED_PATH_SEGMENTS.has(segment));
      if (reserved !== undefined) {
        problems.push({
          code: 'invalid_reference',
          stepId: step.id,
          reference: reference.text,
          segment: reserved,
          path,
          message: `Step '${step.id}' refers to '${reference.text}', but '${reserved}' is a reserved name, not an output field.`,
        });
        continue;
      }
      if (target === undefined) {
        const suggestion = closestMatch(reference.stepId, indexOf.keys());
        problems.push({
          code: 'unknown_step',
          stepId: step.id,
          reference: reference.text,
          missingStepId: reference.stepId,
          path,
          ...(suggestion === undefined ? {} : { suggestion }),
          message:
            `Step '${step.id}' refers to unknown step '${reference.stepId}' in '${reference.text}'` +
            (suggestion ? `; did you mean '${suggestion}'?` : '.'),
        });
        continue;
      }
      if (target === index) {
        problems.push({
          code: 'self_reference',
          stepId: step.id,
          reference: reference.text,
          path,
          message: `Step '${step.id}' refers to its own output ('${reference.text}'); a step can only use earlier results.`,
        });
        continue;
      }
      needs.add(target);
      const targetTool = steps[target]!.tool;
      const schema = outputSchemas.get(targetTool);
      if (schema !== undefined && reference.path.length > 0) {
        const lookup = lookupSchemaField(schema, reference.path);
        if (lookup.kind === 'missing') {
          const suggestion = closestMatch(lookup.field, lookup.available);
          problems.push({
            code: 'unknown_output_field',
            stepId: step.id,
            reference: reference.text,
            toolName: targetTool,
            field: lookup.field,
            available: lookup.available,
            path,
            ...(suggestion === undefined ? {} : { suggestion }),
            message:
              `Step '${step.id}' refers to '${reference.text}', but the output of '${targetTool}' has no field ` +
              `'${lookup.field}'` +
              (suggestion ? `; did you mean '${suggestion}'?` : '.') +
              (lookup.available.length > 0 ? ` Fields: ${lookup.available.slice(0, 30).join(', ')}.` : ''),
          });
        }
      }
    }
    dependencies.push([...needs].sort((left, right) => left - right));
  }

  const dependents: number[][] = Array.from({ length: count }, () => []);
  for (let index = 0; index < count; index++) {
    for (const dependency of dependencies[index]!) dependents[dependency]!.push(index);
  }
  const dependencyCsr = toCsr(dependencies);
  const dependentCsr = toCsr(dependents);
  const { order, cycles } = orderSteps(
    count,
    dependencyCsr.start,
    dependencyCsr.list,
    dependentCsr.start,
    dependentCsr.list,
  );
  for (const cycle of cycles) {
    const names = cycle.map((index) => steps[index]!.id);
    problems.push({
      code: 'cycle',
      cycle: names,
      path: `steps[${cycle[0]}]`,
      stepId: names[0]!,
      message: `Steps ${names.join(' → ')} form a cycle (each needs the output of the next); no order can run them.`,
    });
  }

  const outputIds = plan.output_steps ?? steps.map((step) => step.id);
  const outputIndexes = new Int32Array(outputIds.length);
  outputIds.forEach((id, position) => {
    const index = indexOf.get(id);
    if (index === undefined) {
      const suggestion = closestMatch(id, indexOf.keys());
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
  const validated: ValidatedPlan = Object.freeze({
    plan,
    outputStepIds: Object.freeze([...outputIds]),
    executionOrder: Object.freeze(Array.from(order, (index) => steps[index]!.id)),
  });
  graphs.set(validated, {
    tools,
    steps,
    stepTools,
    indexOf,
    dependencyStart: dependencyCsr.start,
    dependencyList: dependencyCsr.list,
    dependentStart: dependentCsr.start,
    dependentList: dependentCsr.list,
    order,
    templates,
    outputIndexes,
  });
  return { ok: true, plan: validated };
}
