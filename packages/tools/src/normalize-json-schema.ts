import type { JsonSchema, JsonSchemaTypeName } from '@org/core';
import { InvalidToolSchemaError } from './errors.js';
import { defineOwn } from './json-parser.js';

/** Loose type names found in the wild (BFCL, Python and Java tool definitions) and what they mean. */
const TYPE_ALIASES: Readonly<Record<string, JsonSchemaTypeName | 'any'>> = {
  string: 'string',
  str: 'string',
  text: 'string',
  char: 'string',
  number: 'number',
  float: 'number',
  double: 'number',
  decimal: 'number',
  real: 'number',
  integer: 'integer',
  int: 'integer',
  long: 'integer',
  short: 'integer',
  byte: 'integer',
  bigint: 'integer',
  boolean: 'boolean',
  bool: 'boolean',
  object: 'object',
  dict: 'object',
  dictionary: 'object',
  map: 'object',
  hashmap: 'object',
  record: 'object',
  array: 'array',
  list: 'array',
  arraylist: 'array',
  tuple: 'array',
  set: 'array',
  sequence: 'array',
  null: 'null',
  none: 'null',
  nonetype: 'null',
  any: 'any',
};

const SCHEMA_MAP_KEYWORDS = [
  'properties',
  '$defs',
  'definitions',
  'patternProperties',
  'dependentSchemas',
] as const;
const SCHEMA_KEYWORDS = [
  'additionalProperties',
  'not',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
] as const;
const SCHEMA_LIST_KEYWORDS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;

type Named = { toolName?: string };

function join(path: string, segment: string): string {
  return path === '' ? segment : `${path}/${segment}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function normalizeType(value: unknown, path: string, named: Named): JsonSchemaTypeName[] | 'any' {
  const names = Array.isArray(value) ? value : [value];
  const result: JsonSchemaTypeName[] = [];
  for (const name of names) {
    if (typeof name !== 'string') {
      throw new InvalidToolSchemaError({
        path: join(path, 'type'),
        message: `'type' must be a string, got ${JSON.stringify(name)}`,
        ...named,
      });
    }
    const mapped = TYPE_ALIASES[name.trim().toLowerCase()];
    if (mapped === undefined) {
      throw new InvalidToolSchemaError({
        path: join(path, 'type'),
        message: `unknown type '${name}'. Use one of string, number, integer, boolean, object, array, null`,
        ...named,
      });
    }
    if (mapped === 'any') return 'any';
    if (!result.includes(mapped)) result.push(mapped);
  }
  return result;
}

/**
 * Turns a loosely written parameter schema into standard JSON Schema (draft 2020-12): `dict`/`HashMap` → `object`,
 * `float`/`double` → `number`, `long`/`int` → `integer`, `tuple`/`list` → `array`, `any` → no type constraint,
 * `items: [...]` → `prefixItems`, OpenAPI `nullable: true` → a `null` type, `optional: true` and per-property
 * `required: true` folded into the parent's `required`, `properties` without a type → `object`.
 * Unknown type names are an `InvalidToolSchemaError` naming the path; nothing is guessed.
 *
 * @example
 * normalizeJsonSchema({ type: 'dict', properties: { n: { type: 'float' } }, required: ['n'] });
 * // { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }
 */
export function normalizeJsonSchema(
  loose: unknown,
  options: { readonly toolName?: string } = {},
): JsonSchema {
  return normalizeNode(loose, '', options.toolName === undefined ? {} : { toolName: options.toolName });
}

function normalizeNode(loose: unknown, path: string, named: Named): JsonSchema {
  if (loose === true || (isRecord(loose) && Object.keys(loose).length === 0)) return {};
  if (loose === false) return { not: {} };
  if (!isRecord(loose)) {
    throw new InvalidToolSchemaError({
      path,
      message: `a schema must be an object, got ${JSON.stringify(loose) ?? typeof loose}`,
      ...named,
    });
  }
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(loose)) {
    if (key === 'optional' || key === '$schema') continue;
    if (key === 'required' && !Array.isArray(value)) continue; // per-property `required: true`, folded by the parent
    if (key === 'type') {
      const type = normalizeType(value, path, named);
      if (type !== 'any') defineOwn(result, 'type', type.length === 1 ? type[0] : type);
      continue;
    }
    if ((SCHEMA_MAP_KEYWORDS as readonly string[]).includes(key)) {
      if (!isRecord(value))
        throw new InvalidToolSchemaError({
          path: join(path, key),
          message: `'${key}' must be an object`,
          ...named,
        });
      const map: Record<string, unknown> = {};
      for (const [name, child] of Object.entries(value))
        defineOwn(map, name, normalizeNode(child, join(join(path, key), name), named));
      defineOwn(result, key, map);
      continue;
    }
    if ((SCHEMA_KEYWORDS as readonly string[]).includes(key)) {
      defineOwn(
        result,
        key,
        typeof value === 'boolean' && key !== 'not' ? value : normalizeNode(value, join(path, key), named),
      );
      continue;
    }
    if ((SCHEMA_LIST_KEYWORDS as readonly string[]).includes(key)) {
      if (!Array.isArray(value))
        throw new InvalidToolSchemaError({
          path: join(path, key),
          message: `'${key}' must be an array`,
          ...named,
        });
      defineOwn(
        result,
        key,
        value.map((child, index) => normalizeNode(child, join(join(path, key), String(index)), named)),
      );
      continue;
    }
    if (key === 'items') {
      if (Array.isArray(value)) {
        defineOwn(
          result,
          'prefixItems',
          value.map((child, index) => normalizeNode(child, join(join(path, 'items'), String(index)), named)),
        );
      } else
        defineOwn(
          result,
          'items',
          typeof value === 'boolean' ? value : normalizeNode(value, join(path, 'items'), named),
        );
      continue;
    }
    if (key === 'enum' && !Array.isArray(value)) {
      throw new InvalidToolSchemaError({
        path: join(path, 'enum'),
        message: "'enum' must be an array of allowed values",
        ...named,
      });
    }
    if (key === 'description' && typeof value !== 'string') {
      throw new InvalidToolSchemaError({
        path: join(path, 'description'),
        message: "'description' must be a string",
        ...named,
      });
    }
    defineOwn(result, key, value);
  }

  // Draft-7 tuples: `items: [...]` plus `additionalItems`.
  if (Array.isArray(loose.items) && result.additionalItems !== undefined) {
    defineOwn(result, 'items', result.additionalItems);
    delete result.additionalItems;
  }

  if (result.nullable === true) {
    delete result.nullable;
    const type = result.type;
    if (typeof type === 'string') defineOwn(result, 'type', type === 'null' ? type : [type, 'null']);
    else if (Array.isArray(type) && !type.includes('null')) defineOwn(result, 'type', [...type, 'null']);
    if (Array.isArray(result.enum) && !result.enum.includes(null))
      defineOwn(result, 'enum', [...result.enum, null]);
  } else if (result.nullable === false) delete result.nullable;

  if (result.type === undefined && isRecord(result.properties)) defineOwn(result, 'type', 'object');

  const listed = Array.isArray(loose.required) ? loose.required : [];
  if (listed.some((name) => typeof name !== 'string')) {
    throw new InvalidToolSchemaError({
      path: join(path, 'required'),
      message: "'required' must list property names",
      ...named,
    });
  }
  if (isRecord(loose.properties)) {
    const required = new Set<string>(listed.filter((name): name is string => typeof name === 'string'));
    for (const [name, child] of Object.entries(loose.properties)) {
      if (!isRecord(child)) continue;
      if (child.required === true) required.add(name);
      if (child.optional === true) required.delete(name);
    }
    if (required.size > 0) defineOwn(result, 'required', [...required]);
    else delete result.required;
  }
  return result as JsonSchema;
}
