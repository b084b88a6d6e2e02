import type { JsonValue } from '@org/core';

/** Default budget of a tool's output in the model's context: 50 KB. */
export const DEFAULT_OUTPUT_BUDGET_BYTES = 50_000;

const MAXIMUM_DEPTH = 64;

function read(read: () => unknown): unknown {
  try {
    return read();
  } catch {
    return '[Unreadable]';
  }
}

/**
 * Converts any value into plain JSON without ever throwing: cycles become `"[Circular]"`, BigInt a decimal string,
 * `Map` an object (or entry pairs), `Set` an array, `Date` an ISO string, errors `{ name, message }`, binary data a
 * size note, `toJSON` is honoured, getters that throw become `"[Unreadable]"`, functions and symbols are dropped,
 * non-finite numbers become `null`.
 *
 * @example
 * toJsonValue({ id: 12n, self: circular }); // { id: '12', self: '[Circular]' }
 */
export function toJsonValue(value: unknown): JsonValue {
  const ancestors: object[] = [];
  const convert = (current: unknown, depth: number): JsonValue | undefined => {
    switch (typeof current) {
      case 'string':
      case 'boolean':
        return current;
      case 'number':
        return Number.isFinite(current) ? (Object.is(current, -0) ? 0 : current) : null;
      case 'bigint':
        return current.toString();
      case 'undefined':
      case 'function':
      case 'symbol':
        return undefined;
      default:
        break;
    }
    if (current === null) return null;
    const object = current as object;
    if (ancestors.includes(object)) return '[Circular]';
    if (depth >= MAXIMUM_DEPTH) return '[Too deep]';
    ancestors.push(object);
    try {
      return convertObject(object, depth);
    } catch {
      return '[Unreadable]';
    } finally {
      ancestors.pop();
    }
  };
  const convertObject = (object: object, depth: number): JsonValue | undefined => {
    if (object instanceof Date) return Number.isNaN(object.getTime()) ? null : object.toISOString();
    if (object instanceof Error) {
      return { name: String(read(() => object.name)), message: String(read(() => object.message)) };
    }
    if (ArrayBuffer.isView(object) || object instanceof ArrayBuffer) {
      return `[binary data, ${(object as ArrayBuffer).byteLength} bytes]`;
    }
    if (Array.isArray(object)) {
      return object.map((item) => convert(item, depth + 1) ?? null);
    }
    if (object instanceof Set) return [...object].map((item) => convert(item, depth + 1) ?? null);
    if (object instanceof Map) {
      const entries = [...object.entries()];
      if (entries.every(([key]) => typeof key === 'string')) {
        const result: Record<string, JsonValue> = {};
        for (const [key, item] of entries) {
          const converted = convert(item, depth + 1);
          if (converted !== undefined)
            Object.defineProperty(result, key as string, {
              value: converted,
              enumerable: true,
              writable: true,
              configurable: true,
            });
        }
        return result;
      }
      return entries.map(([key, item]) => [
        convert(key, depth + 1) ?? null,
        convert(item, depth + 1) ?? null,
      ]);
    }
    let toJSON: unknown;
    try {
      toJSON = (object as { toJSON?: unknown }).toJSON;
    } catch {
      toJSON = undefined;
    }
    if (typeof toJSON === 'function') {
      const replaced = read(() => (toJSON as () => unknown).call(object));
      return replaced === object ? '[Unreadable]' : convert(replaced, depth + 1);
    }
    const result: Record<string, JsonValue> = {};
    const keys = Object.keys(object);
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index] as string;
      // Inline rather than through `read`: this loop runs for every key of every output.
      let item: unknown;
      try {
        item = (object as Record<string, unknown>)[key];
      } catch {
        item = '[Unreadable]';
      }
      const converted = convert(item, depth + 1);
      if (converted === undefined) continue;
      // `__proto__` must stay an own data property, never a prototype change.
      if (key === '__proto__')
        Object.defineProperty(result, key, {
          value: converted,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else result[key] = converted;
    }
    return result;
  };
  return convert(value, 0) ?? null;
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff) {
      bytes += 4;
      index++;
    } else bytes += 3;
  }
  return bytes;
}

/** The longest prefix of `text` within `budget` UTF-8 bytes, never splitting a surrogate pair. */
function cutToBytes(text: string, budget: number): string {
  let bytes = 0;
  let index = 0;
  while (index < text.length) {
    const unit = text.charCodeAt(index);
    const pair = unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length;
    const size = unit < 0x80 ? 1 : unit < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > budget) break;
    bytes += size;
    index += pair ? 2 : 1;
  }
  return text.slice(0, index);
}

/** Output as the model sees it, and whether it was cut. */
export interface SerializedOutput {
  readonly output: JsonValue;
  readonly truncated: boolean;
  /** UTF-8 size of the full serialised output. */
  readonly bytes: number;
}

/**
 * Serialises a tool's output safely (see `toJsonValue`) and cuts it to `budgetBytes`. A cut output becomes a
 * string: the first bytes of the JSON text followed by a marker saying how much was left out.
 *
 * @example
 * serializeOutput(hugeList, 50_000).truncated; // true
 */
export function serializeOutput(
  value: unknown,
  budgetBytes: number = DEFAULT_OUTPUT_BUDGET_BYTES,
): SerializedOutput {
  const json = toJsonValue(value);
  const text = typeof json === 'string' ? json : JSON.stringify(json);
  const bytes = utf8Length(text);
  if (bytes <= budgetBytes) return { output: json, truncated: false, bytes };
  const marker = (shown: number): string =>
    `\n[output truncated: showing the first ${shown} of ${bytes} bytes; ask for a narrower result to see more]`;
  const room = Math.max(0, budgetBytes - utf8Length(marker(budgetBytes)));
  const head = cutToBytes(text, room);
  return { output: `${head}${marker(utf8Length(head))}`, truncated: true, bytes };
}
