import type { JsonSchema } from '@org/core';
import type { ToolRegistry } from '@org/tools';
import { followLocalRef } from './output-schema-field.js';
import { toolOutputSchema } from './tool-source.js';

/** Bounds of the output-field hint: every token of it is paid on each request that offers the plan tool. */
const MAX_DEPTH = 4;
const MAX_FIELDS = 12;
const MAX_TOOL_CHARACTERS = 300;
const MAX_TOTAL_CHARACTERS = 1_500;

const isSchema = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The object branches of a schema (itself, or those of its `anyOf` / `oneOf` / `allOf`), `$ref`s followed. */
function objectBranches(root: JsonSchema, schema: JsonSchema, depth: number): JsonSchema[] {
  const resolved = followLocalRef(root, schema);
  if (resolved === undefined || depth > 4) return [];
  const branches = [...(resolved.anyOf ?? []), ...(resolved.oneOf ?? []), ...(resolved.allOf ?? [])];
  const found = isSchema(resolved.properties) ? [resolved] : [];
  for (const branch of branches) if (isSchema(branch)) found.push(...objectBranches(root, branch, depth + 1));
  return found;
}

function arrayItems(root: JsonSchema, schema: JsonSchema): JsonSchema | undefined {
  const resolved = followLocalRef(root, schema);
  if (resolved === undefined) return undefined;
  const types =
    resolved.type === undefined ? [] : Array.isArray(resolved.type) ? resolved.type : [resolved.type];
  if (!types.includes('array') && resolved.items === undefined) return undefined;
  return isSchema(resolved.items) ? resolved.items : {};
}

/** `{a, b{c}, d[{e}], f[]}`: field names only, the shape a `$ref` path follows; empty for a scalar. */
function shape(root: JsonSchema, schema: JsonSchema, depth: number): string {
  const items = arrayItems(root, schema);
  if (items !== undefined) return `[${depth >= MAX_DEPTH ? '' : shape(root, items, depth + 1)}]`;
  const objects = objectBranches(root, schema, 0);
  if (objects.length === 0) return '';
  if (depth >= MAX_DEPTH) return '{…}';
  const fields = new Map<string, JsonSchema>();
  for (const object of objects) {
    for (const [name, property] of Object.entries(object.properties as Record<string, unknown>)) {
      if (!fields.has(name) && isSchema(property)) fields.set(name, property);
    }
  }
  const parts: string[] = [];
  for (const [name, property] of fields) {
    if (parts.length === MAX_FIELDS) {
      parts.push('…');
      break;
    }
    parts.push(`${name}${shape(root, property, depth + 1)}`);
  }
  return `{${parts.join(', ')}}`;
}

/**
 * The output fields of the tools that declare an output schema, for the plan tool's description, so that a model
 * writes `$ref` paths that exist rather than guessing: `Output fields: get_weather{city, temperature};
 * search{items[{id, url}]}.` Tools are named as the model sees them (provider names); the text is bounded, and
 * says so when it leaves tools out. Empty when no tool declares a useful output schema.
 */
export function describeOutputs(tools: ToolRegistry): string {
  const described: string[] = [];
  let characters = 0;
  let left = 0;
  for (const tool of tools.list()) {
    const schema = toolOutputSchema(tool);
    if (schema === undefined) continue;
    let text = shape(schema, schema, 0);
    if (text === '' || text === '[]') continue;
    if (text.length > MAX_TOOL_CHARACTERS) text = `${text.slice(0, MAX_TOOL_CHARACTERS - 1)}…`;
    const entry = `${tools.providerName(tool.name) ?? tool.name}${text}`;
    if (characters + entry.length > MAX_TOTAL_CHARACTERS) {
      left++;
      continue;
    }
    characters += entry.length + 2;
    described.push(entry);
  }
  if (described.length === 0) return '';
  return `Output fields: ${described.join('; ')}${left > 0 ? `; and ${left} more tools` : ''}.`;
}
