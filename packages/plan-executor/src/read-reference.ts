/** Returned by {@link readPath} when a field or index does not exist. */
export const MISSING: unique symbol = Symbol('missing');

/** Parses a string that holds a JSON object or array; anything else is left alone. */
export function parseJsonContainer(value: string): unknown {
  let start = 0;
  while (start < value.length && value.charCodeAt(start) <= 32) start++;
  const first = value.charCodeAt(start);
  if (first !== 123 /* { */ && first !== 91 /* [ */) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/**
 * Follows `path` through `value` by own properties only: inherited names (`toString`, `constructor`) are never
 * looked up, and a getter that throws counts as a missing field. A string met before the end of the path is
 * parsed when it holds a JSON object or array.
 */
export function readPath(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (let index = 0; index < path.length; index++) {
    if (typeof current === 'string') current = parseJsonContainer(current);
    if (current === null || typeof current !== 'object') return MISSING;
    const segment = path[index]!;
    if (!Object.hasOwn(current, segment)) return MISSING;
    try {
      current = (current as Record<string, unknown>)[segment];
    } catch {
      return MISSING;
    }
  }
  return current;
}

/** Text for a value interpolated into a longer string: strings as they are, everything else as JSON. */
export function toInterpolatedText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === MISSING) return 'null';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object' || value === null) return String(value);
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return String(value);
  }
}
