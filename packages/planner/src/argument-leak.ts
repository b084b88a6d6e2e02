import { readStrictJson, type ToolCall } from '@org/core';

/** Deepest nesting read or compared: as deep as tool arguments may be (`@org/tools`' default limit). */
const MAX_DEPTH = 64;
/**
 * Text longer than this many times the calls' arguments (plus some slack for fences and indentation) cannot be an
 * echo of them, so it is not read at all: the check costs time in the arguments' size, not in the text's.
 */
const MAX_ECHO_RATIO = 8;
const ECHO_SLACK = 1_024;

/**
 * Whether a model's text merely echoes the arguments of its own tool calls (some models print the arguments JSON
 * as text beside the call). Such text adds nothing but tokens to every later request and confuses a reader, so
 * the function-calling planner drops it and reports an adjustment.
 *
 * The text counts as an echo when, once code fences are removed, it is one JSON value equal to one call's
 * arguments, or a list of values each equal to a call's arguments.
 *
 * @example
 * isArgumentEcho('```json\n{"city": "Paris"}\n```', [{ id: '1', toolName: 'get_weather', arguments: '{"city":"Paris"}' }]); // true
 */
export function isArgumentEcho(text: string, toolCalls: readonly ToolCall[]): boolean {
  if (typeof text !== 'string' || toolCalls.length === 0) return false;
  let argumentsLength = 0;
  for (const call of toolCalls)
    argumentsLength += typeof call.arguments === 'string' ? call.arguments.length : 0;
  if (text.length > MAX_ECHO_RATIO * argumentsLength + ECHO_SLACK) return false;
  const stripped = stripCodeFences(text).trim();
  if (stripped === '') return false;
  // A Set: a list of many echoed values is checked in linear time, not values × calls.
  const argumentValues = new Set(
    toolCalls.flatMap((call) => {
      const parsed = tryParse(call.arguments);
      return parsed.ok ? [canonicalJson(parsed.value)] : [];
    }),
  );
  if (argumentValues.size === 0) return false;
  const whole = tryParse(stripped);
  if (whole.ok) {
    if (argumentValues.has(canonicalJson(whole.value))) return true;
    if (Array.isArray(whole.value) && whole.value.length > 0) {
      return whole.value.every((item) => argumentValues.has(canonicalJson(item)));
    }
    return false;
  }
  // Several JSON objects on separate lines or fences.
  const pieces = stripped
    .split(/\n\s*\n|\n(?=\s*[{[])/)
    .map((piece) => piece.trim())
    .filter((piece) => piece !== '');
  if (pieces.length < 2) return false;
  return pieces.every((piece) => {
    const parsed = tryParse(piece);
    return parsed.ok && argumentValues.has(canonicalJson(parsed.value));
  });
}

// A fence is a line of its own (```json opens, ``` closes); backticks inside the JSON itself (a key or a string
// value holding ```) are data and stay.
function stripCodeFences(text: string): string {
  return text.replace(/^[ \t]*```[a-zA-Z0-9_-]*[ \t]*$/gm, '');
}

/**
 * Model text, read with the one strict reader of `@org/core` (never `JSON.parse`): text with a key repeated with
 * another value, or an integer a double cannot hold, is not read, so it is never taken for an echo of different
 * arguments. Nesting is bounded before the reader recurses.
 */
function tryParse(text: unknown): { ok: true; value: unknown } | { ok: false } {
  if (typeof text !== 'string') return { ok: false };
  const read = readStrictJson(text, { maxDepth: MAX_DEPTH });
  return read.ok ? { ok: true, value: read.value } : { ok: false };
}

/**
 * JSON text with object keys sorted, so that equal values have equal text. Linear in the value's size: keys are
 * written as own data (a `__proto__` key stays a key), and nesting past 64 levels, or a cycle, is written as a
 * marker instead of being walked further.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value, 0)) ?? 'undefined';
}

const TOO_DEEP = '[nested too deep]';

function sortKeys(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return TOO_DEEP;
  if (Array.isArray(value)) return value.map((item) => sortKeys(item, depth + 1));
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    Object.defineProperty(sorted, key, {
      value: sortKeys((value as Record<string, unknown>)[key], depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return sorted;
}
