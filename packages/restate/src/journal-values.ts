import type { ModelResponse } from '@org/core';
import { type ToolObservation, toJsonValue } from '@org/tools';
import { JournalValueError } from './errors.js';

/** Deepest nesting a journaled value may have (the strict JSON reader's default). */
const MAX_DEPTH = 1_000;

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // `__proto__` and friends stay own data keys.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A deep copy of `value` that is exactly what a replay will read back from the journal, or a `JournalValueError`
 * naming the first value JSON cannot carry. Object properties that are `undefined` are left out (as JSON does);
 * anything else that is not JSON data (a BigInt, `NaN`, a `Date`, a class instance, a cycle) is refused rather
 * than changed on the way.
 */
export function exactJsonCopy<T>(value: T, what: string): T {
  const seen = new Set<object>();
  const copy = (item: unknown, path: string, depth: number): unknown => {
    if (item === null || typeof item === 'string' || typeof item === 'boolean') return item;
    if (typeof item === 'number') {
      if (!Number.isFinite(item)) throw new JournalValueError({ what, path, problem: `is ${item}` });
      return item;
    }
    if (typeof item !== 'object') {
      throw new JournalValueError({ what, path, problem: `is a ${typeof item}, which JSON cannot hold` });
    }
    if (depth >= MAX_DEPTH)
      throw new JournalValueError({ what, path, problem: `is nested deeper than ${MAX_DEPTH}` });
    if (seen.has(item))
      throw new JournalValueError({ what, path, problem: 'refers back to itself (a cycle)' });
    seen.add(item);
    try {
      if (Array.isArray(item)) {
        return item.map((element, index) => {
          if (element === undefined) {
            throw new JournalValueError({ what, path: `${path}[${index}]`, problem: 'is undefined' });
          }
          return copy(element, `${path}[${index}]`, depth + 1);
        });
      }
      if (!isPlainObject(item)) {
        throw new JournalValueError({
          what,
          path,
          problem: `is a ${item.constructor?.name ?? 'non-plain'} object, not plain data`,
        });
      }
      const result: Record<string, unknown> = {};
      for (const key of Object.keys(item)) {
        const field = (item as Record<string, unknown>)[key];
        if (field === undefined) continue;
        defineOwn(result, key, copy(field, path === '' ? key : `${path}.${key}`, depth + 1));
      }
      return result;
    } finally {
      seen.delete(item);
    }
  };
  return copy(value, '', 0) as T;
}

/**
 * A model's response as it is journaled: exactly its JSON data (text, tool calls, usage, adjustments, reasoning),
 * the provider's `rawResponse` (when the call asked for it) converted with `toJsonValue` of `@org/tools`.
 */
export function journaledModelResponse(response: ModelResponse, what: string): ModelResponse {
  const { rawResponse, ...rest } = response;
  return exactJsonCopy(
    rawResponse === undefined ? rest : { ...rest, rawResponse: toJsonValue(rawResponse) },
    what,
  );
}

/**
 * A tool call's observation as it is journaled: its JSON data as `toJsonValue` of `@org/tools` writes it, the same
 * conversion that made `output`. So `rawOutput` (what `$ref`s in a plan read) is the tool's value as JSON: plain
 * data unchanged, a `Date` as its ISO string, a `Map` as an object, a BigInt as its decimal string.
 */
export function journaledObservation(observation: ToolObservation): ToolObservation {
  return toJsonValue(observation) as unknown as ToolObservation;
}
