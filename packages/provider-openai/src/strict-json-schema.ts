import {
  type JsonSchema,
  OPENAI_STRICT_SCHEMA_FORMATS,
  OPENAI_STRICT_SCHEMA_KEYWORDS,
  OPENAI_STRICT_SCHEMA_MAX_PROPERTIES,
} from '@org/core';

const MAXIMUM_OBJECT_NESTING = 10;

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const typesOf = (node: Node): unknown[] =>
  node.type === undefined ? [] : Array.isArray(node.type) ? node.type : [node.type];

/**
 * Why a schema cannot be sent with `strict: true` as it is, or `undefined` when it can: an object at the root, every
 * object closed (`additionalProperties: false`) with all its properties `required`, only the keywords and formats
 * strict mode supports, every value typed, at most 5000 properties and 10 levels of objects. The schema is never
 * changed here: a schema that needs changes (optional properties made nullable, keywords removed) is sent non-strict.
 *
 * @example
 * strictSchemaProblem({ type: 'object', properties: { a: { type: 'string' } } }); // 'at (root): additionalProperties must be false'
 */
export function strictSchemaProblem(schema: JsonSchema): string | undefined {
  if (!isNode(schema)) return 'the schema is not an object';
  const rootTypes = typesOf(schema);
  if (rootTypes.length !== 1 || rootTypes[0] !== 'object' || schema.anyOf !== undefined) {
    return 'the root must be a single object type';
  }
  let properties = 0;
  const visit = (node: unknown, path: string, depth: number): string | undefined => {
    const at = path === '' ? '(root)' : path;
    if (!isNode(node)) return `at ${at}: not a schema object`;
    for (const key of Object.keys(node)) {
      if (!OPENAI_STRICT_SCHEMA_KEYWORDS.has(key))
        return `at ${at}: the keyword '${key}' is not supported in strict mode`;
    }
    if (typeof node.format === 'string' && !OPENAI_STRICT_SCHEMA_FORMATS.has(node.format)) {
      return `at ${at}: the format '${node.format}' is not supported in strict mode`;
    }
    if (node.$defs !== undefined) {
      if (!isNode(node.$defs)) return `at ${at}: $defs must be an object`;
      for (const [name, definition] of Object.entries(node.$defs)) {
        const problem = visit(definition, `${path}/$defs/${name}`, depth);
        if (problem !== undefined) return problem;
      }
    }
    if (node.$ref !== undefined)
      return typeof node.$ref === 'string' ? undefined : `at ${at}: $ref must be a string`;
    if (node.anyOf !== undefined) {
      if (!Array.isArray(node.anyOf)) return `at ${at}: anyOf must be a list`;
      for (const [index, branch] of node.anyOf.entries()) {
        const problem = visit(branch, `${path}/anyOf/${index}`, depth);
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
    const types = typesOf(node);
    if (types.length === 0 && node.enum === undefined && node.const === undefined) {
      return `at ${at}: a value without a type cannot be strict`;
    }
    if (types.includes('object')) {
      if (depth >= MAXIMUM_OBJECT_NESTING)
        return `at ${at}: more than ${MAXIMUM_OBJECT_NESTING} levels of objects`;
      if (node.additionalProperties !== false) return `at ${at}: additionalProperties must be false`;
      const own = isNode(node.properties) ? node.properties : {};
      const required = Array.isArray(node.required) ? node.required : [];
      const names = Object.keys(own);
      properties += names.length;
      if (properties > OPENAI_STRICT_SCHEMA_MAX_PROPERTIES)
        return `more than ${OPENAI_STRICT_SCHEMA_MAX_PROPERTIES} properties in all`;
      const missing = names.filter((name) => !required.includes(name));
      if (missing.length > 0) return `at ${at}: every property must be required (not: ${missing.join(', ')})`;
      for (const name of names) {
        const problem = visit(own[name], `${path}/properties/${name}`, depth + 1);
        if (problem !== undefined) return problem;
      }
    }
    if (types.includes('array')) {
      if (node.items === undefined) return `at ${at}: an array needs items`;
      const problem = visit(node.items, `${path}/items`, depth);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };
  return visit(schema, '', 0);
}
