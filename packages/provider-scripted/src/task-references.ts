/**
 * The `$ref:` references of a task's arguments, resolved the way `@org/plan-executor` resolves a plan's: a value
 * that is one reference becomes the referenced value with its own type, references inside longer text are
 * interpolated as text (strings as they are, everything else as JSON), and a missing step or field is `null`.
 * Reimplemented here because this package depends only on `@org/core`; the character set of ids and path
 * segments, the own-property lookup and the JSON parsing of strings met along a path are the executor's.
 */

const PREFIX = '$ref:';
const MISSING: unique symbol = Symbol('missing');

/** One reference: the call it names and the path of fields below that call's output. */
export interface TaskReference {
  readonly callId: string;
  readonly path: readonly string[];
}

type Part = string | TaskReference;

/** Letters, digits, `_` and `-`: the characters of ids and path segments, as in plan-executor. */
function isReferenceCharacter(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 95 ||
    code === 45
  );
}

/** Splits a string into text and references; `undefined` when it holds none. */
function scan(value: string): Part[] | undefined {
  let position = value.indexOf(PREFIX);
  if (position === -1) return undefined;
  const parts: Part[] = [];
  let last = 0;
  while (position !== -1) {
    const idStart = position + PREFIX.length;
    let end = idStart;
    while (end < value.length && isReferenceCharacter(value.charCodeAt(end))) end++;
    if (end === idStart) {
      // `$ref:` without an id is text, as the executor's validation would report it rather than resolve it.
      position = value.indexOf(PREFIX, idStart);
      continue;
    }
    const callId = value.slice(idStart, end);
    const path: string[] = [];
    while (
      end + 1 < value.length &&
      value.charCodeAt(end) === 46 /* . */ &&
      isReferenceCharacter(value.charCodeAt(end + 1))
    ) {
      let segmentEnd = end + 1;
      while (segmentEnd < value.length && isReferenceCharacter(value.charCodeAt(segmentEnd))) segmentEnd++;
      path.push(value.slice(end + 1, segmentEnd));
      end = segmentEnd;
    }
    if (position > last) parts.push(value.slice(last, position));
    parts.push({ callId, path });
    last = end;
    position = value.indexOf(PREFIX, end);
  }
  if (parts.length === 0) return undefined;
  if (last < value.length) parts.push(value.slice(last));
  return parts;
}

/** The ids of the calls referenced anywhere in `value` (whole values and inside text), in order of appearance. */
export function referencedCallIds(value: unknown): string[] {
  if (typeof value === 'string') {
    const parts = scan(value) ?? [];
    return parts.flatMap((part) => (typeof part === 'string' ? [] : [part.callId]));
  }
  if (Array.isArray(value)) return value.flatMap(referencedCallIds);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(referencedCallIds);
  return [];
}

function parseJsonContainer(value: string): unknown {
  const trimmed = value.trimStart();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function lookup(outputs: Readonly<Record<string, unknown>>, reference: TaskReference): unknown {
  if (!Object.hasOwn(outputs, reference.callId)) return MISSING;
  let current: unknown = outputs[reference.callId];
  for (const segment of reference.path) {
    if (typeof current === 'string') current = parseJsonContainer(current);
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, segment)) return MISSING;
    current = (current as Record<string, unknown>)[segment];
  }
  return current === undefined ? MISSING : current;
}

function toInterpolatedText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === MISSING || value === undefined) return 'null';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object' || value === null) return String(value);
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return String(value);
  }
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // A data property, so a key named '__proto__' stays a key, as in JSON.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A copy of `value` with every reference filled from `outputs` (the outputs of the calls so far, by call id).
 *
 * @example
 * resolveTaskReferences({ t: '$ref:rome.temperatureC', s: 'Rome $ref:rome.temperatureC °C' }, { rome: { temperatureC: 21 } });
 * // { t: 21, s: 'Rome 21 °C' }
 */
export function resolveTaskReferences(value: unknown, outputs: Readonly<Record<string, unknown>>): unknown {
  if (typeof value === 'string') {
    const parts = scan(value);
    if (parts === undefined) return value;
    const only = parts[0];
    if (parts.length === 1 && typeof only === 'object') {
      const resolved = lookup(outputs, only);
      return resolved === MISSING ? null : resolved;
    }
    let text = '';
    for (const part of parts)
      text += typeof part === 'string' ? part : toInterpolatedText(lookup(outputs, part));
    return text;
  }
  if (Array.isArray(value)) return value.map((item) => resolveTaskReferences(item, outputs));
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) setOwn(copy, key, resolveTaskReferences(item, outputs));
    return copy;
  }
  return value;
}
