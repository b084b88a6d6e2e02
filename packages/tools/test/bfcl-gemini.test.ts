/**
 * Every function of the Berkeley Function Calling Leaderboard (v4) corpus in ../shared/corpora/bfcl described for the
 * two Gemini targets: `gemini` (JSON Schema for `parametersJsonSchema`) always, `gemini-openapi` (the OpenAPI subset
 * of `parameters`) or a typed refusal naming the tool and the node a user has to change.
 */
import { readFileSync } from 'node:fs';
import { GEMINI_OPENAPI_SCHEMA_KEYWORDS, type JsonSchema } from '@org/core';
import { describe, expect, it } from 'vitest';
import { defineTool, InvalidToolSchemaError, ToolRegistry, validateToolArguments } from '../src/index.js';

const CORPUS = new URL('../../../../shared/corpora/bfcl/', import.meta.url);
const CATEGORIES = ['simple_python', 'multiple', 'parallel', 'parallel_multiple'] as const;

interface BfclFunction {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

const functions: { id: string; fn: BfclFunction }[] = CATEGORIES.flatMap((category) =>
  readFileSync(new URL(`BFCL_v4_${category}.json`, CORPUS), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      const { id, function: list } = JSON.parse(line) as { id: string; function: BfclFunction[] };
      return list.map((fn) => ({ id, fn }));
    }),
);

function registryOf(fn: BfclFunction): ToolRegistry {
  return new ToolRegistry([
    defineTool({ name: fn.name, description: fn.description, input: fn.parameters, execute: (args) => args }),
  ]);
}

/** Every problem of a schema against Gemini's OpenAPI subset, by path. */
function subsetProblems(schema: unknown, path = ''): string[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    return [`${path}: not an object`];
  const node = schema as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(node)) {
    if (!GEMINI_OPENAPI_SCHEMA_KEYWORDS.has(key)) problems.push(`${path}: keyword ${key}`);
  }
  if (node.type !== undefined && (typeof node.type !== 'string' || node.type === 'null')) {
    problems.push(`${path}: type ${JSON.stringify(node.type)}`);
  }
  if (node.type === undefined && node.anyOf === undefined) problems.push(`${path}: untyped`);
  if (Array.isArray(node.enum) && !node.enum.every((value) => typeof value === 'string')) {
    problems.push(`${path}: non-string enum`);
  }
  if (node.type === 'object' && Object.keys((node.properties as object | undefined) ?? {}).length === 0) {
    problems.push(`${path}: object without properties`);
  }
  for (const [name, child] of Object.entries(
    (node.properties as Record<string, unknown> | undefined) ?? {},
  )) {
    problems.push(...subsetProblems(child, `${path}/properties/${name}`));
  }
  if (node.items !== undefined) problems.push(...subsetProblems(node.items, `${path}/items`));
  for (const [index, child] of ((node.anyOf as unknown[] | undefined) ?? []).entries()) {
    problems.push(...subsetProblems(child, `${path}/anyOf/${index}`));
  }
  return problems;
}

/** The node a refusal names, found in the tool's JSON Schema: the path a user acts on exists. */
function nodeAt(schema: JsonSchema, path: string): unknown {
  let node: unknown = schema;
  for (const segment of path === '' ? [] : path.split('/')) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

describe('BFCL v4 for the Gemini targets', { timeout: 120_000 }, () => {
  it('describes every function for gemini (parametersJsonSchema)', () => {
    expect(functions.length).toBeGreaterThan(1600);
    for (const { id, fn } of functions) {
      const [spec] = registryOf(fn).specs({ target: 'gemini' });
      expect(spec?.inputSchema.type, `${id}:${fn.name}`).toBe('object');
      expect(JSON.stringify(spec?.inputSchema)).not.toMatch(/"type":"(dict|float|tuple|any)"/);
    }
  });

  it('describes every function for gemini-openapi in the subset, or refuses it naming the tool and the node', () => {
    const refused = new Map<string, number>();
    let described = 0;
    for (const { id, fn } of functions) {
      const registry = registryOf(fn);
      let specs: ReturnType<ToolRegistry['specs']>;
      try {
        specs = registry.specs({ target: 'gemini-openapi' });
      } catch (error) {
        expect(InvalidToolSchemaError.isInstance(error), `${id}:${fn.name}: ${String(error)}`).toBe(true);
        const refusal = error as InvalidToolSchemaError;
        expect(refusal.target).toBe('gemini-openapi');
        expect(refusal.toolName).toBe(fn.name);
        expect(refusal.message).toContain(fn.name);
        const [json] = registry.specs({ target: 'gemini' });
        expect(
          nodeAt(json?.inputSchema ?? {}, refusal.path),
          `${id}: '${refusal.path}' exists`,
        ).toBeDefined();
        const reason = /free-form|untyped|without properties/.exec(refusal.message)?.[0] ?? refusal.message;
        refused.set(reason, (refused.get(reason) ?? 0) + 1);
        continue;
      }
      described++;
      const schema = specs[0]?.inputSchema;
      expect(subsetProblems(schema), `${id}:${fn.name}`).toEqual([]);
      expect(JSON.stringify(schema)).not.toContain('additionalProperties');
    }
    // Nearly all describe; the rest are free-form dictionaries and untyped values, which the subset cannot express.
    expect(described).toBeGreaterThan(functions.length * 0.9);
    // 1662 of 1677 in v4: 11 objects without properties and 4 untyped values are refused.
    expect([...refused.keys()].sort()).toEqual(['untyped', 'without properties']);
  });

  it('keeps what the subset cannot say in the description, and validation still enforces it', () => {
    const tool = defineTool({
      name: 'pick_level',
      description: 'Picks a level.',
      input: {
        type: 'object',
        properties: { level: { type: 'integer', enum: [1, 2, 3] } },
        required: ['level'],
      },
      execute: (args) => args,
    });
    const [spec] = new ToolRegistry([tool]).specs({ target: 'gemini-openapi' });
    expect(spec?.inputSchema.properties?.level).toEqual({
      type: 'integer',
      description: '(one of: 1, 2, 3)',
    });
    expect(validateToolArguments(tool, { level: 2 }).ok).toBe(true);
    expect(validateToolArguments(tool, { level: 5 }).ok).toBe(false);
  });
});
