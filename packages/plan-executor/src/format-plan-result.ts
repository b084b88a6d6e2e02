import type { PlanResult, PlanStepResult } from './plan-result.js';

function modelOutput(step: PlanStepResult): unknown {
  // The runner's observation holds the output as the model should see it (serialised, cut to the budget).
  const observed = step.observation;
  if (observed !== undefined && 'output' in observed) return observed.output;
  const output = step.output;
  if (output === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(output) ?? 'null');
  } catch {
    return String(output);
  }
}

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/**
 * What goes back to the model after a plan: JSON with the outputs of `output_steps` only, every failure and
 * skip spelled out with its reason (for every step, listed or not), references that were missing, and whether
 * the plan was aborted. Outputs are the tool observations' model views (already cut to the output budget).
 *
 * @example
 * const result = await executePlan(plan, { tools });
 * const content = formatPlanResult(result);
 * // {"status":"partial","summary":"2 of 3 steps succeeded, 1 failed.","results":{"b":{...}},
 * //  "errors":{"c":{"tool":"send_email","status":"error","message":"..."}}}
 */
export function formatPlanResult(result: PlanResult): string {
  const outputIds = new Set(result.outputStepIds);
  const results: [string, unknown][] = [];
  const errors: [string, unknown][] = [];
  const skipped: [string, string][] = [];
  const notes: string[] = [];
  for (const step of result.steps) {
    if (step.status === 'success') {
      if (outputIds.has(step.id)) results.push([step.id, modelOutput(step)]);
    } else if (step.status === 'skipped') {
      skipped.push([step.id, step.error?.message ?? 'Skipped']);
    } else {
      errors.push([
        step.id,
        {
          tool: step.tool,
          status: step.status,
          ...(step.error?.code === undefined ? {} : { code: step.error.code }),
          message: step.error?.message ?? `Step '${step.id}' ended with '${step.status}'.`,
          ...(step.error?.details === undefined ? {} : { details: step.error.details }),
        },
      ]);
    }
    for (const missing of step.missingReferences ?? []) {
      notes.push(
        `Step '${step.id}': ${missing.reference} (argument '${missing.argumentPath}') did not exist; null was used.`,
      );
    }
  }
  const { counts } = result;
  const parts = [`${counts.success} of ${plural(result.steps.length, 'step')} succeeded`];
  const failed = counts.error + counts.timeout + counts.blocked;
  if (failed > 0) parts.push(`${failed} failed`);
  if (counts.skipped > 0) parts.push(`${counts.skipped} skipped`);
  if (counts.aborted > 0) parts.push(`${counts.aborted} aborted`);
  const body: Record<string, unknown> = {
    status: result.status,
    summary: `${parts.join(', ')}.`,
  };
  if (result.aborted) body.aborted = result.abortReason ?? 'The plan was aborted.';
  // Object.fromEntries defines own properties, so a step id like '__proto__' stays a plain key.
  if (results.length > 0) body.results = Object.fromEntries(results);
  if (errors.length > 0) body.errors = Object.fromEntries(errors);
  if (skipped.length > 0) body.skipped = Object.fromEntries(skipped);
  if (notes.length > 0) body.notes = notes;
  return JSON.stringify(body);
}
