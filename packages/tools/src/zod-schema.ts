import type { JsonSchema } from '@org/core';
import type * as zod from 'zod/v4/core';
import { toJSONSchema, util } from 'zod/v4/core';
import { InvalidToolSchemaError } from './errors.js';

/** Any zod 4 schema (classic or mini). */
export type ZodSchema = zod.$ZodType;

/** A JSON Schema object as found in the wild, before `normalizeJsonSchema` (`type: 'dict'`, `optional: true`, ...). */
export type LooseJsonSchema = Readonly<Record<string, unknown>>;

/** True for a zod 4 schema (classic or mini); false for a plain JSON Schema object. */
export function isZodSchema(value: unknown): value is ZodSchema {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

/** The JSON Schema of what a zod schema accepts as input (defaults make fields optional), without `$schema`. */
export function zodToJsonSchema(schema: ZodSchema, toolName?: string): JsonSchema {
  let converted: Record<string, unknown>;
  try {
    converted = toJSONSchema(schema, {
      io: 'input',
      unrepresentable: 'throw',
      target: 'draft-2020-12',
    }) as Record<string, unknown>;
  } catch (error) {
    throw new InvalidToolSchemaError({
      path: '',
      message: `the zod schema cannot be described as JSON Schema (${error instanceof Error ? error.message : String(error)}); a model can only send JSON`,
      cause: error,
      ...(toolName === undefined ? {} : { toolName }),
    });
  }
  const { $schema: _ignored, ...rest } = converted;
  return collapseLiteralUnions(rest) as JsonSchema;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const LITERAL_KEYS: ReadonlySet<string> = new Set(['type', 'const', 'description']);

/**
 * zod describes `z.union([z.literal('a'), z.literal('b')])` as `anyOf` of `const`s; models read an `enum` better,
 * and strict mode accepts it more widely. The meaning is the same.
 */
function collapseLiteralUnions(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(collapseLiteralUnions);
  if (!isRecord(node)) return node;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    Object.defineProperty(result, key, {
      value:
        key === 'enum' || key === 'const' || key === 'default' || key === 'examples'
          ? value
          : collapseLiteralUnions(value),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  const branches = result.anyOf;
  if (
    Array.isArray(branches) &&
    branches.length >= 2 &&
    branches.every(
      (branch) =>
        isRecord(branch) &&
        'const' in branch &&
        Object.keys(branch).every((key) => LITERAL_KEYS.has(key)) &&
        branch.description === undefined,
    )
  ) {
    const values = branches.map((branch) => (branch as Record<string, unknown>).const);
    const types = [
      ...new Set(
        branches
          .map((branch) => (branch as Record<string, unknown>).type)
          .filter((type) => type !== undefined),
      ),
    ];
    delete result.anyOf;
    if (types.length === branches.length || types.length > 0)
      result.type = types.length === 1 ? types[0] : types;
    result.enum = values;
  }
  return result;
}

/** The zod schema without the given top-level keys (hidden parameters), when it is an object schema. */
export function omitZodKeys(schema: ZodSchema, keys: readonly string[]): ZodSchema {
  if (keys.length === 0) return schema;
  const definition = schema._zod.def as { type: string; shape?: Record<string, unknown> };
  if (definition.type !== 'object' || definition.shape === undefined) return schema;
  const mask: Record<string, true> = {};
  for (const key of keys) if (Object.hasOwn(definition.shape, key)) mask[key] = true;
  if (Object.keys(mask).length === 0) return schema;
  // `util.omit` works for classic and mini object schemas alike and keeps the object's unknown-key policy.
  return util.omit(schema as zod.$ZodObject, mask) as ZodSchema;
}
