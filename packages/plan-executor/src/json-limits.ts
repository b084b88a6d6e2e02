/** Which limit a JSON value or text broke first, with the size found (a lower bound when counting stopped). */
export interface JsonLimitViolation {
  readonly limit: 'bytes' | 'depth';
  readonly actual: number;
}

/**
 * UTF-8 size of a string, answering in O(1) when the length alone decides: UTF-8 takes at least one byte and at
 * most three per UTF-16 code unit.
 */
export function exceedsUtf8Bytes(text: string, maximum: number): number | undefined {
  if (text.length > maximum) return text.length;
  if (text.length * 3 <= maximum) return undefined;
  const bytes = Buffer.byteLength(text, 'utf8');
  return bytes > maximum ? bytes : undefined;
}

/**
 * Checks JSON text against a byte and a nesting-depth limit without parsing it: one pass that counts brackets
 * outside strings, stopping as soon as the depth limit is passed.
 */
export function checkJsonText(
  text: string,
  maxBytes: number,
  maxDepth: number,
): JsonLimitViolation | undefined {
  const bytes = exceedsUtf8Bytes(text, maxBytes);
  if (bytes !== undefined) return { limit: 'bytes', actual: bytes };
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 92 /* \ */) index++;
      else if (code === 34 /* " */) inString = false;
    } else if (code === 34) inString = true;
    else if (code === 123 /* { */ || code === 91 /* [ */) {
      depth++;
      if (depth > maxDepth) return { limit: 'depth', actual: depth };
    } else if (code === 125 /* } */ || code === 93 /* ] */) depth--;
  }
  return undefined;
}

/**
 * Checks an already-parsed value against the same limits, stopping as soon as either is passed. The recursion
 * never goes deeper than `maxDepth`, so it is safe on any input (a cyclic object stops at the depth limit).
 * Sizes are those of the value's JSON text, counted approximately (strings by UTF-16 length, numbers as 8 bytes):
 * close enough for a limit that guards memory, and never an under-count by more than a factor of 3.
 */
export function checkJsonValue(
  value: unknown,
  maxBytes: number,
  maxDepth: number,
): JsonLimitViolation | undefined {
  return measureJsonValue(value, maxBytes, maxDepth).violation;
}

/**
 * The approximate JSON size of `value` (as {@link checkJsonValue} counts it), or the first limit it passes: the walk
 * stops there, so its cost is bounded by `maxBytes` whatever the value (a shared sub-object is counted once per
 * path, as its JSON text would repeat it; a cycle passes the depth limit).
 */
export function measureJsonValue(
  value: unknown,
  maxBytes: number,
  maxDepth: number,
): { readonly bytes: number; readonly violation: JsonLimitViolation | undefined } {
  let bytes = 0;
  let violation: JsonLimitViolation | undefined;
  const visit = (current: unknown, depth: number): boolean => {
    if (typeof current === 'string') bytes += current.length + 2;
    else if (current !== null && typeof current === 'object') {
      if (depth + 1 > maxDepth) {
        violation = { limit: 'depth', actual: depth + 1 };
        return false;
      }
      bytes += 2;
      if (Array.isArray(current)) {
        for (let index = 0; index < current.length; index++) {
          bytes += 1;
          if (!visit(current[index], depth + 1)) return false;
        }
      } else {
        for (const key of Object.keys(current)) {
          bytes += key.length + 4;
          if (!visit((current as Record<string, unknown>)[key], depth + 1)) return false;
        }
      }
    } else bytes += 8;
    if (bytes > maxBytes) {
      violation = { limit: 'bytes', actual: bytes };
      return false;
    }
    return true;
  };
  visit(value, 0);
  return { bytes, violation };
}
