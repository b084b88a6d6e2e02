import { limitValueProblem } from '@org/core';
import { DEFAULT_OUTPUT_BUDGET_BYTES, serializeOutput } from '@org/tools';
import { PlanOptionsError } from './plan-options-error.js';
import type { PlanResult, PlanStepResult } from './plan-result.js';

/** Options of {@link formatPlanResult}. */
export interface FormatPlanResultOptions {
  /**
   * The byte budget of the whole text (UTF-8). Failures, skips, notes and the deadline come first and are always
   * kept (each cut to a bounded size); the outputs share what is left, each cut with a marker when it does not fit.
   * Default 50 000 (the output budget of `@org/tools`); `Infinity` for none. `execute_tool_plan` uses its call's
   * output budget. A whole number from 0, or `Infinity`; anything else (`NaN`, negative) throws `PlanOptionsError`.
   */
  readonly budgetBytes?: number;
}

/** Bytes kept of one error message or skip reason, and of one error's details. */
const MAX_MESSAGE_BYTES = 1_000;
const MAX_DETAILS_BYTES = 1_000;
/** Bytes kept of an error code (a runner other than the default may send any text). */
const MAX_CODE_BYTES = 200;
/** Step ids listed for failures that did not fit. */
const MAX_LISTED_IDS = 100;

function modelOutput(step: PlanStepResult): unknown {
  // The runner's observation holds the output as the model should see it (serialised, cut to the budget).
  // A runner other than the default may hand back any value, shared sub-objects included: through the bounded
  // serialiser (cheap for an output that already is the model's view), never straight into JSON.stringify.
  const observed = step.observation;
  if (observed !== undefined && 'output' in observed)
    return serializeOutput(observed.output, Number.POSITIVE_INFINITY).output;
  const output = step.output;
  if (output === undefined) return null;
  return serializeOutput(output, Number.POSITIVE_INFINITY).output;
}

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

const byteLength = (text: string): number => Buffer.byteLength(text, 'utf8');

/** A text cut to a byte budget with a marker saying so (the `@org/tools` serialiser's cut). */
function boundedText(text: string, maximum: number): string {
  const serialized = serializeOutput(text, maximum);
  return typeof serialized.output === 'string' ? serialized.output : text;
}

function errorEntry(step: PlanStepResult): Record<string, unknown> {
  const error = step.error;
  const entry: Record<string, unknown> = { tool: step.tool, status: step.status };
  if (error?.code !== undefined) entry.code = boundedText(String(error.code), MAX_CODE_BYTES);
  entry.message = boundedText(
    error?.message ?? `Step '${step.id}' ended with '${step.status}'.`,
    MAX_MESSAGE_BYTES,
  );
  if (error?.details !== undefined) {
    const details = serializeOutput(error.details, MAX_DETAILS_BYTES);
    entry.details = details.output;
  }
  return entry;
}

/**
 * Adds entries to `target` in order while the text stays within `room` bytes; returns the ids that did not fit.
 * `Object.defineProperty` keeps a step id like `__proto__` a plain key.
 */
function addWithin(
  target: Record<string, unknown>,
  entries: readonly (readonly [string, unknown])[],
  room: { bytes: number },
): string[] {
  const left: string[] = [];
  for (const [id, value] of entries) {
    // `"id":value,` as it will appear in the text.
    const cost = byteLength(JSON.stringify(id)) + byteLength(JSON.stringify(value) ?? 'null') + 2;
    if (left.length > 0 || cost > room.bytes) {
      left.push(id);
      continue;
    }
    room.bytes -= cost;
    Object.defineProperty(target, id, { value, enumerable: true, writable: true, configurable: true });
  }
  return left;
}

/**
 * Shares `room` bytes among outputs: the small ones whole, the large ones an equal share each, cut with a marker
 * (water-filling, so no byte is given to an output that does not need it).
 */
function fitOutputs(outputs: readonly (readonly [string, unknown])[], room: number): [string, unknown][] {
  const sized = outputs.map(([id, value]) => {
    const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
    // Key, quotes, colon, comma; a string output is quoted and escaped when it is put in the JSON text.
    const overhead = byteLength(JSON.stringify(id)) + 2;
    return { id, value, bytes: byteLength(JSON.stringify(value) ?? 'null'), overhead, text };
  });
  const order = sized
    .map((_, index) => index)
    .sort((left, right) => sized[left]!.bytes - sized[right]!.bytes);
  const shares = new Array<number>(sized.length);
  let remaining = room;
  for (let position = 0; position < order.length; position++) {
    const item = sized[order[position]!]!;
    const fair = Math.floor(remaining / (order.length - position));
    const need = item.bytes + item.overhead;
    const share = Math.max(0, Math.min(need, fair));
    shares[order[position]!] = share;
    remaining -= share;
  }
  return sized.map((item, index) => {
    const share = shares[index]!;
    if (share >= item.bytes + item.overhead) return [item.id, item.value];
    // Cut as text; the quotes and escapes JSON adds to a string are paid for out of the share.
    let budget = Math.max(0, share - item.overhead - 2);
    for (let attempt = 0; attempt < 4; attempt++) {
      const cut = serializeOutput(item.text, budget).output;
      const cost = byteLength(JSON.stringify(cut) ?? '""');
      if (cost + item.overhead <= share || budget === 0) return [item.id, cut];
      budget = Math.max(0, budget - (cost + item.overhead - share));
    }
    return [item.id, serializeOutput(item.text, 0).output];
  });
}

/**
 * What goes back to the model after a plan: JSON with, first, the status, a summary, whether the plan was aborted or
 * ran out of time, every failure and skip with its reason (for every step, listed or not) and the references that
 * were missing; then the outputs of `output_steps`. The text fits `budgetBytes`: what failed and why always
 * survives, and the outputs (the tool observations' model views) share the rest, each cut with a marker when needed.
 *
 * @example
 * const result = await executePlan(plan, { tools });
 * const content = formatPlanResult(result, { budgetBytes: 20_000 });
 * // {"status":"partial","summary":"2 of 3 steps succeeded, 1 failed.",
 * //  "errors":{"c":{"tool":"send_email","status":"error","message":"..."}},"results":{"b":{...}}}
 */
export function formatPlanResult(result: PlanResult, options: FormatPlanResultOptions = {}): string {
  // `null` is a value given, not an absent option: refused below like NaN.
  const budget = options.budgetBytes === undefined ? DEFAULT_OUTPUT_BUDGET_BYTES : options.budgetBytes;
  // NaN or a negative budget would read as "no budget" below (`Number.isFinite`): refused, never switched off.
  const problem = limitValueProblem(budget, { minimum: 0, infinity: true });
  if (problem !== undefined) throw new PlanOptionsError({ option: 'budgetBytes', value: budget, problem });
  const outputIds = new Set(result.outputStepIds);
  const results: [string, unknown][] = [];
  const errors: [string, unknown][] = [];
  const skipped: [string, string][] = [];
  const notes: string[] = [];
  for (const step of result.steps) {
    if (step.status === 'success') {
      if (outputIds.has(step.id)) results.push([step.id, modelOutput(step)]);
    } else if (step.status === 'skipped') {
      skipped.push([step.id, boundedText(step.error?.message ?? 'Skipped', MAX_MESSAGE_BYTES)]);
    } else {
      errors.push([step.id, errorEntry(step)]);
    }
    for (const missing of step.missingReferences ?? []) {
      notes.push(
        boundedText(
          missing.reason === undefined
            ? `Step '${step.id}': ${missing.reference} (argument '${missing.argumentPath}') did not exist; null was used.`
            : `Step '${step.id}': ${missing.reference} (argument '${missing.argumentPath}') could not be read (${missing.reason}); null was used.`,
          MAX_MESSAGE_BYTES,
        ),
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
  if (result.aborted)
    body.aborted = boundedText(result.abortReason ?? 'The plan was aborted.', MAX_MESSAGE_BYTES);
  if (result.timedOut === true) {
    body.timedOut =
      `The plan's time limit of ${result.timeoutMs} ms passed: steps still running were stopped and the rest did ` +
      'not start (see errors). Steps that succeeded took effect; do not repeat them. To go on, plan only the ' +
      'steps that did not finish, or fewer at once.';
  }

  // Failures first, so that no cut can hide them: the outputs get what is left.
  const room = { bytes: Number.isFinite(budget) ? budget - byteLength(JSON.stringify(body)) - 64 : budget };
  if (errors.length > 0) {
    const shown: Record<string, unknown> = {};
    const left = addWithin(shown, errors, room);
    body.errors = shown;
    if (left.length > 0) body.errorsNotShown = notShown(left);
  }
  if (skipped.length > 0) {
    const shown: Record<string, unknown> = {};
    const left = addWithin(shown, skipped, room);
    body.skipped = shown;
    if (left.length > 0) body.skippedNotShown = notShown(left);
  }
  if (notes.length > 0) {
    const shown: string[] = [];
    for (const note of notes) {
      const cost = byteLength(JSON.stringify(note)) + 1;
      if (cost > room.bytes) break;
      room.bytes -= cost;
      shown.push(note);
    }
    if (shown.length < notes.length)
      shown.push(`... and ${notes.length - shown.length} more missing references`);
    body.notes = shown;
  }
  if (results.length === 0) return JSON.stringify(body);
  if (!Number.isFinite(budget)) {
    body.results = Object.fromEntries(results);
    return JSON.stringify(body);
  }
  // The head is final now: what is left of the budget is the outputs' share, re-measured on the real text.
  const head = byteLength(JSON.stringify(body));
  let share = budget - head - 16;
  let text = '';
  for (let attempt = 0; attempt < 4; attempt++) {
    body.results = Object.fromEntries(fitOutputs(results, Math.max(0, share)));
    text = JSON.stringify(body);
    const over = byteLength(text) - budget;
    if (over <= 0 || share <= 0) break;
    share -= over;
  }
  return text;
}

function notShown(ids: readonly string[]): string {
  const listed = ids.slice(0, MAX_LISTED_IDS);
  // Step ids are the model's: bounded like every other text of the summary.
  return boundedText(
    `${ids.length} more not shown (the output budget is full): ${listed.join(', ')}` +
      (ids.length > listed.length ? ', ...' : ''),
    MAX_MESSAGE_BYTES,
  );
}
