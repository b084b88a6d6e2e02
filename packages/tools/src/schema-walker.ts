import { closestMatch, type JsonSchema, type JsonSchemaTypeName, LimitExceededError } from '@org/core';
import { childPath, indexPath } from './argument-path.js';
import type { ToolArgumentIssue } from './errors.js';
import { defineOwn, JsonParseFailure, jsonEqual, parseJsonStrict } from './json-parser.js';
import { type ArgumentLimits, assertTextWithinLimits } from './limits.js';

/** The kinds of coercion validation may apply; each one converts back to exactly what the model sent. */
export type CoercionKind =
  | 'string-to-number'
  | 'string-to-integer'
  | 'string-to-boolean'
  | 'number-to-string'
  | 'json-string-to-array'
  | 'json-string-to-object'
  | 'value-to-array'
  | 'null-to-absent'
  | 'string-to-enum-value';

/** One coercion applied to a model's arguments, recorded on the validation result. */
export interface Coercion {
  /** Where, in the same form as issue paths: `days`, `stops[0].lat`. */
  readonly path: string;
  readonly kind: CoercionKind;
  /** The value the model sent. */
  readonly from: unknown;
  /** The value used instead (`undefined` for `null-to-absent`). */
  readonly to: unknown;
}

/** Settings and accumulators of one walk. */
export interface WalkContext {
  readonly root: JsonSchema;
  readonly coerce: boolean;
  readonly limits: Required<ArgumentLimits>;
  /** Top-level keys set by the application (hidden parameters); a model that sends one gets a specific message. */
  readonly hidden: ReadonlySet<string>;
  /**
   * Which objects that list `properties` but say nothing of `additionalProperties` refuse other keys. `everywhere`
   * for zod tools (a zod object is closed; zod would drop the key silently, so it is reported); `top-level` for
   * tools defined by JSON Schema: their parameters are closed (an unknown parameter is a typo worth a did-you-mean),
   * while nested objects follow JSON Schema and accept other keys. Default `everywhere`.
   */
  readonly implicitlyClosed?: 'everywhere' | 'top-level';
  /**
   * Work left for this validation, shared by every probe of it (`anyOf` branches, `not`): each visit of a value
   * under a schema costs one. Unions nested at every level (a recursive schema) would otherwise try branches per
   * level and take time exponential in the depth of the model's value; past the budget the walk throws
   * `LimitExceededError` (`validationWork`). Unset: unbounded (callers that walk trusted values).
   */
  readonly budget?: { remaining: number; readonly maximum: number };
  issues: ToolArgumentIssue[];
  coercions: Coercion[];
}

export { childPath } from './argument-path.js';

/** The marker a walk returns for a value that did not validate (its issues are in the context). */
export const INVALID: unique symbol = Symbol('invalid');

const TRUE_WORDS: ReadonlySet<string> = new Set(['true', 'yes', 'on', '1']);
const FALSE_WORDS: ReadonlySet<string> = new Set(['false', 'no', 'off', '0']);
const NUMBER_TEXT = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;
const patternCache = new Map<string, RegExp>();

/**
 * A did-you-mean that is never a wild guess: at most one edit per three characters, and nothing for names shorter
 * than three characters (`z` is not a typo of `x`).
 */
function suggestName(input: string, candidates: readonly string[]): string | undefined {
  if (input.length < 3) return undefined;
  return closestMatch(input, candidates, { maxDistance: Math.max(1, Math.floor(input.length / 3)) });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typesOf(schema: JsonSchema): readonly JsonSchemaTypeName[] {
  if (schema.type === undefined) return [];
  return Array.isArray(schema.type) ? schema.type : [schema.type];
}

/** A short, safe rendering of a value for messages. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') {
    const text = JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
    return `the string ${text}`;
  }
  if (typeof value === 'number')
    return Number.isFinite(value) ? `the number ${Object.is(value, -0) ? '-0' : value}` : `${value}`;
  if (typeof value === 'boolean') return `${value}`;
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

function matchesType(type: JsonSchemaTypeName, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'object':
      return isRecord(value);
    case 'array':
      return Array.isArray(value);
    default:
      return false;
  }
}

function typeLabel(types: readonly JsonSchemaTypeName[]): string {
  const labels = types.map((type) =>
    type === 'integer'
      ? 'an integer'
      : type === 'array' || type === 'object'
        ? `an ${type}`
        : type === 'null'
          ? 'null'
          : `a ${type}`,
  );
  return labels.length <= 1
    ? (labels[0] ?? 'a value')
    : `${labels.slice(0, -1).join(', ')} or ${labels[labels.length - 1]}`;
}

/** Whether a schema accepts `null` as such (so `null` must not be read as "absent"). */
function acceptsNull(schema: JsonSchema | boolean, root: JsonSchema, depth = 0): boolean {
  if (typeof schema === 'boolean') return schema;
  if (depth > 32) return false;
  if (schema.$ref !== undefined) {
    const target = resolveRef(schema.$ref, root);
    if (target !== undefined && acceptsNull(target, root, depth + 1)) return true;
  }
  if (Array.isArray(schema.enum)) return schema.enum.includes(null);
  if (schema.const !== undefined) return schema.const === null;
  if (Array.isArray(schema.anyOf) && schema.anyOf.some((branch) => acceptsNull(branch, root, depth + 1)))
    return true;
  if (Array.isArray(schema.oneOf) && schema.oneOf.some((branch) => acceptsNull(branch, root, depth + 1)))
    return true;
  const types = typesOf(schema);
  if (types.length === 0)
    return schema.anyOf === undefined && schema.oneOf === undefined && schema.$ref === undefined;
  return types.includes('null');
}

function resolveRef(reference: string, root: JsonSchema): JsonSchema | undefined {
  if (reference === '#') return root;
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(reference);
  if (match === null) return undefined;
  const definitions = root[match[1] as '$defs' | 'definitions'];
  const name = (match[2] as string).replace(/~1/g, '/').replace(/~0/g, '~');
  if (!isRecord(definitions) || !Object.hasOwn(definitions, name)) return undefined;
  return definitions[name] as JsonSchema;
}

function parseEmbeddedJson(text: string, context: WalkContext): unknown {
  try {
    assertTextWithinLimits(text, context.limits);
    return parseJsonStrict(text, []);
  } catch (error) {
    if (error instanceof JsonParseFailure || LimitExceededError.isInstance(error)) return INVALID;
    throw error;
  }
}

/** Tries the coercions towards one type; returns the converted value or `INVALID`. */
function coerceTo(type: JsonSchemaTypeName, value: unknown, path: string, context: WalkContext): unknown {
  const record = (kind: CoercionKind, to: unknown): unknown => {
    context.coercions.push({ path, kind, from: value, to });
    return to;
  };
  switch (type) {
    case 'number':
    case 'integer': {
      if (typeof value !== 'string' || !NUMBER_TEXT.test(value)) return INVALID;
      const number = Number(value);
      // Round trip: `1e400`, `-0`, `3.50` and 20-digit integers do not convert back unchanged, so they stay errors.
      if (!Number.isFinite(number) || String(number) !== value) return INVALID;
      if (type === 'integer' && !Number.isSafeInteger(number)) return INVALID;
      return record(type === 'integer' ? 'string-to-integer' : 'string-to-number', number);
    }
    case 'boolean': {
      if (typeof value !== 'string') return INVALID;
      const word = value.trim().toLowerCase();
      if (TRUE_WORDS.has(word)) return record('string-to-boolean', true);
      if (FALSE_WORDS.has(word)) return record('string-to-boolean', false);
      return INVALID;
    }
    case 'string': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return INVALID;
      const text = String(value);
      if (!Object.is(Number(text), value)) return INVALID;
      return record('number-to-string', text);
    }
    case 'array': {
      if (typeof value === 'string' && value.trimStart().startsWith('[')) {
        const parsed = parseEmbeddedJson(value, context);
        return Array.isArray(parsed) ? record('json-string-to-array', parsed) : INVALID;
      }
      if (value === null || value === undefined) return INVALID;
      return record('value-to-array', [value]);
    }
    case 'object': {
      if (typeof value !== 'string' || !value.trimStart().startsWith('{')) return INVALID;
      const parsed = parseEmbeddedJson(value, context);
      return isRecord(parsed) ? record('json-string-to-object', parsed) : INVALID;
    }
    default:
      return INVALID;
  }
}

function typeHint(types: readonly JsonSchemaTypeName[], value: unknown): string | undefined {
  if (
    typeof value === 'string' &&
    (types.includes('number') || types.includes('integer')) &&
    NUMBER_TEXT.test(value)
  ) {
    return `The text ${JSON.stringify(value)} does not convert to a number exactly; send a JSON number${types.includes('integer') ? ' that is a whole number within ±9007199254740991' : ''}.`;
  }
  if (types.includes('integer') && typeof value === 'number') return 'Send a whole number.';
  return undefined;
}

/**
 * Validates `value` against `schema`, coercing where `context.coerce` allows. Returns the (possibly converted)
 * value, or `INVALID` with the issues appended to the context. Objects are rebuilt with own data properties only,
 * so keys such as `__proto__` stay plain data.
 */
export function walk(
  schema: JsonSchema | boolean,
  value: unknown,
  path: string,
  context: WalkContext,
  refDepth = 0,
): unknown {
  if (context.budget !== undefined && --context.budget.remaining < 0) {
    throw new LimitExceededError({
      limit: 'validationWork',
      maximum: context.budget.maximum,
      actual: context.budget.maximum + 1,
      message:
        'The arguments take too long to check against this schema (unions tried at every level). Send flatter or smaller arguments.',
    });
  }
  if (schema === true) return value;
  if (schema === false) {
    context.issues.push({ path, problem: 'no value is allowed here.', suggestion: 'Remove it.' });
    return INVALID;
  }
  let current = value;
  const issuesBefore = context.issues.length;

  if (typeof schema.$ref === 'string') {
    const target = resolveRef(schema.$ref, context.root);
    if (target === undefined || refDepth > 64) {
      context.issues.push({ path, problem: `the schema reference '${schema.$ref}' cannot be resolved.` });
      return INVALID;
    }
    current = walk(target, current, path, context, refDepth + 1);
    if (current === INVALID) return INVALID;
  }

  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches)) {
    current = walkBranches(branches, current, path, context, refDepth);
    if (current === INVALID) return INVALID;
  }
  if (Array.isArray(schema.allOf)) {
    for (const part of schema.allOf) {
      current = walk(part, current, path, context, refDepth);
      if (current === INVALID) return INVALID;
    }
  }

  const types = typesOf(schema);
  if (types.length > 0 && !types.some((type) => matchesType(type, current))) {
    let converted: unknown = INVALID;
    if (context.coerce) {
      for (const type of types) {
        converted = coerceTo(type, current, path, context);
        if (converted !== INVALID) break;
      }
    }
    if (converted === INVALID) {
      const hint = typeHint(types, current);
      context.issues.push({
        path,
        problem: `expected ${typeLabel(types)}, got ${describeValue(current)}.`,
        ...(hint === undefined ? {} : { suggestion: hint }),
      });
      return INVALID;
    }
    current = converted;
  }

  if (Array.isArray(schema.enum) && !schema.enum.some((allowed) => jsonEqual(allowed, current))) {
    current = matchEnum(schema.enum, current, path, context);
    if (current === INVALID) return INVALID;
  }
  if (schema.const !== undefined && !jsonEqual(schema.const, current)) {
    current = matchEnum([schema.const], current, path, context);
    if (current === INVALID) return INVALID;
  }

  if (typeof current === 'string') checkString(schema, current, path, context);
  else if (typeof current === 'number') checkNumber(schema, current, path, context);
  else if (Array.isArray(current)) current = walkArray(schema, current, path, context, refDepth);
  else if (isRecord(current)) current = walkObject(schema, current, path, context, refDepth);

  if (schema.not !== undefined && current !== INVALID) {
    const probe: WalkContext = { ...context, coerce: false, issues: [], coercions: [] };
    if (walk(schema.not, current, path, probe, refDepth) !== INVALID) {
      context.issues.push({ path, problem: `${describeValue(current)} is not allowed here.` });
      return INVALID;
    }
  }
  return context.issues.length > issuesBefore ? INVALID : current;
}

function jsonKind(value: unknown): JsonSchemaTypeName {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonSchemaTypeName;
}

function walkBranches(
  branches: readonly JsonSchema[],
  value: unknown,
  path: string,
  context: WalkContext,
  refDepth: number,
): unknown {
  const attempts: Array<{ issues: ToolArgumentIssue[]; compatible: boolean }> = [];
  for (const coerce of context.coerce ? [false, true] : [false]) {
    for (const branch of branches) {
      const probe: WalkContext = { ...context, coerce, issues: [], coercions: [] };
      const result = walk(branch, value, path, probe, refDepth);
      if (result !== INVALID) {
        context.coercions.push(...probe.coercions);
        return result;
      }
      if (coerce === context.coerce) {
        const types = typesOf(branch);
        const kind = jsonKind(value);
        const compatible =
          types.length === 0 || types.includes(kind) || (kind === 'integer' && types.includes('number'));
        attempts.push({ issues: probe.issues, compatible });
      }
    }
  }
  const compatible = attempts.filter((attempt) => attempt.compatible);
  if (compatible.length > 0) {
    const best = compatible.reduce((left, right) =>
      right.issues.length < left.issues.length ? right : left,
    );
    context.issues.push(...best.issues);
    return INVALID;
  }
  const shapes = branches.map((branch) =>
    branch.type === undefined ? 'a value' : typeLabel(typesOf(branch)),
  );
  context.issues.push({
    path,
    problem: `expected ${[...new Set(shapes)].join(' or ')}, got ${describeValue(value)}.`,
  });
  return INVALID;
}

function renderAllowed(values: readonly unknown[]): string {
  const shown = values.slice(0, 20).map((value) => JSON.stringify(value));
  return `${shown.join(', ')}${values.length > 20 ? `, ... (${values.length} in all)` : ''}`;
}

function matchEnum(allowed: readonly unknown[], value: unknown, path: string, context: WalkContext): unknown {
  if (context.coerce) {
    if (typeof value === 'string') {
      const member = allowed.find(
        (candidate) =>
          (typeof candidate === 'number' || typeof candidate === 'boolean') && String(candidate) === value,
      );
      if (member !== undefined) {
        context.coercions.push({ path, kind: 'string-to-enum-value', from: value, to: member });
        return member;
      }
    } else if (typeof value === 'number' && Number.isFinite(value)) {
      const text = String(value);
      if (Object.is(Number(text), value) && allowed.includes(text)) {
        context.coercions.push({ path, kind: 'number-to-string', from: value, to: text });
        return text;
      }
    }
  }
  const strings = allowed.filter((candidate): candidate is string => typeof candidate === 'string');
  const near = typeof value === 'string' ? suggestName(value, strings) : undefined;
  context.issues.push({
    path,
    problem:
      allowed.length === 1
        ? `must be ${JSON.stringify(allowed[0])}; got ${describeValue(value)}.`
        : `must be one of ${renderAllowed(allowed)}; got ${describeValue(value)}.`,
    ...(near === undefined ? {} : { suggestion: `Did you mean ${JSON.stringify(near)}?` }),
  });
  return INVALID;
}

function codePointLength(text: string): number {
  let length = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff) index++;
    length++;
  }
  return length;
}

function compilePattern(pattern: string): RegExp | undefined {
  let compiled = patternCache.get(pattern);
  if (compiled === undefined) {
    try {
      compiled = new RegExp(pattern, 'u');
    } catch {
      try {
        compiled = new RegExp(pattern);
      } catch {
        return undefined;
      }
    }
    if (patternCache.size > 1000) patternCache.clear();
    patternCache.set(pattern, compiled);
  }
  return compiled;
}

function checkString(schema: JsonSchema, value: string, path: string, context: WalkContext): void {
  if (schema.minLength !== undefined || schema.maxLength !== undefined) {
    const length = codePointLength(value);
    if (schema.minLength !== undefined && length < schema.minLength) {
      context.issues.push({
        path,
        problem: `must be at least ${schema.minLength} characters long; got ${length}.`,
      });
    }
    if (schema.maxLength !== undefined && length > schema.maxLength) {
      context.issues.push({
        path,
        problem: `must be at most ${schema.maxLength} characters long; got ${length}.`,
      });
    }
  }
  if (typeof schema.pattern === 'string') {
    if (value.length > context.limits.maxPatternInputLength) {
      context.issues.push({
        path,
        problem: `is ${value.length} characters long, too long to check against its pattern (at most ${context.limits.maxPatternInputLength}).`,
      });
      return;
    }
    const pattern = compilePattern(schema.pattern);
    if (pattern === undefined || !pattern.test(value)) {
      context.issues.push({
        path,
        problem: `must match the pattern ${schema.pattern}; got ${describeValue(value)}.`,
      });
    }
  }
}

function checkNumber(schema: JsonSchema, value: number, path: string, context: WalkContext): void {
  const push = (problem: string): void => {
    context.issues.push({ path, problem: `${problem}; got ${Object.is(value, -0) ? '-0' : value}.` });
  };
  if (typeof schema.minimum === 'number' && value < schema.minimum)
    push(`must be at least ${schema.minimum}`);
  if (typeof schema.maximum === 'number' && value > schema.maximum) push(`must be at most ${schema.maximum}`);
  if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum)
    push(`must be greater than ${schema.exclusiveMinimum}`);
  if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum)
    push(`must be less than ${schema.exclusiveMaximum}`);
  if (typeof schema.multipleOf === 'number' && schema.multipleOf > 0) {
    const quotient = value / schema.multipleOf;
    if (Math.abs(quotient - Math.round(quotient)) > 1e-9) push(`must be a multiple of ${schema.multipleOf}`);
  }
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isRecord(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

function walkArray(
  schema: JsonSchema,
  value: readonly unknown[],
  path: string,
  context: WalkContext,
  refDepth: number,
): unknown {
  const result: unknown[] = [];
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
  let failed = false;
  for (let index = 0; index < value.length; index++) {
    const itemSchema: JsonSchema | boolean | undefined =
      index < prefix.length ? prefix[index] : (schema.items as JsonSchema | boolean | undefined);
    if (itemSchema === undefined) {
      result.push(value[index]);
      continue;
    }
    if (itemSchema === false) {
      context.issues.push({
        path: indexPath(path, index),
        problem: `is one item too many: at most ${prefix.length} item${prefix.length === 1 ? '' : 's'} allowed.`,
        suggestion: 'Remove it.',
      });
      failed = true;
      continue;
    }
    const item = walk(itemSchema, value[index], indexPath(path, index), context, refDepth);
    if (item === INVALID) failed = true;
    else result.push(item);
  }
  if (typeof schema.minItems === 'number' && value.length < schema.minItems) {
    context.issues.push({
      path,
      problem: `must have at least ${schema.minItems} item${schema.minItems === 1 ? '' : 's'}; got ${value.length}.`,
    });
    failed = true;
  }
  if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) {
    context.issues.push({
      path,
      problem: `must have at most ${schema.maxItems} item${schema.maxItems === 1 ? '' : 's'}; got ${value.length}.`,
    });
    failed = true;
  }
  if (schema.uniqueItems === true && !failed) {
    const seen = new Set<string>();
    for (let index = 0; index < result.length; index++) {
      const key = canonicalJson(result[index]);
      if (seen.has(key)) {
        context.issues.push({
          path: indexPath(path, index),
          problem: 'repeats an earlier item; items must be unique.',
        });
        failed = true;
        break;
      }
      seen.add(key);
    }
  }
  return failed ? INVALID : result;
}

function describeParameter(name: string, schema: JsonSchema | boolean | undefined): string {
  if (schema === undefined || typeof schema === 'boolean') return `Add "${name}".`;
  const types = typesOf(schema);
  const type = types.length > 0 ? ` (${types.join(' or ')})` : '';
  const allowed = Array.isArray(schema.enum) ? ` One of ${renderAllowed(schema.enum)}.` : '';
  const description =
    typeof schema.description === 'string' && schema.description !== '' ? `: ${schema.description}` : '';
  const sentence = `Add "${name}"${type}${description}`;
  return `${sentence}${/[.!?]$/.test(sentence) ? '' : '.'}${allowed}`;
}

function walkObject(
  schema: JsonSchema,
  value: Record<string, unknown>,
  path: string,
  context: WalkContext,
  refDepth: number,
): unknown {
  const properties = isRecord(schema.properties)
    ? (schema.properties as Record<string, JsonSchema>)
    : undefined;
  const required = Array.isArray(schema.required) ? schema.required : [];
  const additional = schema.additionalProperties;
  const patternProperties = isRecord(schema.patternProperties)
    ? (schema.patternProperties as Record<string, JsonSchema>)
    : undefined;
  // An object that declares its properties is closed unless the schema opens it (`additionalProperties: true` or a
  // schema) or, in a tool defined by JSON Schema, is nested (see `implicitlyClosed`): an unknown parameter is
  // reported, never silently dropped. One without `properties` is a dictionary.
  const closed =
    additional === false ||
    (additional === undefined &&
      properties !== undefined &&
      (path === '' || context.implicitlyClosed !== 'top-level'));
  const result: Record<string, unknown> = {};
  const absent = new Set<string>();
  // Keys an open object accepts without declaring them: one close to a missing required name is its misspelling.
  const undeclared: string[] = [];
  let failed = false;
  const keys = Object.keys(value);
  // Computed once per object, not once per unknown key: a model can send thousands of unknown keys.
  let missingNames: string[] | undefined;
  for (const key of keys) {
    const item = value[key];
    const keyPath = childPath(path, key);
    if (properties !== undefined && Object.hasOwn(properties, key)) {
      const propertySchema = properties[key] as JsonSchema;
      if (item === undefined) {
        absent.add(key);
        continue;
      }
      if (
        item === null &&
        context.coerce &&
        !required.includes(key) &&
        !acceptsNull(propertySchema, context.root)
      ) {
        // OpenAI strict mode makes optional fields nullable; `null` there means "not given".
        context.coercions.push({ path: keyPath, kind: 'null-to-absent', from: null, to: undefined });
        absent.add(key);
        continue;
      }
      const checked = walk(propertySchema, item, keyPath, context, refDepth);
      if (checked === INVALID) failed = true;
      else defineOwn(result, key, checked);
      continue;
    }
    if (path === '' && context.hidden.has(key)) {
      context.issues.push({
        path: keyPath,
        problem: 'is set by the application, not by the model.',
        suggestion: `Remove "${key}"; its value is supplied automatically.`,
      });
      failed = true;
      continue;
    }
    let matchedPattern = false;
    if (patternProperties !== undefined) {
      for (const [pattern, patternSchema] of Object.entries(patternProperties)) {
        const compiled =
          key.length <= context.limits.maxPatternInputLength ? compilePattern(pattern) : undefined;
        if (compiled?.test(key)) {
          matchedPattern = true;
          const checked = walk(patternSchema, item, keyPath, context, refDepth);
          if (checked === INVALID) failed = true;
          else defineOwn(result, key, checked);
          break;
        }
      }
    }
    if (matchedPattern) continue;
    if (closed) {
      missingNames ??=
        properties === undefined ? [] : Object.keys(properties).filter((name) => !Object.hasOwn(value, name));
      const near = suggestName(key, missingNames);
      const known = properties === undefined ? [] : Object.keys(properties);
      context.issues.push({
        path: keyPath,
        problem: 'is not a parameter of this tool.',
        suggestion:
          near !== undefined
            ? `Did you mean "${near}"?`
            : known.length === 0
              ? 'This object takes no parameters; remove it.'
              : `Known parameters: ${known
                  .slice(0, 30)
                  .map((name) => `"${name}"`)
                  .join(', ')}.`,
      });
      failed = true;
      continue;
    }
    undeclared.push(key);
    if (item === undefined) continue;
    const checked =
      additional === true || additional === undefined
        ? item
        : walk(additional, item, keyPath, context, refDepth);
    if (checked === INVALID) failed = true;
    else defineOwn(result, key, checked);
  }
  for (const name of required) {
    if (!Object.hasOwn(value, name) || absent.has(name)) {
      const misspelt = suggestName(name, undeclared);
      context.issues.push({
        path: childPath(path, name),
        problem: 'is a required parameter and is missing.',
        suggestion:
          misspelt === undefined
            ? describeParameter(name, properties?.[name])
            : `Rename "${misspelt}" to "${name}".`,
      });
      failed = true;
    }
  }
  const count = keys.length - absent.size;
  if (typeof schema.minProperties === 'number' && count < schema.minProperties) {
    context.issues.push({
      path,
      problem: `must have at least ${schema.minProperties} properties; got ${count}.`,
    });
    failed = true;
  }
  if (typeof schema.maxProperties === 'number' && count > schema.maxProperties) {
    context.issues.push({
      path,
      problem: `must have at most ${schema.maxProperties} properties; got ${count}.`,
    });
    failed = true;
  }
  return failed ? INVALID : result;
}
