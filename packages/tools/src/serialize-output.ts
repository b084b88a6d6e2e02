import { type JsonValue, redactRegisteredSecrets, truncateText, utf8ByteLength } from '@org/core';

/** Default budget of a tool's output in the model's context: 50 KB. */
export const DEFAULT_OUTPUT_BUDGET_BYTES = 50_000;

/**
 * The memory bound of one serialisation: the JSON text of an output is never built beyond 16 MiB, whatever the
 * budget (`Infinity` included); the rest is left out with a marker.
 */
export const MAX_SERIALIZED_BYTES = 16 * 1024 * 1024;

/** Objects nested deeper than this are converted as `"[Too deep]"`. */
const MAXIMUM_DEPTH = 64;
/** A shared sub-object is reused where the result stays within this depth (a fresh copy is never deeper than 64). */
const MAXIMUM_SHARED_DEPTH = 2 * MAXIMUM_DEPTH;
/** Characters of a long string redacted before it is cut: longer than any secret. */
const SECRET_MARGIN = 65_536;
const TRUNCATED = '[Truncated]';
/** Bytes read past four times the budget, so that the marker gives the exact size of most cut outputs. */
const MEASURED_BYTES = 64 * 1024;

function read(read: () => unknown): unknown {
  try {
    return read();
  } catch {
    return '[Unreadable]';
  }
}

/** Options of {@link toJsonValue}. */
export interface ToJsonValueOptions {
  /**
   * The memory bound: how many bytes of JSON text the result may stand for, shared sub-objects counted each time
   * they appear. Values past it become `"[Truncated]"`. Default {@link MAX_SERIALIZED_BYTES}.
   */
  readonly maxBytes?: number;
}

interface Converted {
  readonly value: JsonValue;
  /** Whether nothing was left out for the memory bound. */
  readonly complete: boolean;
  /** A lower bound of the UTF-8 size of the result's JSON text (exact size is measured on the text). */
  readonly bytes: number;
}

interface Memo {
  readonly value: JsonValue | undefined;
  /** Lower bound of the bytes of its JSON text. */
  readonly size: number;
  /** Levels of nesting below it. */
  readonly height: number;
}

const IN_PROGRESS: Memo = { value: null, size: 0, height: 0 };

/**
 * The conversion behind `toJsonValue` and `serializeOutput`. Each object is read once (getters, `toJSON`): an object
 * met again (a DAG) reuses its converted value, and its size is counted again, since it appears again in the text;
 * the walk stops at `maxBytes`, so its work and memory are bounded by the bound, not by the number of paths.
 */
function convertWithin(value: unknown, maxBytes: number): Converted {
  const memo = new Map<object, Memo>();
  let used = 0;
  let complete = true;
  let height = 0;
  const over = (): boolean => {
    if (used > maxBytes) complete = false;
    return !complete;
  };
  const text = (current: string): string => {
    const room = maxBytes - used;
    // Redact before cutting, so a cut never leaves part of a secret; a huge string is first cut with a margin.
    let kept =
      current.length > room + SECRET_MARGIN ? current.slice(0, Math.max(0, room) + SECRET_MARGIN) : current;
    kept = redactRegisteredSecrets(kept);
    if (kept.length + 2 > room) {
      kept = kept.slice(0, Math.max(0, room) + 1);
      complete = false;
    }
    used += kept.length + 2;
    return kept;
  };
  const convert = (current: unknown, depth: number): JsonValue | undefined => {
    height = 0;
    if (over()) return TRUNCATED;
    switch (typeof current) {
      case 'string':
        return text(current);
      case 'boolean':
        used += current ? 4 : 5;
        return current;
      case 'number': {
        if (!Number.isFinite(current)) {
          used += 4;
          return null;
        }
        used += 1;
        return Object.is(current, -0) ? 0 : current;
      }
      case 'bigint':
        return text(current.toString());
      case 'undefined':
      case 'function':
      case 'symbol':
        return undefined;
      default:
        break;
    }
    if (current === null) {
      used += 4;
      return null;
    }
    const object = current as object;
    const known = memo.get(object);
    if (known === IN_PROGRESS) {
      used += 12;
      return '[Circular]';
    }
    if (known !== undefined) {
      if (depth + known.height > MAXIMUM_SHARED_DEPTH) {
        used += 12;
        return '[Too deep]';
      }
      used += known.size;
      if (over()) return TRUNCATED;
      height = known.height;
      return known.value;
    }
    if (depth >= MAXIMUM_DEPTH) {
      used += 12;
      return '[Too deep]';
    }
    memo.set(object, IN_PROGRESS);
    const before = used;
    let converted: JsonValue | undefined;
    let below = 0;
    try {
      [converted, below] = convertObject(object, depth);
    } catch {
      converted = '[Unreadable]';
      below = 0;
    }
    memo.set(object, { value: converted, size: used - before, height: below });
    height = below;
    return converted;
  };
  /** Converts a child and returns the height of what it became (0 for a primitive), beside the value. */
  const child = (item: unknown, depth: number, into: { height: number }): JsonValue | undefined => {
    const converted = convert(item, depth + 1);
    if (typeof converted === 'object' && converted !== null && height + 1 > into.height)
      into.height = height + 1;
    return converted;
  };
  const convertObject = (object: object, depth: number): [JsonValue | undefined, number] => {
    const levels = { height: 0 };
    if (object instanceof Date) {
      const time = object.getTime();
      return [Number.isNaN(time) ? null : text(object.toISOString()), 0];
    }
    if (object instanceof Error) {
      used += 20;
      const name = text(String(read(() => object.name)));
      const message = text(String(read(() => object.message)));
      return [{ name, message }, 0];
    }
    if (ArrayBuffer.isView(object) || object instanceof ArrayBuffer) {
      return [text(`[binary data, ${(object as ArrayBuffer).byteLength} bytes]`), 0];
    }
    if (Array.isArray(object)) {
      used += 2;
      const result: JsonValue[] = [];
      for (let index = 0; index < object.length; index++) {
        if (over()) {
          result.push(TRUNCATED);
          break;
        }
        used += 1;
        result.push(child(object[index], depth, levels) ?? null);
      }
      return [result, levels.height];
    }
    if (object instanceof Set) {
      used += 2;
      const result: JsonValue[] = [];
      for (const item of object) {
        if (over()) {
          result.push(TRUNCATED);
          break;
        }
        used += 1;
        result.push(child(item, depth, levels) ?? null);
      }
      return [result, levels.height];
    }
    if (object instanceof Map) {
      used += 2;
      const entries = [...object.entries()];
      if (entries.every(([key]) => typeof key === 'string')) {
        const result: Record<string, JsonValue> = {};
        for (const [key, item] of entries) {
          if (over()) break;
          const name = redactRegisteredSecrets(key as string);
          used += name.length + 4;
          const converted = child(item, depth, levels);
          if (converted !== undefined) defineOwn(result, name, converted);
        }
        return [result, levels.height];
      }
      const result: JsonValue[] = [];
      for (const [key, item] of entries) {
        if (over()) {
          result.push(TRUNCATED);
          break;
        }
        used += 4;
        const pairLevels = { height: 0 };
        result.push([child(key, depth + 1, pairLevels) ?? null, child(item, depth + 1, pairLevels) ?? null]);
        levels.height = Math.max(levels.height, pairLevels.height + 1);
      }
      return [result, levels.height];
    }
    let toJSON: unknown;
    try {
      toJSON = (object as { toJSON?: unknown }).toJSON;
    } catch {
      toJSON = undefined;
    }
    if (typeof toJSON === 'function') {
      const replaced = read(() => (toJSON as () => unknown).call(object));
      if (replaced === object) return ['[Unreadable]', 0];
      const converted = child(replaced, depth, levels);
      return [converted, Math.max(0, levels.height - 1)];
    }
    used += 2;
    const result: Record<string, JsonValue> = {};
    const keys = Object.keys(object);
    for (let index = 0; index < keys.length; index++) {
      if (over()) break;
      const key = keys[index] as string;
      // Inline rather than through `read`: this loop runs for every key of every output.
      let item: unknown;
      try {
        item = (object as Record<string, unknown>)[key];
      } catch {
        item = '[Unreadable]';
      }
      const name = redactRegisteredSecrets(key);
      used += name.length + 4;
      const converted = child(item, depth, levels);
      if (converted === undefined) continue;
      // `__proto__` must stay an own data property, never a prototype change.
      if (name === '__proto__') defineOwn(result, name, converted);
      else result[name] = converted;
    }
    return [result, levels.height];
  };
  const result = convert(value, 0) ?? null;
  return { value: result, complete, bytes: used };
}

function defineOwn(target: Record<string, JsonValue>, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Converts any value into plain JSON without ever throwing: cycles become `"[Circular]"`, BigInt a decimal string,
 * `Map` an object (or entry pairs), `Set` an array, `Date` an ISO string, errors `{ name, message }`, binary data a
 * size note, `toJSON` is honoured, getters that throw become `"[Unreadable]"`, functions and symbols are dropped,
 * non-finite numbers become `null`, objects nested deeper than 64 levels `"[Too deep]"`. Registered secrets
 * (`registerSecret` of `@org/core`: the providers' keys) are redacted from every string and key.
 *
 * Bounded in time and memory: each object is read once, and an object met again (shared sub-objects, a DAG) reuses
 * its converted value, so a DAG of 28 levels whose every level references the next twice is read in 28 steps, not
 * 2^28. The result stands for at most `maxBytes` (default 16 MiB) of JSON text, shared parts counted each time they
 * appear; anything past that becomes `"[Truncated]"`, so `JSON.stringify` of the result is bounded too.
 *
 * @example
 * toJsonValue({ id: 12n, self: circular }); // { id: '12', self: '[Circular]' }
 */
export function toJsonValue(value: unknown, options: ToJsonValueOptions = {}): JsonValue {
  return convertWithin(value, boundOf(options.maxBytes ?? MAX_SERIALIZED_BYTES)).value;
}

function boundOf(budget: number): number {
  if (Number.isNaN(budget)) return MAX_SERIALIZED_BYTES;
  return Math.max(0, Math.min(budget, MAX_SERIALIZED_BYTES));
}

/** Output as the model sees it, and whether it was cut. */
export interface SerializedOutput {
  readonly output: JsonValue;
  readonly truncated: boolean;
  /**
   * UTF-8 size of the full serialised output; a lower bound when the output was larger than the memory bound
   * (`MAX_SERIALIZED_BYTES`) or the budget and was not serialised whole.
   */
  readonly bytes: number;
}

const OUTPUT_MARKER = { what: 'output', hint: 'ask for a narrower result to see more' } as const;

/**
 * Serialises a tool's output safely (see `toJsonValue`) and cuts it to `budgetBytes`. A cut output becomes a
 * string: the first bytes of the JSON text followed by a marker saying how much was left out
 * (`\n[output truncated: showing the first N of M bytes; ask for a narrower result to see more]`, from
 * `truncateText` of `@org/core`). The work and the memory are bounded by the budget (at most 16 MiB), whatever the
 * value: the walk stops once the text passes the budget. Registered secrets never reach the output. Never throws.
 *
 * @example
 * serializeOutput(hugeList, 50_000).truncated; // true
 */
export function serializeOutput(
  value: unknown,
  budgetBytes: number = DEFAULT_OUTPUT_BUDGET_BYTES,
): SerializedOutput {
  const limit = boundOf(budgetBytes);
  const budget = Number.isNaN(budgetBytes) ? limit : Math.max(0, budgetBytes);
  if (typeof value === 'string') {
    // Measured on the whole string; redacted (and kept) only as far as the budget can show.
    const bytes = utf8ByteLength(value);
    if (bytes <= budget) {
      const output = redactRegisteredSecrets(value);
      if (utf8ByteLength(output) <= budget) return { output, truncated: false, bytes };
    }
    const kept = value.length > limit + SECRET_MARGIN ? value.slice(0, limit + SECRET_MARGIN) : value;
    const output = truncateText(redactRegisteredSecrets(kept), limit, {
      ...OUTPUT_MARKER,
      totalBytes: bytes,
    });
    return { output, truncated: true, bytes };
  }
  // Read a little past the budget, so that the marker can give the exact size of most outputs.
  const converted = convertWithin(value, Math.min(MAX_SERIALIZED_BYTES, limit * 4 + MEASURED_BYTES));
  const json = converted.value;
  let text: string;
  try {
    text = typeof json === 'string' ? json : JSON.stringify(json);
  } catch {
    // Unreachable for converted values (depth and size are bounded); kept so that a bug is an observation too.
    return { output: '[The output could not be serialised.]', truncated: true, bytes: 0 };
  }
  const bytes = utf8ByteLength(text);
  if (converted.complete && bytes <= budget) return { output: json, truncated: false, bytes };
  const output = truncateText(text, limit, {
    ...OUTPUT_MARKER,
    totalBytes: converted.complete ? bytes : Math.max(bytes, converted.bytes),
    totalIsLowerBound: !converted.complete,
  });
  return { output, truncated: true, bytes: converted.complete ? bytes : Math.max(bytes, converted.bytes) };
}
