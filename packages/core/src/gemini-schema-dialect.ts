import type { JsonSchema, JsonSchemaTypeName, JsonValue } from './json.js';

/**
 * The OpenAPI 3.0 subset Gemini's older `parameters` / `responseSchema` fields take (the API's `Schema` object,
 * https://ai.google.dev/api/caching#Schema), in one place: the `gemini-openapi` target of `@org/tools` converts to
 * it, and `@org/provider-google` converts with it when a model is declared to need it. Unlike JSON Schema it has no
 * `additionalProperties`, no `$ref`, no `allOf` / `not` / conditionals, no tuples; `enum` lists strings only; a value
 * that may be null is `nullable: true` instead of a `null` type; an object must list its properties.
 */
export const GEMINI_OPENAPI_SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);

/** Where a schema cannot be expressed in Gemini's OpenAPI subset, and why. */
export interface GeminiSchemaRefusal {
  /** JSON-pointer-like path of the node (`properties/filters/additionalProperties`), `''` for the root. */
  readonly path: string;
  readonly message: string;
}

/** The result of `toGeminiOpenApiSchema`: the converted schema, or where and why it cannot be expressed. */
export type GeminiSchemaConversion =
  | { readonly ok: true; readonly schema: JsonSchema }
  | { readonly ok: false; readonly refusal: GeminiSchemaRefusal };

// Keywords that only constrain values: dropped and restated in the description, as the `openai-strict` target does
// (validation by @org/tools still enforces them), so the model still reads them.
const RESTATED: ReadonlySet<string> = new Set([
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'uniqueItems',
  'examples',
  'const',
]);

// Keywords without an equivalent whose loss would change what the model may send: refused with their path.
const REFUSED: Readonly<Record<string, string>> = {
  allOf: '`allOf` has no equivalent in the OpenAPI subset; merge the subschemas into one object',
  not: '`not` has no equivalent in the OpenAPI subset',
  if: 'conditional schemas (`if` / `then` / `else`) have no equivalent in the OpenAPI subset',
  patternProperties:
    '`patternProperties` (keys chosen by the model) cannot be expressed: list the properties',
  prefixItems: 'tuples (`prefixItems`) cannot be expressed: use an object with named fields',
  dependentSchemas: '`dependentSchemas` has no equivalent in the OpenAPI subset',
  unevaluatedProperties: '`unevaluatedProperties` has no equivalent in the OpenAPI subset',
};

// The formats Gemini documents per type; another format is restated in the description.
const FORMATS: Readonly<Record<string, readonly string[]>> = {
  string: ['enum', 'date-time'],
  number: ['float', 'double'],
  integer: ['int32', 'int64'],
};

/** Nesting of `$ref`s followed while inlining; a deeper chain is a recursive schema. */
const MAX_REFERENCE_DEPTH = 32;

class Refused extends Error {
  constructor(readonly refusal: GeminiSchemaRefusal) {
    super(refusal.message);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function join(path: string, segment: string): string {
  return path === '' ? segment : `${path}/${segment}`;
}

/** An own-keys object that keeps `__proto__` as data. */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function restate(description: unknown, notes: readonly string[]): string | undefined {
  if (notes.length === 0) return typeof description === 'string' ? description : undefined;
  const prefix = typeof description === 'string' && description !== '' ? `${description} ` : '';
  return `${prefix}(${notes.join('; ')})`;
}

/**
 * Converts a JSON Schema into Gemini's OpenAPI-subset `Schema`, keeping lower-case type names (the API accepts
 * them, and the result stays a `JsonSchema` for the rest of the library):
 * - `type: [T, 'null']`, an `anyOf` branch `{ type: 'null' }` and `null` in an `enum` become `nullable: true`;
 *   several non-null types become `anyOf`; `oneOf` becomes `anyOf`.
 * - local `$ref`s (`#/$defs/...`, `#/definitions/...`) are inlined; a recursive one is refused.
 * - a non-string `enum` or a `const` is restated in the description (validation still enforces it), as are
 *   `exclusiveMinimum`, `multipleOf`, `uniqueItems`, `examples`, formats the API does not list, and
 *   `additionalProperties: false` is dropped (a Gemini object has only the listed properties).
 * - refused, with the path of the node: a free-form object (`additionalProperties` as a schema, or no properties),
 *   an untyped value, a bare `null` type, `allOf`, `not`, conditionals, tuples, `patternProperties`.
 *
 * @example
 * toGeminiOpenApiSchema({ type: 'object', properties: { unit: { type: ['string', 'null'], enum: ['c', 'f', null] } } });
 * // { ok: true, schema: { type: 'object', properties: { unit: { type: 'string', nullable: true, enum: ['c', 'f'] } } } }
 */
export function toGeminiOpenApiSchema(schema: JsonSchema): GeminiSchemaConversion {
  try {
    return { ok: true, schema: convert(schema, '', schema, []) };
  } catch (error) {
    if (error instanceof Refused) return { ok: false, refusal: error.refusal };
    throw error;
  }
}

function refuse(path: string, message: string): never {
  throw new Refused({ path, message });
}

function resolveReference(root: JsonSchema, reference: string, path: string): unknown {
  if (!reference.startsWith('#/')) {
    return refuse(
      path,
      `the reference ${JSON.stringify(reference)} is not local; only '#/$defs/...' is inlined`,
    );
  }
  let node: unknown = root;
  for (const raw of reference.slice(2).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isRecord(node) || !Object.hasOwn(node, segment)) {
      return refuse(path, `the reference ${JSON.stringify(reference)} points nowhere`);
    }
    node = node[segment];
  }
  return node;
}

function typesOf(node: Record<string, unknown>, path: string): JsonSchemaTypeName[] {
  const type = node.type;
  if (type === undefined) return [];
  const list = Array.isArray(type) ? type : [type];
  for (const name of list) {
    if (typeof name !== 'string') refuse(join(path, 'type'), 'a type name must be a string');
  }
  return list as JsonSchemaTypeName[];
}

function convert(node: unknown, path: string, root: JsonSchema, references: readonly string[]): JsonSchema {
  if (!isRecord(node))
    return refuse(path, 'a subschema must be an object (a boolean schema cannot be expressed)');
  if (typeof node.$ref === 'string') {
    if (references.includes(node.$ref) || references.length >= MAX_REFERENCE_DEPTH) {
      return refuse(path, `the reference ${JSON.stringify(node.$ref)} is recursive, which cannot be inlined`);
    }
    const { $ref, ...siblings } = node;
    const target = resolveReference(root, $ref, path);
    if (!isRecord(target)) return refuse(path, `the reference ${JSON.stringify($ref)} is not a schema`);
    return convert({ ...target, ...siblings }, path, root, [...references, $ref]);
  }
  for (const [keyword, message] of Object.entries(REFUSED)) {
    if (Object.hasOwn(node, keyword)) refuse(join(path, keyword), message);
  }

  const notes: string[] = [];
  const result: Record<string, unknown> = {};
  let nullable = node.nullable === true;
  let types = typesOf(node, path);
  if (types.includes('null')) {
    nullable = true;
    types = types.filter((type) => type !== 'null');
    if (types.length === 0 && node.anyOf === undefined && node.oneOf === undefined) {
      refuse(join(path, 'type'), 'a value that can only be null cannot be expressed');
    }
  }

  const alternatives = node.anyOf ?? node.oneOf;
  const alternativesKeyword = node.anyOf === undefined ? 'oneOf' : 'anyOf';
  if (alternatives !== undefined) {
    if (!Array.isArray(alternatives))
      return refuse(join(path, alternativesKeyword), 'must be a list of schemas');
    const branches: JsonSchema[] = [];
    for (const [index, branch] of alternatives.entries()) {
      if (isRecord(branch) && branch.type === 'null' && Object.keys(branch).length === 1) {
        nullable = true;
        continue;
      }
      branches.push(convert(branch, join(join(path, alternativesKeyword), String(index)), root, references));
    }
    if (branches.length === 0) return refuse(path, 'a value that can only be null cannot be expressed');
    if (types.length === 0 && branches.length === 1 && !hasOwnSchemaKeywords(node)) {
      // `anyOf: [X, { type: 'null' }]`, the usual optional value: X itself, nullable.
      const only = { ...(branches[0] as JsonSchema) };
      if (nullable) only.nullable = true;
      if (typeof node.description === 'string' && only.description === undefined)
        only.description = node.description;
      return only;
    }
    result.anyOf = branches;
  } else if (types.length === 0) {
    return refuse(path, 'an untyped value (any JSON) cannot be expressed: give it a type');
  }

  if (types.length > 1) {
    // Several types: one branch each, the node's own keywords on the branch they apply to.
    const branches = types.map((type) =>
      convertTyped(
        { ...node, type, description: undefined, title: undefined },
        type,
        path,
        root,
        references,
        [],
      ),
    );
    result.anyOf = [...((result.anyOf as JsonSchema[] | undefined) ?? []), ...branches];
    copyAnnotations(node, result, notes);
  } else if (types.length === 1) {
    Object.assign(result, convertTyped(node, types[0] as JsonSchemaTypeName, path, root, references, notes));
  } else {
    copyAnnotations(node, result, notes);
  }
  if (nullable) result.nullable = true;
  const description = restate(result.description, notes);
  if (description !== undefined) result.description = description;
  return result as JsonSchema;
}

function hasOwnSchemaKeywords(node: Record<string, unknown>): boolean {
  return Object.keys(node).some(
    (key) => !['anyOf', 'oneOf', 'description', 'title', 'nullable'].includes(key),
  );
}

function copyAnnotations(
  node: Record<string, unknown>,
  result: Record<string, unknown>,
  notes: string[],
): void {
  if (typeof node.title === 'string') result.title = node.title;
  if (typeof node.description === 'string') result.description = node.description;
  for (const keyword of RESTATED) {
    if (Object.hasOwn(node, keyword)) notes.push(`${keyword}: ${JSON.stringify(node[keyword])}`);
  }
}

function convertTyped(
  node: Record<string, unknown>,
  type: JsonSchemaTypeName,
  path: string,
  root: JsonSchema,
  references: readonly string[],
  notes: string[],
): JsonSchema {
  const result: Record<string, unknown> = { type };
  copyAnnotations(node, result, notes);
  if (typeof node.format === 'string') {
    if (FORMATS[type]?.includes(node.format)) result.format = node.format;
    else notes.push(`format: ${node.format}`);
  }
  if (Array.isArray(node.enum)) {
    const values = node.enum.filter((value: JsonValue) => value !== null);
    if (type === 'string' && values.every((value: JsonValue) => typeof value === 'string')) {
      result.enum = values;
      if (values.length < node.enum.length) result.nullable = true;
    } else {
      notes.push(`one of: ${node.enum.map((value: JsonValue) => JSON.stringify(value)).join(', ')}`);
    }
  }
  if (typeof node.const === 'string' && type === 'string') {
    result.enum = [node.const];
    notes.splice(notes.indexOf(`const: ${JSON.stringify(node.const)}`), 1);
  }
  for (const keyword of ['default', 'example'] as const) {
    if (Object.hasOwn(node, keyword)) result[keyword] = node[keyword];
  }
  switch (type) {
    case 'string':
      for (const keyword of ['minLength', 'maxLength', 'pattern'] as const) {
        if (Object.hasOwn(node, keyword)) result[keyword] = node[keyword];
      }
      break;
    case 'number':
    case 'integer':
      for (const keyword of ['minimum', 'maximum'] as const) {
        if (Object.hasOwn(node, keyword)) result[keyword] = node[keyword];
      }
      break;
    case 'array': {
      if (Array.isArray(node.items)) refuse(join(path, 'items'), 'tuples cannot be expressed: use an object');
      if (node.items === undefined) refuse(path, 'an array must say what its items are (`items`)');
      result.items = convert(node.items, join(path, 'items'), root, references);
      for (const keyword of ['minItems', 'maxItems'] as const) {
        if (Object.hasOwn(node, keyword)) result[keyword] = node[keyword];
      }
      break;
    }
    case 'object': {
      const additional = node.additionalProperties;
      if (additional !== undefined && additional !== false) {
        refuse(
          join(path, 'additionalProperties'),
          'a free-form object (keys chosen by the model) cannot be expressed: list its properties',
        );
      }
      const properties = node.properties;
      if (!isRecord(properties) || Object.keys(properties).length === 0) {
        refuse(
          path,
          'an object without properties cannot be expressed (Gemini requires them): list its properties',
        );
      }
      const converted: Record<string, unknown> = {};
      for (const [name, child] of Object.entries(properties)) {
        define(converted, name, convert(child, join(join(path, 'properties'), name), root, references));
      }
      result.properties = converted;
      if (Array.isArray(node.required)) result.required = [...node.required];
      for (const keyword of ['minProperties', 'maxProperties', 'propertyOrdering'] as const) {
        if (Object.hasOwn(node, keyword)) result[keyword] = node[keyword];
      }
      break;
    }
    default:
      break;
  }
  return result as JsonSchema;
}
