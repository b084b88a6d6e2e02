import type { ToolCall } from '@org/core';

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
  const stripped = stripCodeFences(text).trim();
  if (stripped === '' || toolCalls.length === 0) return false;
  const argumentValues = toolCalls.flatMap((call) => {
    const parsed = tryParse(call.arguments);
    return parsed.ok ? [canonicalJson(parsed.value)] : [];
  });
  if (argumentValues.length === 0) return false;
  const whole = tryParse(stripped);
  if (whole.ok) {
    if (argumentValues.includes(canonicalJson(whole.value))) return true;
    if (Array.isArray(whole.value) && whole.value.length > 0) {
      return whole.value.every((item) => argumentValues.includes(canonicalJson(item)));
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
    return parsed.ok && argumentValues.includes(canonicalJson(parsed.value));
  });
}

// A fence is a line of its own (```json opens, ``` closes); backticks inside the JSON itself (a key or a string
// value holding ```) are data and stay.
function stripCodeFences(text: string): string {
  return text.replace(/^[ \t]*```[a-zA-Z0-9_-]*[ \t]*$/gm, '');
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** JSON text with object keys sorted, so that equal values have equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'undefined';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}
