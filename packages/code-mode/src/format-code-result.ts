import { limitValueProblem } from '@org/core';
import { DEFAULT_OUTPUT_BUDGET_BYTES, serializeOutput } from '@org/tools';
import type { CodeCallRecord, CodeResult } from './code-result.js';
import { CodeModeOptionsError } from './errors.js';

/** Options of {@link formatCodeResult}. */
export interface FormatCodeResultOptions {
  /**
   * The byte budget of the whole text (UTF-8). The status, the error and every failed call come first and are kept
   * (each cut to a bounded size); the value, the console and (after a failure) the results of the calls that took
   * effect share what is left, each cut with a marker when it does not fit. Default 50 000; `Infinity` for none.
   */
  readonly budgetBytes?: number;
}

const MAX_MESSAGE_BYTES = 1_000;
const MAX_ARGS_BYTES = 300;

const byteLength = (text: string): number => Buffer.byteLength(text, 'utf8');
const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

function bounded(value: unknown, maximum: number): unknown {
  return serializeOutput(value, maximum).output;
}

/** `#3 get_order`: how the model reads a call (its place in the program's order, and its tool). */
const callKey = (call: CodeCallRecord): string => `#${call.index} ${call.toolName}`;

function failureEntry(call: CodeCallRecord): Record<string, unknown> {
  const { observation } = call;
  const entry: Record<string, unknown> = { status: observation.status };
  if (observation.error !== undefined) {
    entry.code = bounded(observation.error.code, 200);
    entry.message = bounded(observation.error.message, MAX_MESSAGE_BYTES);
  }
  if (call.args !== undefined) entry.args = bounded(call.args, MAX_ARGS_BYTES);
  return entry;
}

/**
 * What goes back to the model after a program, as JSON: first the status, a summary, the error (with its line and
 * column) and every failed call with its reason; then the return value and the console; and when the program
 * failed, the results of the calls that succeeded before it did, since those took effect and must not be repeated.
 * Early calls the program never made are listed (their results were discarded). The text fits `budgetBytes`, failures
 * first, as `formatPlanResult` does for a plan.
 *
 * @example
 * formatCodeResult(await runCode(source, { tools }), { budgetBytes: 20_000 });
 * // {"status":"success","summary":"The program returned; 4 calls, 4 succeeded.","value":42.5}
 */
export function formatCodeResult(result: CodeResult, options: FormatCodeResultOptions = {}): string {
  const budget = options.budgetBytes ?? DEFAULT_OUTPUT_BUDGET_BYTES;
  const problem = limitValueProblem(budget, { minimum: 0, infinity: true });
  if (problem !== undefined)
    throw new CodeModeOptionsError({ option: 'budgetBytes', value: budget, problem });

  const failures = result.calls.filter((call) => call.observation.status !== 'success');
  const successes = result.calls.filter((call) => call.observation.status === 'success');
  const parts = [`${plural(result.calls.length, 'call')}`];
  if (result.calls.length > 0) parts.push(`${successes.length} succeeded`);
  if (failures.length > 0) parts.push(`${failures.length} failed`);
  const body: Record<string, unknown> = {
    status: result.status,
    summary:
      result.status === 'success'
        ? `The program returned; ${parts.join(', ')}.`
        : `The program failed; ${parts.join(', ')}.${successes.length > 0 ? ' The calls in tookEffect ran; do not repeat them.' : ''}`,
  };
  if (result.error !== undefined) {
    body.error = { code: result.error.code, message: bounded(result.error.message, 2 * MAX_MESSAGE_BYTES) };
  }

  let room = Number.isFinite(budget) ? budget - byteLength(JSON.stringify(body)) - 64 : budget;
  if (failures.length > 0) {
    const shown: Record<string, unknown> = {};
    let left = 0;
    for (const call of failures) {
      const entry = failureEntry(call);
      const cost = byteLength(JSON.stringify(callKey(call))) + byteLength(JSON.stringify(entry)) + 2;
      if (left > 0 || cost > room) {
        left += 1;
        continue;
      }
      room -= cost;
      Object.defineProperty(shown, callKey(call), { value: entry, enumerable: true });
    }
    body.failedCalls = shown;
    if (left > 0) body.failedCallsNotShown = `${left} more failed calls (the output budget is full)`;
  }
  if (result.unusedEarlyCalls.length > 0) {
    body.unusedEarlyCalls = `${plural(result.unusedEarlyCalls.length, 'call')} started early while you wrote the program, which it did not make: ${result.unusedEarlyCalls
      .slice(0, 20)
      .map((early) => early.action.toolName)
      .join(', ')}. Their results were discarded.`;
  }

  // What is left is shared by the value, the console and, after a failure, the results of calls that took effect.
  const shared: [string, unknown][] = [];
  if (result.value !== undefined) shared.push(['value', result.value]);
  if (result.console.length > 0)
    shared.push([
      'console',
      result.console
        .map((entry) => (entry.level === 'log' ? entry.text : `[${entry.level}] ${entry.text}`))
        .join('\n'),
    ]);
  if (result.status === 'error' && successes.length > 0) {
    const tookEffect: Record<string, unknown> = {};
    for (const call of successes)
      Object.defineProperty(tookEffect, callKey(call), {
        value: call.observation.output ?? null,
        enumerable: true,
      });
    shared.push(['tookEffect', tookEffect]);
  }
  if (!Number.isFinite(budget)) {
    for (const [key, value] of shared) body[key] = value;
    return JSON.stringify(body);
  }
  let share = Math.max(0, budget - byteLength(JSON.stringify(body)) - 16);
  let text = JSON.stringify(body);
  for (let attempt = 0; attempt < 4; attempt++) {
    for (const [key, value] of fitShares(shared, share)) body[key] = value;
    text = JSON.stringify(body);
    const over = byteLength(text) - budget;
    if (over <= 0 || share <= 0) break;
    share = Math.max(0, share - over);
  }
  return text;
}

/** Water-filling: small parts whole, large ones an equal share of what is left, cut with a marker. */
function fitShares(parts: readonly (readonly [string, unknown])[], room: number): [string, unknown][] {
  const sizes = parts.map(([key, value]) => byteLength(JSON.stringify(value) ?? 'null') + key.length + 4);
  const order = sizes.map((_, index) => index).sort((left, right) => sizes[left]! - sizes[right]!);
  const shares = new Array<number>(parts.length).fill(0);
  let remaining = room;
  order.forEach((index, position) => {
    const share = Math.min(sizes[index]!, Math.floor(remaining / (order.length - position)));
    shares[index] = share;
    remaining -= share;
  });
  return parts.map(([key, value], index) => {
    if (shares[index]! >= sizes[index]!) return [key, value];
    return [key, serializeOutput(value, Math.max(0, shares[index]! - key.length - 16)).output];
  });
}
