import type { JsonSchema } from '@org/core';

/** What an output schema says about a `$ref` path. */
export type SchemaFieldLookup =
  | { readonly kind: 'known' }
  /** The schema cannot tell (no `properties`, extra fields allowed, a `$ref` it cannot follow, ...). */
  | { readonly kind: 'unknown' }
  | { readonly kind: 'missing'; readonly field: string; readonly available: readonly string[] }
  /** The path goes on into a number, boolean or null, which has no fields: `at` is the path to it. */
  | {
      readonly kind: 'scalar';
      readonly field: string;
      readonly at: readonly string[];
      readonly type: string;
    };

const SCALAR_TYPES: ReadonlySet<string> = new Set(['number', 'integer', 'boolean', 'null']);
const TYPE_WORDS: Readonly<Record<string, string>> = {
  number: 'a number',
  integer: 'a number',
  boolean: 'a boolean',
  null: 'null',
};

const KNOWN: SchemaFieldLookup = { kind: 'known' };
const UNKNOWN: SchemaFieldLookup = { kind: 'unknown' };
const MAX_BRANCHES = 64;

const isSchema = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Follows local `$ref`s (`#/$defs/x`, `#/definitions/x`, `#`); undefined when it cannot. */
export function followLocalRef(root: JsonSchema, schema: JsonSchema): JsonSchema | undefined {
  let current = schema;
  for (let hops = 0; typeof current.$ref === 'string'; hops++) {
    if (hops > 16) return undefined;
    const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(current.$ref);
    if (!match) return current.$ref === '#' ? root : undefined;
    const table = root[match[1] as '$defs' | 'definitions'];
    const next = isSchema(table) ? table[decodeURIComponent(match[2]!)] : undefined;
    if (!isSchema(next)) return undefined;
    current = next;
  }
  return current;
}

/**
 * Checks a `$ref` path against a tool's output JSON Schema, agreeing with what the runtime accepts: a field is
 * `missing` only when the schema lists `properties` and closes the object (`additionalProperties: false`, as
 * `z.strictObject` gives); an object without it keeps undeclared fields at run time (the output check lets them
 * through, as a plain `z.object` does), so a field it does not list may still be there. A path that goes on into
 * a number, boolean or null is `scalar` (a string may hold JSON, which a reference reads, so it is not). Through
 * `anyOf` / `oneOf` a field is missing only when every branch lacks it.
 */
export function lookupSchemaField(root: JsonSchema, path: readonly string[]): SchemaFieldLookup {
  let budget = MAX_BRANCHES;
  const visit = (schemaOrRef: JsonSchema, index: number): SchemaFieldLookup => {
    if (--budget < 0) return UNKNOWN;
    const schema = followLocalRef(root, schemaOrRef);
    if (schema === undefined) return UNKNOWN;
    if (index >= path.length) return KNOWN;
    const branches = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
    if (branches.length > 0) {
      let failed: SchemaFieldLookup | undefined;
      const available = new Set<string>();
      for (const branch of branches) {
        if (!isSchema(branch)) return UNKNOWN;
        const result = visit(branch, index);
        if (result.kind === 'known' || result.kind === 'unknown') return result;
        if (result.kind === 'missing') {
          if (failed?.kind !== 'missing') failed = result;
          for (const name of result.available) available.add(name);
        } else failed ??= result;
      }
      if (failed === undefined) return UNKNOWN;
      return failed.kind === 'missing' ? { ...failed, available: [...available] } : failed;
    }
    for (const part of schema.allOf ?? []) {
      if (!isSchema(part)) return UNKNOWN;
      const result = visit(part, index);
      if (result.kind === 'known' || result.kind === 'unknown') return result;
    }
    const segment = path[index]!;
    const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
    if (types.length > 0 && types.every((type) => SCALAR_TYPES.has(type))) {
      return {
        kind: 'scalar',
        field: segment,
        at: path.slice(0, index),
        type: types.map((type) => TYPE_WORDS[type] ?? type).join(' or '),
      };
    }
    if (types.includes('array') || schema.items !== undefined || schema.prefixItems !== undefined) {
      if (segment === 'length') return KNOWN;
      if (!/^\d+$/.test(segment)) return UNKNOWN;
      const position = Number(segment);
      const prefix = schema.prefixItems ?? (Array.isArray(schema.items) ? schema.items : undefined);
      const item = prefix?.[position] ?? (Array.isArray(schema.items) ? undefined : schema.items);
      return isSchema(item) ? visit(item, index + 1) : UNKNOWN;
    }
    const properties = schema.properties;
    if (!isSchema(properties)) return UNKNOWN;
    if (Object.hasOwn(properties, segment)) {
      const property = properties[segment];
      return isSchema(property) ? visit(property, index + 1) : UNKNOWN;
    }
    if (isSchema(schema.additionalProperties)) return visit(schema.additionalProperties, index + 1);
    if (schema.additionalProperties !== false || schema.patternProperties !== undefined) return UNKNOWN;
    return { kind: 'missing', field: segment, available: Object.keys(properties) };
  };
  return visit(root, 0);
}
