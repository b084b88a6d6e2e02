import type { Tool, ToolRegistry } from '@org/tools';
import { pathToText, type TemplateSite } from './argument-template.js';
import { lookupSchemaField } from './output-schema-field.js';
import type { PlanForm, StepParts } from './parse-plan.js';
import { mapStepPath } from './parse-plan.js';
import { TOOL_PLAN_TOOL_NAME } from './plan.js';
import type { PlanLimits } from './plan-limits.js';
import type { PlanProblem } from './plan-problem.js';
import { RESERVED_PATH_SEGMENTS, type Reference } from './reference.js';
import { toolOutputSchema } from './tool-source.js';

/** Where a step is in the plan as written, for problems: `steps[2]` in the list form, `steps.a1` in the object form. */
export function stepPath(form: PlanForm, index: number, step: StepParts): string {
  return form === 'map' ? mapStepPath(step.name) : `steps[${index}]`;
}

/** What checking a step needs to know of the plan around it (the whole plan, or the part streamed so far). */
export interface StepScope {
  readonly tools: ToolRegistry;
  readonly limits: PlanLimits;
  readonly form: PlanForm;
  readonly problems: PlanProblem[];
  /** The index of the step with this id, when one is known. */
  indexOf(stepId: string): number | undefined;
  /** The tool name the step at an index wrote (as the model was shown it). */
  stepToolName(index: number): string | undefined;
  /** The tool the step at an index calls, when it resolved. */
  toolAt(index: number): Tool | undefined;
  /** A did-you-mean among names of `kind` (`tool`, `step`, `field of <tool>`), bounded per plan by the caller. */
  suggest(kind: string, name: string, candidates: () => Iterable<string>): string | undefined;
  /** The tool names the model is shown, for messages. */
  toolNames(): readonly string[];
  /** The ids of the known steps, for did-you-means. */
  stepIds(): Iterable<string>;
}

/**
 * The tool a step calls, or `undefined` with a problem: a step may not call `execute_tool_plan` (plans do not
 * nest), and an unknown name gets a did-you-mean and the list of tools.
 */
export function resolveStepTool(scope: StepScope, index: number, step: StepParts): Tool | undefined {
  if (step.tool === undefined) return undefined;
  const tool = step.tool === TOOL_PLAN_TOOL_NAME ? undefined : scope.tools.resolve(step.tool);
  const path = scope.form === 'map' ? stepPath(scope.form, index, step) : `steps[${index}].tool`;
  if (step.tool === TOOL_PLAN_TOOL_NAME || tool?.name === TOOL_PLAN_TOOL_NAME) {
    scope.problems.push({
      code: 'nested_plan',
      stepId: step.name,
      path,
      message: `${step.label} calls ${TOOL_PLAN_TOOL_NAME}; plans cannot nest. Put its steps in this plan.`,
    });
    return undefined;
  }
  if (tool === undefined) {
    const names = scope.toolNames();
    const suggestion = scope.suggest('tool', step.tool, () => names);
    scope.problems.push({
      code: 'unknown_tool',
      stepId: step.name,
      toolName: step.tool,
      path,
      ...(suggestion === undefined ? {} : { suggestion }),
      message:
        `${step.label} calls unknown tool '${step.tool.slice(0, 80)}'` +
        (suggestion ? `; did you mean '${suggestion}'?` : '.') +
        ` Available tools: ${names.slice(0, 40).join(', ')}${names.length > 40 ? ', ...' : ''}.`,
    });
    return undefined;
  }
  return tool;
}

/** The hint an unknown step in the object form gets: a `$` followed by a letter or digit is a reference there. */
const LITERAL_DOLLAR_HINT =
  ' (In the steps object, $ before a letter or digit refers to a step; write $$ for a literal $.)';

/**
 * Checks one reference of a step: path length, reserved names, an existing step other than itself, and a field
 * its tool's output schema may have. Returns the referenced step's index when it is usable as a dependency.
 */
export function checkReference(
  scope: StepScope,
  index: number,
  step: StepParts,
  reference: Reference,
  site: TemplateSite,
): number | undefined {
  const { limits, problems } = scope;
  const target = scope.indexOf(reference.stepId);
  const path = `${stepPath(scope.form, index, step)}.arguments.${pathToText(site.path)}`;
  if (reference.path.length > limits.maxReferencePathSegments) {
    problems.push({
      code: 'limit_exceeded',
      limit: 'maxReferencePathSegments',
      maximum: limits.maxReferencePathSegments,
      actual: reference.path.length,
      stepId: step.name,
      path,
      message: `${step.label} has a $ref with ${reference.path.length} path segments; the limit 'maxReferencePathSegments' is ${limits.maxReferencePathSegments}.`,
    });
    return undefined;
  }
  for (const segment of reference.path) {
    if (!RESERVED_PATH_SEGMENTS.has(segment)) continue;
    problems.push({
      code: 'invalid_reference',
      stepId: step.name,
      reference: reference.text,
      segment,
      path,
      message: `${step.label} refers to '${reference.text}', but '${segment}' is a reserved name, not an output field.`,
    });
    return undefined;
  }
  if (target === undefined) {
    const suggestion = scope.suggest('step', reference.stepId, () => scope.stepIds());
    problems.push({
      code: 'unknown_step',
      stepId: step.name,
      reference: reference.text,
      missingStepId: reference.stepId,
      path,
      ...(suggestion === undefined ? {} : { suggestion }),
      message:
        `${step.label} refers to unknown step '${reference.stepId}' in '${reference.text}'` +
        (suggestion ? `; did you mean '${suggestion}'?` : '.') +
        (scope.form === 'map' ? LITERAL_DOLLAR_HINT : ''),
    });
    return undefined;
  }
  if (target === index) {
    problems.push({
      code: 'self_reference',
      stepId: step.name,
      reference: reference.text,
      path,
      message: `${step.label} refers to its own output ('${reference.text}'); a step can only use earlier results.`,
    });
    return undefined;
  }
  const targetTool = scope.toolAt(target);
  const schema =
    reference.path.length > 0 && targetTool !== undefined ? toolOutputSchema(targetTool) : undefined;
  if (schema === undefined) return target;
  const lookup = lookupSchemaField(schema, reference.path);
  // The tool as the model knows it: the name its step used.
  const toolName = scope.stepToolName(target) ?? targetTool!.name;
  if (lookup.kind === 'missing') {
    const available = lookup.available;
    const suggestion = scope.suggest(`field of ${toolName}`, lookup.field, () => available);
    problems.push({
      code: 'unknown_output_field',
      stepId: step.name,
      reference: reference.text,
      toolName,
      field: lookup.field,
      available: lookup.available,
      path,
      ...(suggestion === undefined ? {} : { suggestion }),
      message:
        `${step.label} refers to '${reference.text}', but the output of '${toolName}' has no field ` +
        `'${lookup.field}'` +
        (suggestion ? `; did you mean '${suggestion}'?` : '.') +
        (lookup.available.length > 0 ? ` Fields: ${lookup.available.slice(0, 30).join(', ')}.` : ''),
    });
  } else if (lookup.kind === 'scalar') {
    const where = lookup.at.length === 0 ? 'is' : `at '${lookup.at.join('.')}' is`;
    problems.push({
      code: 'unknown_output_field',
      stepId: step.name,
      reference: reference.text,
      toolName,
      field: lookup.field,
      available: [],
      path,
      message:
        `${step.label} refers to '${reference.text}', but the output of '${toolName}' ${where} ` +
        `${lookup.type}, which has no field '${lookup.field}'. Refer to '$ref:${[reference.stepId, ...lookup.at].join('.')}' itself.`,
    });
  }
  return target;
}
