/** The marker that starts a reference inside an argument value. */
export const REFERENCE_PREFIX = '$ref:';

/**
 * A parsed `$ref`: the step whose output is referenced, and a path of own-property names (array indexes are
 * decimal digits).
 */
export interface Reference {
  /** The reference exactly as written, e.g. `$ref:search.items.0.id`. */
  readonly text: string;
  readonly stepId: string;
  readonly path: readonly string[];
  /** Index of the referenced step in the plan, filled in by validation (-1 until then). */
  stepIndex: number;
}

/** A step id, as allowed in plans and in references. */
export const STEP_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

// A reference is `$ref:` + a step id + zero or more `.segment`s. Segments use the same characters as ids, so a
// reference ends cleanly inside prose: in "Weather: $ref:a.temp." the final period is text.

/**
 * Names that exist on every object through its prototype. A path segment naming one is an invalid reference,
 * never a lookup, so `$ref:a.__proto__` or `$ref:a.constructor.constructor` cannot reach into the runtime.
 */
export const RESERVED_PATH_SEGMENTS: ReadonlySet<string> = new Set([
  ...Object.getOwnPropertyNames(Object.prototype),
  'prototype',
]);

/** A piece of a string value: literal text or a reference. */
export type TemplatePart = string | Reference;

/** How one string value uses references. */
export type StringTemplate =
  /** No reference: the string is used as is. */
  | { readonly kind: 'literal' }
  /** The whole value is one reference: the referenced value is inserted with its own type. */
  | { readonly kind: 'whole'; readonly reference: Reference }
  /** References inside longer text: each is inserted as text. */
  | { readonly kind: 'text'; readonly parts: readonly TemplatePart[]; readonly referenceCount: number };

/** A `$ref:` occurrence that is not followed by a step id. */
export interface MalformedReference {
  readonly text: string;
}

/** The result of scanning one string for references. */
export interface ScannedString {
  readonly template: StringTemplate;
  readonly malformed: readonly MalformedReference[];
}

const LITERAL: StringTemplate = Object.freeze({ kind: 'literal' });
const NO_PATH: readonly string[] = Object.freeze([]);
const NO_MALFORMED: readonly MalformedReference[] = Object.freeze([]);
const LITERAL_SCAN: ScannedString = Object.freeze({ template: LITERAL, malformed: NO_MALFORMED });

/**
 * Finds the references in one string value. Linear in the string's length; a string without `$ref:` costs one
 * `indexOf` and no allocation.
 *
 * @example
 * scanReferences('$ref:a.items.0'); // whole reference to step 'a', path ['items', '0']
 * scanReferences('Weather: $ref:a.temp'); // text with one reference
 */
export function scanReferences(value: string): ScannedString {
  let position = value.indexOf(REFERENCE_PREFIX);
  if (position === -1) return LITERAL_SCAN;
  // A hand-written scanner rather than a global regex: no match arrays, and a whole-value reference (the common
  // case) keeps the original string as its text.
  const length = value.length;
  let parts: TemplatePart[] | undefined;
  let malformed: MalformedReference[] | undefined;
  let last = 0;
  let referenceCount = 0;
  while (position !== -1) {
    const idStart = position + REFERENCE_PREFIX.length;
    let end = idStart;
    while (end < length && isReferenceCharacter(value.charCodeAt(end))) end++;
    if (end === idStart) {
      malformed ??= [];
      malformed.push({ text: value.slice(position, position + 24) });
      position = value.indexOf(REFERENCE_PREFIX, idStart);
      continue;
    }
    const stepId = value.slice(idStart, end);
    let path: string[] | undefined;
    while (
      end + 1 < length &&
      value.charCodeAt(end) === 46 /* . */ &&
      isReferenceCharacter(value.charCodeAt(end + 1))
    ) {
      let segmentEnd = end + 1;
      while (segmentEnd < length && isReferenceCharacter(value.charCodeAt(segmentEnd))) segmentEnd++;
      path ??= [];
      path.push(value.slice(end + 1, segmentEnd));
      end = segmentEnd;
    }
    const reference: Reference = {
      text: position === 0 && end === length ? value : value.slice(position, end),
      stepId,
      path: path ?? NO_PATH,
      stepIndex: -1,
    };
    parts ??= [];
    if (position > last) parts.push(value.slice(last, position));
    parts.push(reference);
    referenceCount++;
    last = end;
    position = value.indexOf(REFERENCE_PREFIX, end);
  }
  if (parts === undefined) return { template: LITERAL, malformed: malformed ?? NO_MALFORMED };
  if (last < length) parts.push(value.slice(last));
  const only = parts[0];
  if (parts.length === 1 && typeof only === 'object') {
    return { template: { kind: 'whole', reference: only }, malformed: malformed ?? NO_MALFORMED };
  }
  return { template: { kind: 'text', parts, referenceCount }, malformed: malformed ?? NO_MALFORMED };
}

/** Letters, digits, `_` and `-`: the characters of step ids and path segments. */
function isReferenceCharacter(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 95 ||
    code === 45
  );
}
