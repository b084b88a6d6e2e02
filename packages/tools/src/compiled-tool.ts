import type { JsonSchema } from '@org/core';
import { InvalidToolSchemaError, UnsafePatternError } from './errors.js';
import { defineOwn } from './json-parser.js';
import { normalizeJsonSchema } from './normalize-json-schema.js';
import { toJsonSchema } from './to-json-schema.js';
import type { Tool } from './tool.js';
import { findUnsafePatternReason } from './unsafe-pattern.js';
import { isZodSchema, omitZodKeys, type ZodSchema, zodToJsonSchema } from './zod-schema.js';

/**
 * What the fast path checks after zod accepted a value: zod strips unknown keys silently (we report them), and the
 * depth limit. `null`: nothing to check (zod proved a primitive); `'free'`: any value, only its depth is checked;
 * `'walk'`: too complex to plan (unions, references), the full walk decides.
 */
export type KeyPlan =
  | null
  | 'free'
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
  /** The fast path's unknown-key check, or `undefined` when only the full walk can tell. */
  readonly keyCheck: KeyCheck | undefined;
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
  if (schema === false) return null;
  if (schema === undefined || schema === true) return 'free';
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
    const closed = extra === false || (extra === undefined && schema.properties !== undefined);
    const additional = closed ? null : planKeys(extra as JsonSchema | boolean | undefined, depth + 1);
    if (additional === 'walk') return 'walk';
    return { kind: 'object', closed, properties, additional };
  }
  if (types.includes('array')) {
    const items = Array.isArray(schema.items)
      ? 'walk'
      : planKeys(schema.items as JsonSchema | boolean | undefined, depth + 1);
    if (items === 'walk') return 'walk';
    return items === null ? null : { kind: 'array', items };
  }
  if (types.length === 0 && schema.enum === undefined && schema.const === undefined) return 'free';
  return null;
}

/** Budget of one check: the depth limit and a cap on visits (a small graph of shared references stays cheap). */
export interface CheckBudget {
  maxDepth: number;
  visits: number;
}

/**
 * A compiled check of a value zod accepted: false when a closed object has a key its schema does not declare, or
 * the value is nested deeper than the limit (the slow path then reports which).
 */
export type KeyCheck = (value: unknown, depth: number, budget: CheckBudget) => boolean;

const ACCEPT_ALL: KeyCheck = () => true;

/** Depth check of a value of any shape; recursive but bounded by `maxDepth`. */
const WITHIN_DEPTH: KeyCheck = (value, depth, budget) => {
  if (value === null || typeof value !== 'object') return true;
  if (depth > budget.maxDepth || --budget.visits < 0) return false;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++)
      if (!WITHIN_DEPTH(value[index], depth + 1, budget)) return false;
    return true;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) if (!WITHIN_DEPTH(record[key], depth + 1, budget)) return false;
  return true;
};

const LINEAR_KEY_SCAN_MAX = 12;

/** Compiles a plan into closures, so the fast path pays one key scan per object and nothing for primitives. */
export function compileKeyCheck(plan: Exclude<KeyPlan, 'walk'>): KeyCheck {
  if (plan === null) return ACCEPT_ALL;
  if (plan === 'free') return WITHIN_DEPTH;
  if (plan.kind === 'array') {
    const item = compileKeyCheck(plan.items as Exclude<KeyPlan, 'walk'>);
    return (value, depth, budget) => {
      if (!Array.isArray(value)) return true;
      if (depth > budget.maxDepth || --budget.visits < 0) return false;
      if (item === ACCEPT_ALL) return true;
      for (let index = 0; index < value.length; index++)
        if (!item(value[index], depth + 1, budget)) return false;
      return true;
    };
  }
  const names = [...plan.properties.keys()];
  const checks = [...plan.properties.values()].map((child) =>
    compileKeyCheck(child as Exclude<KeyPlan, 'walk'>),
  );
  // The position of a key among the parameters, or -1. For the handful a tool usually has, comparing against each
  // name is the fastest test (keys of parsed JSON are internalised strings, so each comparison is a pointer check):
  // about a third faster than a null-prototype record, which V8 keeps as a hash table. Larger objects use the record.
  let indexOf: (key: string) => number;
  if (names.length <= LINEAR_KEY_SCAN_MAX) {
    indexOf = (key) => {
      for (let index = 0; index < names.length; index++) if (names[index] === key) return index;
      return -1;
    };
  } else {
    const positions: Record<string, number> = Object.create(null);
    for (const [index, name] of names.entries()) positions[name] = index;
    indexOf = (key) => positions[key] ?? -1;
  }
  const additional = compileKeyCheck(plan.additional as Exclude<KeyPlan, 'walk'>);
  const closed = plan.closed;
  return (value, depth, budget) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return true;
    if (depth > budget.maxDepth || --budget.visits < 0) return false;
    const record = value as Record<string, unknown>;
    // One pass over the keys present: each is found among the parameters and its value checked there, read through
    // the for-in key (V8's enum cache), never by looking up the names of parameters the call left out.
    // `for...in` also lists inherited enumerable keys; unknown ones go to the full walk.
    for (const key in record) {
      const index = indexOf(key);
      const check = index < 0 ? additional : (checks[index] as KeyCheck);
      if (index < 0 && closed) return false;
      if (check === ACCEPT_ALL) continue;
      const child = record[key];
      if (child !== undefined && !check(child, depth + 1, budget)) return false;
    }
    return true;
  };
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
  const keyPlan = planKeys(inputSchema, 0);
  return {
    inputSchema,
    zod,
    hidden,
    injectedIntoArgs,
    keyCheck: keyPlan === 'walk' ? undefined : compileKeyCheck(keyPlan),
    outputZod,
    outputSchema,
    strictSchema,
  };
}

const COMPILED = Symbol('org.tools.compiled');

/**
 * Attaches the compiled form to a tool made by `defineTool` (before it is frozen), as a hidden property: reading it
 * is cheaper than a `WeakMap` lookup on the validation fast path.
 */
export function attachCompiledTool(tool: object, compiled: CompiledTool): void {
  Object.defineProperty(tool, COMPILED, { value: compiled, enumerable: false });
}

/** The compiled form of any tool object (compiled on first use for tools not made by `defineTool`). */
export function compiledToolOf(tool: Tool): CompiledTool {
  const attached = (tool as { [COMPILED]?: CompiledTool })[COMPILED];
  if (attached !== undefined) return attached;
  let compiled = compiledTools.get(tool);
  if (compiled === undefined) {
    compiled = compileTool(tool);
    compiledTools.set(tool, compiled);
  }
  return compiled;
}
