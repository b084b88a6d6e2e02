import { REFERENCE_PREFIX } from './reference.js';

/** Letters, digits, `_` and `-`: the characters of step ids (as in `reference.ts`). */
function isIdCharacter(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 95 ||
    code === 45
  );
}

/**
 * Rewrites one string of the steps-object form into the canonical form: `$id` and `$id.field.0` (a `$` followed by
 * a letter, digit, `_` or `-`) become `$ref:id...`, `$$` becomes a literal `$`, `$ref:` stays as it is, and any other
 * `$` is literal. Linear in the string; a string without `$` is returned as it is.
 *
 * @example
 * expandShortReferences('$a1.score'); // '$ref:a1.score'
 * expandShortReferences('Paris: $paris.temp C, about $$20'); // 'Paris: $ref:paris.temp C, about $20'
 */
export function expandShortReferences(value: string): string {
  let position = value.indexOf('$');
  if (position === -1) return value;
  let result = '';
  let last = 0;
  while (position !== -1) {
    const next = value.charCodeAt(position + 1);
    if (next === 36 /* $ */) {
      result += value.slice(last, position + 1);
      last = position + 2;
      position = value.indexOf('$', last);
      continue;
    }
    if (value.startsWith(REFERENCE_PREFIX, position)) {
      position = value.indexOf('$', position + REFERENCE_PREFIX.length);
      continue;
    }
    if (isIdCharacter(next)) {
      result += `${value.slice(last, position)}${REFERENCE_PREFIX}`;
      last = position + 1;
    }
    position = value.indexOf('$', position + 1);
  }
  return result + value.slice(last);
}

/**
 * The first `$$ref:` of a string of the steps-object form, as written (up to 40 characters), or undefined. `$$` is a
 * literal `$` there, but a literal `$ref:` has no canonical form: every `$ref:` is a reference. So the text would
 * turn into the reference it was escaped from, and the plan is refused instead (see `parsePlan`).
 */
export function escapedReferenceMarker(value: string): string | undefined {
  let position = value.indexOf('$');
  while (position !== -1) {
    if (value.charCodeAt(position + 1) === 36 /* $ */) {
      if (value.startsWith(REFERENCE_PREFIX.slice(1), position + 2))
        return value.slice(position, position + 40);
      position = value.indexOf('$', position + 2);
      continue;
    }
    position = value.indexOf('$', position + 1);
  }
  return undefined;
}

/** The first string of `value` (walked like {@link expandArgumentReferences}) with an {@link escapedReferenceMarker}. */
export function findEscapedReferenceMarker(value: unknown): string | undefined {
  if (typeof value === 'string') return escapedReferenceMarker(value);
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = findEscapedReferenceMarker(item);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      const found = findEscapedReferenceMarker((value as Record<string, unknown>)[key]);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * The arguments of a step written in the steps-object form, with every string value rewritten by
 * {@link expandShortReferences} (keys are never references). Containers are copied only along the way to a string
 * that changes; the depth was bounded by the plan limits before this walk.
 */
export function expandArgumentReferences(args: Record<string, unknown>): Record<string, unknown> {
  return expandValue(args) as Record<string, unknown>;
}

function expandValue(value: unknown): unknown {
  if (typeof value === 'string') return expandShortReferences(value);
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item = value[index];
      const expanded = expandValue(item);
      if (expanded !== item) {
        copy ??= value.slice();
        copy[index] = expanded;
      }
    }
    return copy ?? value;
  }
  if (value !== null && typeof value === 'object') {
    let copy: Record<string, unknown> | undefined;
    for (const key of Object.keys(value)) {
      const item = (value as Record<string, unknown>)[key];
      const expanded = expandValue(item);
      if (expanded !== item) {
        copy ??= copyRecord(value as Record<string, unknown>);
        Object.defineProperty(copy, key, {
          value: expanded,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
    return copy ?? value;
  }
  return value;
}

/** A copy with every key an own data property (`__proto__` included). */
function copyRecord(record: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(record))
    Object.defineProperty(copy, key, {
      value: record[key],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return copy;
}
