import type { JsonSchema } from '@org/core';
import { InvalidToolSchemaError, UnsafePatternError } from './errors.js';
import { defineOwn } from './json-parser.js';
import { normalizeJsonSchema } from './normalize-json-schema.js';
import { toJsonSchema } from './to-json-schema.js';
import type { Tool } from './tool.js';
import { findUnsafePatternReason } from './unsafe-pattern.js';
import { isZodSchema, omitZodKeys, type ZodSchema, zodToJsonSchema } from './zod-schema.js';

/**
 * What the fast path checks after zod accepted a value: zod strips unknown keys silently, and we report them.
 * `null`: nothing to check; `'walk'`: too complex to plan (unions, references), run the full walk.
 */
export type KeyPlan =
  | null
  | 'walk'
  | {
      readonly kind: 'object';
      readonly closed: boolean;
      readonly properties: ReadonlyMap<string, KeyPlan>;
      readonly additional: KeyPlan;
    }
  | { readonly kind: 'array'; readonly items: KeyPlan };

/** Everything validation and description need, computed once per tool. */
export interface CompiledTool {
  /** Standard JSON Schema of what the model may send (hidden parameters removed). */
  readonly inputSchema: JsonSchema;
  /** The zod schema of what the model may send, for zod tools. */
  readonly zod: ZodSchema | undefined;
  readonly hidden: ReadonlySet<string>;
  /** Hidden parameters declared in the input schema: their injected values are also passed in the arguments. */
  readonly injectedIntoArgs: ReadonlySet<string>;
  readonly keyPlan: KeyPlan;
  readonly outputZod: ZodSchema | undefined;
  readonly outputSchema: JsonSchema | undefined;
  /** The openai-strict schema, or the reason the tool cannot be strict. */
  readonly strictSchema: JsonSchema | InvalidToolSchemaError;
}

const compiledTools = new WeakMap<object, CompiledTool>();

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function join(path: string, segment: string): string {
  return path === '' ? segment : `${path}/${segment}`;
}

/** Visits every sub-schema with its path. */
function visitSchemas(
  schema: unknown,
  path: string,
  visit: (node: Record<string, unknown>, path: string) => void,
): void {
  if (!isRecord(schema)) return;
  visit(schema, path);
  for (const [key, value] of Object.entries(schema)) {
    if (
      key === 'properties' ||
      key === '$defs' ||
      key === 'definitions' ||
      key === 'patternProperties' ||
      key === 'dependentSchemas'
    ) {
      if (isRecord(value))
        for (const [name, child] of Object.entries(value))
          visitSchemas(child, join(join(path, key), name), visit);
    } else if (key === 'anyOf' || key === 'oneOf' || key === 'allOf' || key === 'prefixItems') {
      if (Array.isArray(value)) {
        for (const [index, child] of value.entries())
          visitSchemas(child, join(join(path, key), String(index)), visit);
      }
    } else if (
      key === 'items' ||
      key === 'additionalProperties' ||
      key === 'not' ||
      key === 'contains' ||
      key === 'propertyNames' ||
      key === 'if' ||
      key === 'then' ||
      key === 'else'
    ) {
      if (Array.isArray(value)) {
        for (const [index, child] of value.entries())
          visitSchemas(child, join(join(path, key), String(index)), visit);
      } else visitSchemas(value, join(path, key), visit);
    }
  }
}

function resolves(reference: string, root: JsonSchema): boolean {
  if (reference === '#') return true;
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(reference);
  if (match === null) return false;
  const definitions = root[match[1] as '$defs' | 'definitions'];
  const name = (match[2] as string).replace(/~1/g, '/').replace(/~0/g, '~');
  return isRecord(definitions) && Object.hasOwn(definitions, name);
}

/** Refuses unsafe regex patterns and unresolvable references anywhere in a schema. */
function checkSchema(schema: JsonSchema, toolName: string): void {
  visitSchemas(schema, '', (node, path) => {
    if (typeof node.pattern === 'string') {
      const reason = findUnsafePatternReason(node.pattern);
      if (reason !== undefined)
        throw new UnsafePatternError({
          pattern: node.pattern,
          path: join(path, 'pattern'),
          reason,
          toolName,
        });
    }
    if (isRecord(node.patternProperties)) {
      for (const pattern of Object.keys(node.patternProperties)) {
        const reason = findUnsafePatternReason(pattern);
        if (reason !== undefined)
          throw new UnsafePatternError({ pattern, path: join(path, 'patternProperties'), reason, toolName });
      }
    }
    if (node.$ref !== undefined && (typeof node.$ref !== 'string' || !resolves(node.$ref, schema))) {
      throw new InvalidToolSchemaError({
        path: join(path, '$ref'),
        message: `the reference ${JSON.stringify(node.$ref)} does not point into this schema's $defs`,
        toolName,
      });
    }
  });
}

function withoutHidden(schema: JsonSchema, hidden: ReadonlySet<string>): JsonSchema {
  if (hidden.size === 0 || !isRecord(schema.properties)) return schema;
  const properties: Record<string, JsonSchema> = {};
  for (const [name, child] of Object.entries(schema.properties))
    if (!hidden.has(name)) defineOwn(properties, name, child);
  const required = (schema.required ?? []).filter((name) => !hidden.has(name));
  const result: JsonSchema = { ...schema, properties };
  if (required.length > 0) result.required = required;
  else delete result.required;
  return result;
}

function planKeys(schema: JsonSchema | boolean | undefined, depth: number): KeyPlan {
  if (schema === undefined || typeof schema === 'boolean') return null;
  if (depth > 32) return 'walk';
  if (
    schema.$ref !== undefined ||
    schema.anyOf !== undefined ||
    schema.oneOf !== undefined ||
    schema.allOf !== undefined ||
    schema.not !== undefined ||
    schema.patternProperties !== undefined ||
    schema.prefixItems !== undefined
  ) {
    return 'walk';
  }
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('object') || schema.properties !== undefined) {
    const properties = new Map<string, KeyPlan>();
    for (const [name, child] of Object.entries(schema.properties ?? {})) {
      const plan = planKeys(child, depth + 1);
      if (plan === 'walk') return 'walk';
      properties.set(name, plan);
    }
    const extra = schema.additionalProperties;
    const additional = typeof extra === 'object' ? planKeys(extra, depth + 1) : null;
    if (additional === 'walk') return 'walk';
    return {
      kind: 'object',
      closed: extra === false || (extra === undefined && schema.properties !== undefined),
      properties,
      additional,
    };
  }
  if (types.includes('array')) {
    const items = Array.isArray(schema.items)
      ? 'walk'
      : planKeys(schema.items as JsonSchema | boolean | undefined, depth + 1);
    if (items === 'walk') return 'walk';
    return items === null ? null : { kind: 'array', items };
  }
  return null;
}

/** True when `value` has no key that a closed object of the plan does not declare. */
export function keysMatchPlan(plan: Exclude<KeyPlan, 'walk'>, value: unknown): boolean {
  if (plan === null || value === null || typeof value !== 'object') return true;
  if (plan.kind === 'array') {
    if (!Array.isArray(value)) return true;
    for (const item of value) if (!keysMatchPlan(plan.items as Exclude<KeyPlan, 'walk'>, item)) return false;
    return true;
  }
  if (Array.isArray(value)) return true;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const child = plan.properties.get(key);
    const item = (value as Record<string, unknown>)[key];
    if (child === undefined) {
      if (!plan.properties.has(key)) {
        if (plan.closed) return false;
        if (plan.additional !== null && !keysMatchPlan(plan.additional as Exclude<KeyPlan, 'walk'>, item))
          return false;
      }
      continue;
    }
    if (child !== null && !keysMatchPlan(child as Exclude<KeyPlan, 'walk'>, item)) return false;
  }
  return true;
}

/** Checks and compiles a tool's schemas. Throws the typed definition errors. */
export function compileTool(
  tool: Pick<Tool, 'name' | 'input' | 'output' | 'inject' | 'strict'>,
): CompiledTool {
  const hidden = new Set(tool.inject);
  let zod: ZodSchema | undefined;
  let inputSchema: JsonSchema;
  const injectedIntoArgs = new Set<string>();
  if (isZodSchema(tool.input)) {
    const shape = (tool.input._zod.def as { shape?: Record<string, unknown> }).shape;
    for (const key of hidden) if (shape !== undefined && Object.hasOwn(shape, key)) injectedIntoArgs.add(key);
    zod = omitZodKeys(tool.input, tool.inject);
    inputSchema = zodToJsonSchema(zod, tool.name);
  } else {
    const full = normalizeJsonSchema(tool.input, { toolName: tool.name });
    for (const key of hidden)
      if (isRecord(full.properties) && Object.hasOwn(full.properties, key)) injectedIntoArgs.add(key);
    inputSchema = withoutHidden(full, hidden);
  }
  checkSchema(inputSchema, tool.name);
  // Every target but openai-strict must accept every tool; openai-strict falls back to non-strict unless required.
  for (const target of ['json-schema', 'anthropic', 'bedrock'] as const)
    toJsonSchema(inputSchema, { target, toolName: tool.name });
  let strictSchema: JsonSchema | InvalidToolSchemaError;
  try {
    strictSchema = toJsonSchema(inputSchema, { target: 'openai-strict', toolName: tool.name });
  } catch (error) {
    if (!InvalidToolSchemaError.isInstance(error)) throw error;
    if (tool.strict === true) throw error;
    strictSchema = error;
  }
  let outputZod: ZodSchema | undefined;
  let outputSchema: JsonSchema | undefined;
  if (tool.output !== undefined) {
    if (isZodSchema(tool.output)) {
      outputZod = tool.output;
    } else {
      outputSchema = normalizeJsonSchema(tool.output, { toolName: tool.name });
      checkSchema(outputSchema, tool.name);
    }
  }
  return {
    inputSchema,
    zod,
    hidden,
    injectedIntoArgs,
    keyPlan: planKeys(inputSchema, 0),
    outputZod,
    outputSchema,
    strictSchema,
  };
}

/** Caches the compiled form of a tool made by `defineTool`. */
export function rememberCompiledTool(tool: Tool, compiled: CompiledTool): void {
  compiledTools.set(tool, compiled);
}

/** The compiled form of any tool object (compiled on first use for tools not made by `defineTool`). */
export function compiledToolOf(tool: Tool): CompiledTool {
  let compiled = compiledTools.get(tool);
  if (compiled === undefined) {
    compiled = compileTool(tool);
    compiledTools.set(tool, compiled);
  }
  return compiled;
}
