import type { JsonSchema } from '@org/core';

/** What an output schema says about a `$ref` path. */
export type SchemaFieldLookup =
  | { readonly kind: 'known' }
  /** The schema cannot tell (no `properties`, extra fields allowed, a `$ref` it cannot follow, ...). */
  | { readonly kind: 'unknown' }
  | { readonly kind: 'missing'; readonly field: string; readonly available: readonly string[] };

const KNOWN: SchemaFieldLookup = { kind: 'known' };
const UNKNOWN: SchemaFieldLookup = { kind: 'unknown' };
const MAX_BRANCHES = 64;

const isSchema = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function followLocalRef(root: JsonSchema, schema: JsonSchema): JsonSchema | undefined {
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
 * Checks a `$ref` path against a tool's output JSON Schema. A field is `missing` only when the schema lists
 * `properties` and does not allow others (`additionalProperties` unset or `false`); through `anyOf` / `oneOf`
 * a field is missing only when every branch lacks it.
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
      let missing: SchemaFieldLookup | undefined;
      const available = new Set<string>();
      for (const branch of branches) {
        if (!isSchema(branch)) return UNKNOWN;
        const result = visit(branch, index);
        if (result.kind !== 'missing') return result;
        missing ??= result;
        for (const name of result.available) available.add(name);
      }
      return missing?.kind === 'missing' ? { ...missing, available: [...available] } : UNKNOWN;
    }
    for (const part of schema.allOf ?? []) {
      if (!isSchema(part)) return UNKNOWN;
      const result = visit(part, index);
      if (result.kind !== 'missing') return result;
    }
    const segment = path[index]!;
    const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
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
    if (schema.additionalProperties === true || isSchema(schema.additionalProperties)) {
      return isSchema(schema.additionalProperties) ? visit(schema.additionalProperties, index + 1) : UNKNOWN;
    }
    if (schema.patternProperties !== undefined) return UNKNOWN;
    return { kind: 'missing', field: segment, available: Object.keys(properties) };
  };
  return visit(root, 0);
}
