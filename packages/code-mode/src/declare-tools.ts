import type { JsonSchema } from '@org/core';
import { type Tool, type ToolRegistry, toJsonSchema } from '@org/tools';

/** One function the program sees: a JavaScript identifier and the registry's name of the tool it calls. */
export interface ProgramFunction {
  readonly identifier: string;
  readonly toolName: string;
}

/** The functions a registry's tools become, and their TypeScript declarations for the model. */
export interface ToolDeclarations {
  readonly functions: readonly ProgramFunction[];
  /** `declare function name(args: {...}): Promise<...>;` lines, each after a one-line comment of its description. */
  readonly declarations: string;
}

// Words a function may not be named (reserved words, and globals a program needs).
const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for ' +
    'function if import in instanceof new null return super switch this throw true try typeof var void while with ' +
    'yield let static implements interface package private protected public await async eval arguments ' +
    'undefined NaN Infinity Object Array String Number Boolean Promise JSON Math Date console globalThis Error ' +
    'Map Set Symbol BigInt RegExp'
  ).split(' '),
);

const MAX_TYPE_DEPTH = 6;
/** A description longer than this is cut at a word: every tool's comment is paid on every request. */
const MAX_COMMENT_CHARACTERS = 200;

/**
 * The program's functions for a registry's tools: each named as providers see the tool (the registry's mapping,
 * `math.factorial` → `math_factorial`), made a valid identifier (`-` → `_`, a reserved word or a clash gets a `_N`
 * suffix), typed from the tool's input schema (hidden parameters removed) and declared output schema.
 *
 * @example
 * declareTools(registry).declarations;
 * // // Current weather for a city.
 * // declare function get_weather(args: { city: string; unit?: "celsius" | "fahrenheit" }): Promise<unknown>;
 */
export function declareTools(
  registry: ToolRegistry,
  options: {
    /** Each declaration after a one-line comment of its tool's description. Default true. */
    readonly descriptions?: boolean;
  } = {},
): ToolDeclarations {
  const taken = new Set<string>();
  const functions: ProgramFunction[] = [];
  const lines: string[] = [];
  for (const tool of registry.list()) {
    const identifier = identifierFor(registry.providerName(tool.name) ?? tool.name, taken);
    taken.add(identifier);
    functions.push({ identifier, toolName: tool.name });
    const comment = options.descriptions === false ? '' : oneLine(tool.description);
    if (comment !== '') lines.push(`// ${comment}`);
    const input = typeOf(tool.inputSchema, 0);
    // A tool without parameters is called as `name()`.
    const parameter = input === '{}' ? 'args?: {}' : `args: ${input}`;
    lines.push(`declare function ${identifier}(${parameter}): Promise<${outputType(tool)}>;`);
  }
  return { functions, declarations: lines.join('\n') };
}

function identifierFor(name: string, taken: ReadonlySet<string>): string {
  let base = name.replace(/[^A-Za-z0-9_$]/g, '_');
  if (/^[0-9]/.test(base)) base = `_${base}`;
  let identifier = base;
  for (let suffix = 2; RESERVED.has(identifier) || taken.has(identifier); suffix++)
    identifier = `${base}_${suffix}`;
  return identifier;
}

function oneLine(description: string): string {
  const flat = description.replace(/\s+/g, ' ').trim();
  if (flat.length <= MAX_COMMENT_CHARACTERS) return flat;
  const cut = flat.slice(0, MAX_COMMENT_CHARACTERS);
  const space = cut.lastIndexOf(' ');
  return `${space > 0 ? cut.slice(0, space) : cut}...`;
}

function outputType(tool: Tool): string {
  if (tool.output === undefined) return 'unknown';
  try {
    return typeOf(toJsonSchema(tool.output), 0);
  } catch {
    // An output schema that cannot be described is checked at run time all the same.
    return 'unknown';
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON Schema as a compact TypeScript type; whatever it cannot say exactly is `unknown`, never a guess. */
function typeOf(schema: unknown, depth: number): string {
  if (!isRecord(schema) || depth > MAX_TYPE_DEPTH) return 'unknown';
  const record = schema as JsonSchema & Record<string, unknown>;
  if (Array.isArray(record.enum)) return record.enum.map(literalType).join(' | ') || 'never';
  if (Object.hasOwn(record, 'const')) return literalType(record.const);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = record[key];
    if (Array.isArray(options)) return union(options.map((option) => typeOf(option, depth + 1)));
  }
  const type = record.type;
  if (Array.isArray(type)) return union(type.map((single) => typeOf({ ...record, type: single }, depth + 1)));
  switch (type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const item = typeOf(record.items, depth + 1);
      return /^[\w".]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
    }
    case 'object':
      return objectType(record, depth);
    default:
      return isRecord(record.properties) ? objectType(record, depth) : 'unknown';
  }
}

/**
 * A literal as a TypeScript type, strings single-quoted when they can be: the declarations travel inside a provider's
 * JSON, where each double quote costs an escape.
 */
function literalType(value: unknown): string {
  if (typeof value === 'string' && /^[^'\\\n]*$/.test(value)) return `'${value}'`;
  return JSON.stringify(value) ?? 'unknown';
}

function objectType(record: Record<string, unknown>, depth: number): string {
  const properties = isRecord(record.properties) ? record.properties : {};
  const required = new Set(Array.isArray(record.required) ? record.required.map(String) : []);
  const fields = Object.keys(properties).map((key) => {
    const name = /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
    return `${name}${required.has(key) ? '' : '?'}: ${typeOf(properties[key], depth + 1)}`;
  });
  const extra = record.additionalProperties;
  if (isRecord(extra)) fields.push(`[key: string]: ${typeOf(extra, depth + 1)}`);
  if (fields.length === 0) return extra === false || depth === 0 ? '{}' : 'Record<string, unknown>';
  return `{ ${fields.join('; ')} }`;
}

function union(types: readonly string[]): string {
  const unique = [...new Set(types)];
  if (unique.includes('unknown')) return 'unknown';
  return unique.join(' | ') || 'never';
}
