import { IncompleteToolCallError, LimitExceededError } from '@org/core';
import { MalformedToolArgumentsError } from './errors.js';
import { JsonParseFailure, parseJsonStrict } from './json-parser.js';
import { type ArgumentLimits, assertTextWithinLimits, resolveLimits } from './limits.js';
import { isNormalFinishReason, isTruncatingFinishReason, repairJsonText } from './repair-json-text.js';

/** Options of `parseToolArguments`. */
export interface ParseToolArgumentsOptions {
  /**
   * Why the model stopped (`stop`, `tool-calls`, `length`, or the provider's raw value). After a token-limit stop
   * (`length`, `max_tokens`) text that is not complete JSON is refused, never repaired; a missing final `}` is only
   * added after a normal stop.
   */
  readonly finishReason?: string;
  readonly limits?: ArgumentLimits;
  /** Named in error messages. */
  readonly toolName?: string;
  readonly toolCallId?: string;
}

/** Why arguments could not be read. */
export type ParseToolArgumentsError =
  | MalformedToolArgumentsError
  | IncompleteToolCallError
  | LimitExceededError;

/** The outcome of `parseToolArguments`. */
export type ParseToolArgumentsResult =
  | { readonly ok: true; readonly value: Record<string, unknown>; readonly repairs: string[] }
  | { readonly ok: false; readonly error: ParseToolArgumentsError };

/**
 * Parses with the strict, prototype-safe parser (it refuses duplicate keys with different values and numbers that
 * do not fit), then returns the engine's `JSON.parse` of the same text: the same value (the grammar is the same and
 * `JSON.parse` defines `__proto__` as an own property too), with the engine's internalised strings, which makes
 * validation of it measurably faster.
 */
function readJson(text: string, notes: string[]): unknown {
  parseJsonStrict(text, notes);
  return JSON.parse(text);
}

/** Values already checked against the limits, so validation does not walk them again. */
const checkedValues = new WeakSet<object>();

/** True when `value` came out of `parseToolArguments` (and so is within the limits already). */
export function isParsedArguments(value: unknown): boolean {
  return typeof value === 'object' && value !== null && checkedValues.has(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeTopLevel(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * Reads the raw argument text of a tool call into an object, with safe repairs only: a Markdown code fence, prose
 * around the object, trailing commas, a JSON object sent as a JSON string, and a missing final `}` when the model
 * stopped normally. `""` is `{}` (a tool without parameters). Arguments cut off by a token limit are an
 * `IncompleteToolCallError`; size (1 MiB) and depth (64) limits are checked by a linear scan before parsing.
 * Keys such as `__proto__` become ordinary properties. Never throws on any text; a `limits` option that is not a
 * whole number of at least 1 (`NaN`, negative) throws `InvalidToolOptionError`, since it would switch the limit off.
 *
 * @example
 * const result = parseToolArguments('```json\n{"city": "Paris",}\n```', { finishReason: 'tool-calls' });
 * // { ok: true, value: { city: 'Paris' }, repairs: ['removed a Markdown code fence ...', 'removed 1 trailing comma'] }
 */
export function parseToolArguments(
  text: string,
  options: ParseToolArgumentsOptions = {},
): ParseToolArgumentsResult {
  const limits = resolveLimits(options.limits);
  const names = {
    ...(options.toolName === undefined ? {} : { toolName: options.toolName }),
    ...(options.toolCallId === undefined ? {} : { toolCallId: options.toolCallId }),
  };
  if (typeof text !== 'string') {
    return {
      ok: false,
      error: new MalformedToolArgumentsError({ reason: `expected text, got ${typeof text}`, ...names }),
    };
  }
  try {
    assertTextWithinLimits(text, limits);
  } catch (error) {
    if (LimitExceededError.isInstance(error)) return { ok: false, error };
    throw error;
  }
  const truncated = isTruncatingFinishReason(options.finishReason);
  const incomplete = (): ParseToolArgumentsResult => ({
    ok: false,
    error: new IncompleteToolCallError({
      partialArguments: text,
      ...names,
      ...(options.finishReason === undefined ? {} : { finishReason: options.finishReason }),
    }),
  });

  const repairs: string[] = [];
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (trimmed === '') {
    if (truncated) return incomplete();
    return accept({}, ['read empty arguments as {}']);
  }

  let value: unknown;
  let firstFailure: JsonParseFailure | undefined;
  try {
    value = readJson(trimmed, repairs);
  } catch (error) {
    if (!(error instanceof JsonParseFailure)) throw error;
    firstFailure = error;
  }
  if (firstFailure !== undefined) {
    if (truncated) return incomplete();
    const repaired = repairJsonText(trimmed, { allowCloseBrace: isNormalFinishReason(options.finishReason) });
    if (repaired.repairs.length === 0) return malformed(firstFailure);
    try {
      const notes: string[] = [];
      value = readJson(repaired.text, notes);
      repairs.push(...repaired.repairs, ...notes);
    } catch (error) {
      if (!(error instanceof JsonParseFailure)) throw error;
      return malformed(firstFailure);
    }
  }

  if (typeof value === 'string') {
    // Some models encode the arguments object twice: "{\"city\":\"Paris\"}".
    const inner = value.trim();
    if (inner.startsWith('{')) {
      try {
        assertTextWithinLimits(inner, limits);
        const notes: string[] = [];
        const decoded = readJson(inner, notes);
        if (isPlainObject(decoded))
          return accept(decoded, [...repairs, 'decoded arguments sent as a JSON string', ...notes]);
      } catch (error) {
        if (LimitExceededError.isInstance(error)) return { ok: false, error };
        if (!(error instanceof JsonParseFailure)) throw error;
      }
    }
  }
  if (!isPlainObject(value)) {
    return {
      ok: false,
      error: new MalformedToolArgumentsError({
        reason: `the top level is ${describeTopLevel(value)}, not an object with named parameters`,
        ...names,
      }),
    };
  }
  return accept(value, repairs);

  function accept(object: Record<string, unknown>, done: string[]): ParseToolArgumentsResult {
    checkedValues.add(object);
    return { ok: true, value: object, repairs: done };
  }

  function malformed(failure: JsonParseFailure): ParseToolArgumentsResult {
    return {
      ok: false,
      error: new MalformedToolArgumentsError({
        reason: failure.reason,
        position: failure.position,
        ...(failure.path === undefined ? {} : { path: failure.path }),
        ...names,
      }),
    };
  }
}
