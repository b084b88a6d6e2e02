import { readStrictJson, stringifyWithin } from '@org/core';
import { serializeOutput } from '@org/tools';

/** JSON text written directly for an interpolated value; a larger or shared value goes through `serializeOutput`. */
const MAX_PLAIN_JSON_BYTES = 1024 * 1024;

/** Returned by {@link readPath} when a field or index does not exist. */
export const MISSING: unique symbol = Symbol('missing');

/** Why a string on a reference's path could not be read as JSON: the reference is missing, for this reason. */
export class UnreadableOutput {
  constructor(readonly reason: string) {}
}

/**
 * Reads a string that holds a JSON object or array, as a tool wrote it, with the strict reader of `@org/core`: a key
 * repeated with another value or an integer a double cannot hold exactly (`12345678901234567891`, an account
 * number) is refused, never "last wins" or rounded, so a `$ref` never passes a corrupted value on. A string that does
 * not start like an object or an array is left alone; one longer than `maxBytes` is not read (a reference into it is
 * missing, with the reason), so one huge output cannot make every reference to it parse megabytes.
 */
export function parseJsonContainer(value: string, maxBytes: number): unknown {
  let start = 0;
  while (start < value.length && value.charCodeAt(start) <= 32) start++;
  const first = value.charCodeAt(start);
  if (first !== 123 /* { */ && first !== 91 /* [ */) return value;
  // The tool's own text: `maxBytes` is a plan limit, the depth only guards the reader's stack.
  const read = readStrictJson(value, { maxBytes });
  if (read.ok) return read.value;
  if (read.limit === 'bytes') {
    return new UnreadableOutput(
      `the output is ${value.length}+ characters of text, more than the limit 'maxReferencedOutputBytes' of ${maxBytes} read to follow a reference`,
    );
  }
  // Not JSON at all (prose that starts with a bracket) is plain text: a path into it is simply missing.
  if (/^(unexpected|expected|invalid|unterminated|unescaped)/.test(read.reason)) return value;
  return new UnreadableOutput(`the output could not be read exactly: ${read.reason}`);
}

/**
 * Follows `path` through `value` by own properties only: inherited names (`toString`, `constructor`) are never
 * looked up, and a getter that throws counts as a missing field. A string met before the end of the path is
 * read by `readText` (see {@link parseJsonContainer}); an {@link UnreadableOutput} it returns is passed back.
 */
export function readPath(
  value: unknown,
  path: readonly string[],
  readText: (text: string) => unknown,
): unknown {
  let current = value;
  for (let index = 0; index < path.length; index++) {
    if (typeof current === 'string') current = readText(current);
    if (current instanceof UnreadableOutput) return current;
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
  // Bounded: a step's raw output may share sub-objects (a DAG), which JSON.stringify writes path by path; past
  // 1 MiB the bounded serialiser takes over (each object read once, at most 16 MiB, cut with a marker).
  const text = stringifyWithin(value, MAX_PLAIN_JSON_BYTES);
  if (text !== undefined) return text;
  const serialized = serializeOutput(value, Number.POSITIVE_INFINITY).output;
  return typeof serialized === 'string' ? serialized : JSON.stringify(serialized);
}
