import {
  type JsonSchema,
  type JsonSchemaTypeName,
  OPENAI_STRICT_SCHEMA_FORMATS,
  OPENAI_STRICT_SCHEMA_KEYWORDS,
  OPENAI_STRICT_SCHEMA_MAX_PROPERTIES,
  toGeminiOpenApiSchema,
} from '@org/core';
import { InvalidToolSchemaError } from './errors.js';
import { defineOwn } from './json-parser.js';
import { normalizeJsonSchema } from './normalize-json-schema.js';
import { isZodSchema, type LooseJsonSchema, type ZodSchema, zodToJsonSchema } from './zod-schema.js';

/** The JSON Schema dialects tools are described in. */
export type SchemaTarget =
  | 'json-schema'
  | 'openai-strict'
  | 'anthropic'
  | 'bedrock'
  | 'gemini'
  | 'gemini-openapi';

/** Every `SchemaTarget`. */
export const SCHEMA_TARGETS: readonly SchemaTarget[] = [
  'json-schema',
  'openai-strict',
  'anthropic',
  'bedrock',
  'gemini',
  'gemini-openapi',
];

/** Options of `toJsonSchema`. */
export interface ToJsonSchemaOptions {
  /** Default `json-schema`. */
  readonly target?: SchemaTarget;
  /** Named in errors. */
  readonly toolName?: string;
}

// Keywords outside OpenAI's strict subset (OPENAI_STRICT_SCHEMA_KEYWORDS of core) are removed (and, for constraints,
// restated in the description so the model still knows, while validation keeps enforcing them).
const RESTATED_KEYWORDS: ReadonlySet<string> = new Set([
  'minLength',
  'maxLength',
  'default',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'examples',
  'format',
]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function join(path: string, segment: string): string {
  return path === '' ? segment : `${path}/${segment}`;
}

function typesOf(schema: JsonSchema): JsonSchemaTypeName[] {
  if (schema.type === undefined) return [];
  return Array.isArray(schema.type) ? schema.type : [schema.type];
}

/** A deep copy that keeps `__proto__` keys as data and drops `undefined`. */
function cloneSchema<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => cloneSchema(item)) as T;
  if (!isRecord(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value))
    if (item !== undefined) defineOwn(copy, key, cloneSchema(item));
  return copy as T;
}

/**
 * The JSON Schema of a tool input in the given dialect.
 * - `json-schema`: standard draft 2020-12, loose dialects normalised (`dict`, `float`, ...).
 * - `openai-strict`: every object closed (`additionalProperties: false`), every property listed in `required`, the
 *   optional ones made nullable (validation turns that `null` back into "absent"), `oneOf` → `anyOf`, unsupported
 *   keywords removed and restated in the description. A schema strict mode cannot express (free-form objects,
 *   tuples, untyped values) is an `InvalidToolSchemaError`; `ToolRegistry.specs` then sends that tool non-strict.
 * - `anthropic`, `bedrock`: standard JSON Schema with an object at the root. Property names these providers refuse
 *   (`año_vehiculo`) are kept: their adapters rename them reversibly on the wire.
 * - `gemini`: standard JSON Schema with an object at the root, for Gemini's `parametersJsonSchema` (property names
 *   Gemini refuses are mapped by `@org/provider-google`, reversibly).
 * - `gemini-openapi`: Gemini's older OpenAPI-subset `parameters` (`toGeminiOpenApiSchema` of `@org/core`): nullable
 *   instead of null types, string-only enums, local references inlined, value-only constraints restated in the
 *   description. A schema it cannot express (free-form objects, untyped values, tuples, recursion, `allOf`) is an
 *   `InvalidToolSchemaError` naming the node.
 *
 * For every target, a property name that is not well-formed Unicode (a lone surrogate), which no provider can carry,
 * is an `InvalidToolSchemaError` naming its path.
 *
 * @example
 * toJsonSchema(z.object({ city: z.string(), days: z.number().optional() }), { target: 'openai-strict' });
 * // { type: 'object', properties: { city: { type: 'string' }, days: { type: ['number', 'null'] } },
 * //   required: ['city', 'days'], additionalProperties: false }
 */
export function toJsonSchema(
  schema: ZodSchema | JsonSchema | LooseJsonSchema,
  options: ToJsonSchemaOptions = {},
): JsonSchema {
  const target = options.target ?? 'json-schema';
  const named = options.toolName === undefined ? {} : { toolName: options.toolName };
  const base = isZodSchema(schema) ? zodToJsonSchema(schema, options.toolName) : normalizeJsonSchema(schema);
  assertPropertyNames(base, '', target, named);
  switch (target) {
    case 'json-schema':
      return cloneSchema(base);
    case 'anthropic':
    case 'bedrock':
      // Property names these providers refuse (`año_vehiculo`) are not checked here: their adapters rename them
      // reversibly on the wire (`mapToolPropertyNames` of `@org/core`), where the provider's rule is known.
      assertObjectRoot(base, target, named);
      return cloneSchema(base);
    case 'gemini':
      assertObjectRoot(base, target, named);
      return cloneSchema(base);
    case 'gemini-openapi': {
      assertObjectRoot(base, target, named);
      const converted = toGeminiOpenApiSchema(base);
      if (!converted.ok) throw new InvalidToolSchemaError({ ...converted.refusal, target, ...named });
      return cloneSchema(converted.schema);
    }
    case 'openai-strict':
      assertObjectRoot(base, target, named);
      assertStrictLimits(base, named);
      return strictify(cloneSchema(base), '', named);
    default:
      throw new InvalidToolSchemaError({ path: '', message: `unknown target '${String(target)}'`, ...named });
  }
}

function assertObjectRoot(schema: JsonSchema, target: SchemaTarget, named: { toolName?: string }): void {
  const types = typesOf(schema);
  if (
    types.length !== 1 ||
    types[0] !== 'object' ||
    schema.anyOf !== undefined ||
    schema.oneOf !== undefined
  ) {
    throw new InvalidToolSchemaError({
      path: '',
      target,
      message:
        'the input schema must be a single object type at its root (tool arguments are named parameters)',
      ...named,
    });
  }
}

// The only property names refused, for every target: those no provider can carry, even renamed. A name with a lone
// surrogate has no UTF-8 form, and tool schemas and the model's arguments travel as UTF-8 JSON, so the name the model
// writes back could never be the tool's. Names a provider merely refuses are renamed by its adapter.
function isWellFormedName(name: string): boolean {
  return !/\p{Surrogate}/u.test(name);
}

function assertPropertyNames(
  schema: unknown,
  path: string,
  target: SchemaTarget,
  named: { toolName?: string },
): void {
  if (Array.isArray(schema)) {
    for (const [index, child] of schema.entries())
      assertPropertyNames(child, join(path, String(index)), target, named);
    return;
  }
  if (!isRecord(schema)) return;
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && isRecord(value)) {
      for (const [name, child] of Object.entries(value)) {
        if (!isWellFormedName(name)) {
          throw new InvalidToolSchemaError({
            path: join(join(path, 'properties'), name),
            target,
            message: `the property name ${JSON.stringify(name)} is not well-formed Unicode (a lone surrogate), which no provider can carry`,
            ...named,
          });
        }
        assertPropertyNames(child, join(join(path, 'properties'), name), target, named);
      }
    } else if (
      typeof value === 'object' &&
      value !== null &&
      key !== 'enum' &&
      key !== 'const' &&
      key !== 'default' &&
      key !== 'examples'
    ) {
      assertPropertyNames(value, join(path, key), target, named);
    }
  }
}

// OpenAI structured outputs: at most 5000 object properties in all and 10 levels of object nesting.
const STRICT_MAXIMUM_PROPERTIES = OPENAI_STRICT_SCHEMA_MAX_PROPERTIES;
const STRICT_MAXIMUM_NESTING = 10;

function assertStrictLimits(schema: JsonSchema, named: { toolName?: string }): void {
  let properties = 0;
  const visit = (node: unknown, path: string, depth: number): void => {
    if (Array.isArray(node)) {
      for (const [index, child] of node.entries()) visit(child, join(path, String(index)), depth);
      return;
    }
    if (!isRecord(node)) return;
    if (isRecord(node.properties)) {
      if (depth > STRICT_MAXIMUM_NESTING) {
        throw new InvalidToolSchemaError({
          path,
          target: 'openai-strict',
          message: `objects are nested more than ${STRICT_MAXIMUM_NESTING} levels deep`,
          ...named,
        });
      }
      properties += Object.keys(node.properties).length;
      if (properties > STRICT_MAXIMUM_PROPERTIES) {
        throw new InvalidToolSchemaError({
          path,
          target: 'openai-strict',
          message: `more than ${STRICT_MAXIMUM_PROPERTIES} object properties in all`,
          ...named,
        });
      }
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples') continue;
      if (key === 'properties' && isRecord(value)) {
        for (const [name, child] of Object.entries(value))
          visit(child, join(join(path, 'properties'), name), depth + 1);
      } else if (typeof value === 'object' && value !== null) visit(value, join(path, key), depth);
    }
  };
  visit(schema, '', 1);
}

function restate(description: string | undefined, notes: string[]): string | undefined {
  if (notes.length === 0) return description;
  const text = notes.join('; ');
  return description === undefined || description === '' ? `(${text})` : `${description} (${text})`;
}

function makeNullable(schema: JsonSchema): JsonSchema {
  const types = typesOf(schema);
  if (types.includes('null')) return schema;
  if (schema.type !== undefined && schema.anyOf === undefined && schema.$ref === undefined) {
    const result: JsonSchema = { ...schema, type: [...types, 'null'] };
    if (Array.isArray(schema.enum)) result.enum = [...schema.enum, null];
    if (schema.const !== undefined) {
      delete result.const;
      result.enum = [schema.const, null];
    }
    return result;
  }
  if (Array.isArray(schema.anyOf)) {
    return { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] };
  }
  const { description, ...rest } = schema;
  return {
    anyOf: [rest, { type: 'null' }],
    ...(description === undefined ? {} : { description }),
  };
}

function strictify(schema: JsonSchema, path: string, named: { toolName?: string }): JsonSchema {
  const fail = (message: string): never => {
    throw new InvalidToolSchemaError({ path, target: 'openai-strict', message, ...named });
  };
  const result: Record<string, unknown> = {};
  const notes: string[] = [];
  if (schema.oneOf !== undefined) {
    if (schema.anyOf !== undefined) fail("'oneOf' next to 'anyOf' cannot be expressed in strict mode");
    schema = { ...schema, anyOf: schema.oneOf };
    delete schema.oneOf;
  }
  if (schema.allOf !== undefined) fail("'allOf' is not supported in strict mode");
  if (schema.not !== undefined) fail("'not' is not supported in strict mode");
  if (schema.prefixItems !== undefined) fail('tuples (prefixItems) are not supported in strict mode');
  if (
    schema.type === undefined &&
    schema.anyOf === undefined &&
    schema.$ref === undefined &&
    schema.enum === undefined &&
    schema.const === undefined
  ) {
    fail('a value of any type cannot be expressed in strict mode; give it a type');
  }
  for (const [key, value] of Object.entries(schema)) {
    if (!OPENAI_STRICT_SCHEMA_KEYWORDS.has(key)) {
      if (RESTATED_KEYWORDS.has(key)) notes.push(`${key}: ${JSON.stringify(value)}`);
      continue;
    }
    if (key === 'format' && (typeof value !== 'string' || !OPENAI_STRICT_SCHEMA_FORMATS.has(value))) {
      notes.push(`format: ${JSON.stringify(value)}`);
      continue;
    }
    defineOwn(result, key, value);
  }
  const types = typesOf(schema);
  if (types.includes('object') || schema.properties !== undefined) {
    const properties = isRecord(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : {};
    const extra = schema.additionalProperties;
    // `properties` absent (a dictionary) or extra keys allowed: strict mode has no way to say "any keys".
    if (schema.properties === undefined || (extra !== undefined && extra !== false)) {
      fail('an object with free-form keys (a dictionary) cannot be expressed in strict mode');
    }
    const required = new Set(schema.required ?? []);
    const strictProperties: Record<string, unknown> = {};
    for (const [name, child] of Object.entries(properties)) {
      const converted = strictify(child, join(join(path, 'properties'), name), named);
      defineOwn(strictProperties, name, required.has(name) ? converted : makeNullable(converted));
    }
    defineOwn(result, 'properties', strictProperties);
    defineOwn(result, 'required', Object.keys(properties));
    defineOwn(result, 'additionalProperties', false);
  }
  if (schema.items !== undefined) {
    if (Array.isArray(schema.items) || typeof schema.items !== 'object')
      fail("'items' must be one schema in strict mode");
    defineOwn(result, 'items', strictify(schema.items as JsonSchema, join(path, 'items'), named));
  } else if (types.includes('array'))
    fail('an array without an item schema cannot be expressed in strict mode');
  if (Array.isArray(schema.anyOf)) {
    defineOwn(
      result,
      'anyOf',
      schema.anyOf.map((child, index) => strictify(child, join(join(path, 'anyOf'), String(index)), named)),
    );
  }
  for (const mapKey of ['$defs', 'definitions'] as const) {
    const definitions = schema[mapKey];
    if (isRecord(definitions)) {
      const converted: Record<string, unknown> = {};
      for (const [name, child] of Object.entries(definitions)) {
        defineOwn(converted, name, strictify(child as JsonSchema, join(join(path, mapKey), name), named));
      }
      defineOwn(result, '$defs', converted);
    }
  }
  if (typeof result.$ref === 'string')
    defineOwn(result, '$ref', result.$ref.replace('#/definitions/', '#/$defs/'));
  const description = restate(typeof schema.description === 'string' ? schema.description : undefined, notes);
  if (description !== undefined) defineOwn(result, 'description', description);
  return result as JsonSchema;
}
