/**
 * Acceptance over the Berkeley Function Calling Leaderboard (v4) corpus in ../shared/corpora/bfcl: real-world tool
 * definitions in a loose dialect, and the calls a correct model makes.
 */
import { readFileSync } from 'node:fs';
import type { JsonSchema } from '@org/core';
import { describe, expect, it } from 'vitest';
import {
  defineTool,
  type InvalidToolArgumentsError,
  PROVIDER_TOOL_NAME_PATTERN,
  SCHEMA_TARGETS,
  type Tool,
  ToolRegistry,
  toolCallToAction,
} from '../src/index.js';

const CORPUS = new URL('../../../../shared/corpora/bfcl/', import.meta.url);
const CATEGORIES = ['simple_python', 'multiple', 'parallel', 'parallel_multiple'] as const;

interface BfclFunction {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}
interface Entry {
  id: string;
  category: string;
  functions: BfclFunction[];
  calls: Array<Record<string, Record<string, unknown[]>>>;
}

function readLines(path: URL): unknown[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

const entries: Entry[] = CATEGORIES.flatMap((category) => {
  const answers = new Map(
    readLines(new URL(`possible_answer/BFCL_v4_${category}.json`, CORPUS)).map((answer) => {
      const { id, ground_truth } = answer as { id: string; ground_truth: Entry['calls'] };
      return [id, ground_truth] as const;
    }),
  );
  return readLines(new URL(`BFCL_v4_${category}.json`, CORPUS)).map((line) => {
    const { id, function: functions } = line as { id: string; function: BfclFunction[] };
    return { id, category, functions, calls: answers.get(id) ?? [] };
  });
});

/**
 * Ground-truth values that are not valid against their own schema (BFCL's ~1%), by entry id, with the reason.
 * These calls are still checked: they must be refused, naming the parameter at fault.
 */
const KNOWN_BAD_GROUND_TRUTH: Readonly<Record<string, { call: number; parameter: string; reason: string }>> =
  {
    simple_python_200: {
      call: 0,
      parameter: 'fuel_efficiency',
      reason: 'a required parameter whose first acceptable value is "" (omitted)',
    },
    parallel_multiple_21: {
      call: 1,
      parameter: 'x',
      reason: 'an array of floats given as the Python expression "data[\'sales\']"',
    },
    parallel_multiple_26: {
      call: 1,
      parameter: 'type',
      reason: "'type' is not a parameter of bank.calculate_balance (it belongs to the transactions' items)",
    },
    parallel_multiple_94: {
      call: 0,
      parameter: 'elements',
      reason: 'sort_list takes integers; the answer sorts fruit names',
    },
  };

function registryFor(entry: Entry): ToolRegistry {
  return new ToolRegistry(
    entry.functions.map((fn) =>
      defineTool({
        name: fn.name,
        description: fn.description,
        input: fn.parameters,
        execute: (args) => args,
      }),
    ),
  );
}

/**
 * BFCL writes a dictionary's value in the answer format too: each nested field is a list of acceptable values.
 * Takes the first acceptable value at every level; `""` first means the field is omitted.
 */
function firstOfNested(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(firstOfNested);
  if (typeof value !== 'object' || value === null) return value;
  const result: Record<string, unknown> = {};
  for (const [name, acceptable] of Object.entries(value)) {
    if (!Array.isArray(acceptable)) {
      result[name] = firstOfNested(acceptable);
      continue;
    }
    const first = acceptable[0];
    if (first === '' || first === undefined) continue;
    result[name] = firstOfNested(first);
  }
  return result;
}

/** The arguments of a ground-truth call: the first acceptable value of each parameter. */
function firstValues(parameters: Record<string, unknown[]>): Record<string, unknown> {
  return firstOfNested(parameters) as Record<string, unknown>;
}

function typesOf(schema: JsonSchema | undefined): string[] {
  if (schema?.type === undefined) return [];
  return Array.isArray(schema.type) ? schema.type : [schema.type];
}

/** Replaces every number and boolean at a position the schema types as number/integer/boolean by its text. */
function stringifyScalars(
  value: unknown,
  schema: JsonSchema | undefined,
  counter: { typed: number; untyped: number },
): unknown {
  if (typeof value === 'number' || typeof value === 'boolean') {
    const types = typesOf(schema);
    const enumMembers = Array.isArray(schema?.enum) ? schema.enum : [];
    if (
      types.some((type) => type === 'number' || type === 'integer' || type === 'boolean') ||
      enumMembers.includes(value)
    ) {
      counter.typed++;
      return String(value);
    }
    counter.untyped++;
    return value;
  }
  if (Array.isArray(value)) {
    const items =
      schema?.items !== undefined && !Array.isArray(schema.items) ? (schema.items as JsonSchema) : undefined;
    return value.map((item, index) =>
      stringifyScalars(item, Array.isArray(schema?.prefixItems) ? schema.prefixItems[index] : items, counter),
    );
  }
  if (typeof value === 'object' && value !== null) {
    const properties = (schema?.properties ?? {}) as Record<string, JsonSchema>;
    const extra = typeof schema?.additionalProperties === 'object' ? schema.additionalProperties : undefined;
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        stringifyScalars(item, properties[key] ?? extra, counter),
      ]),
    );
  }
  return value;
}

interface Sample {
  id: string;
  registry: ToolRegistry;
  tool: Tool;
  providerName: string;
  args: Record<string, unknown>;
}

// Over 1700 calls per test: generous timeouts, so that a loaded machine cannot fail them.
describe('BFCL v4 acceptance', { timeout: 120_000 }, () => {
  it('reads the four categories', () => {
    expect(entries.length).toBe(1000);
    expect(entries.reduce((count, entry) => count + entry.calls.length, 0)).toBe(1747);
  });

  it('converts every function for every target but gemini-openapi', () => {
    let functions = 0;
    const nonStrict: string[] = [];
    for (const entry of entries) {
      const registry = registryFor(entry);
      // gemini-openapi refuses some functions by design: test/bfcl-gemini.test.ts covers it.
      for (const target of SCHEMA_TARGETS.filter((name) => name !== 'gemini-openapi')) {
        const specs = registry.specs({ target });
        expect(specs).toHaveLength(entry.functions.length);
        for (const spec of specs) {
          expect(spec.inputSchema.type).toBe('object');
          expect(JSON.stringify(spec.inputSchema)).not.toMatch(/"type":"(dict|float|tuple|any)"/);
          if (target === 'openai-strict' && spec.strict === false) nonStrict.push(`${entry.id}:${spec.name}`);
          if (target === 'openai-strict' && spec.strict === true) {
            expect(spec.inputSchema.additionalProperties).toBe(false);
            expect(spec.inputSchema.required).toEqual(Object.keys(spec.inputSchema.properties ?? {}));
          }
        }
      }
      functions += entry.functions.length;
    }
    expect(functions).toBeGreaterThan(1600);
    // Free-form dictionaries, untyped values and tuples cannot be strict; those few tools are sent non-strict.
    expect(nonStrict.length).toBeGreaterThan(0);
    expect(nonStrict.length / functions).toBeLessThan(0.05);
  });

  it('maps dotted names to valid provider names and back', () => {
    let dotted = 0;
    for (const entry of entries) {
      const registry = registryFor(entry);
      for (const spec of registry.specs({ target: 'anthropic' })) {
        expect(spec.name).toMatch(PROVIDER_TOOL_NAME_PATTERN);
        const tool = registry.resolve(spec.name);
        expect(tool).toBeDefined();
        expect(registry.providerName(tool!.name)).toBe(spec.name);
        if (tool!.name.includes('.')) dotted++;
      }
    }
    expect(dotted).toBeGreaterThan(500);
  });

  const samples: Sample[] = [];
  const refused: Array<{ id: string; error: InvalidToolArgumentsError }> = [];

  it('validates every ground-truth call (first acceptable value per parameter)', () => {
    let validated = 0;
    let knownBad = 0;
    for (const entry of entries) {
      const registry = registryFor(entry);
      for (const [index, call] of entry.calls.entries()) {
        const [name, parameters] = Object.entries(call)[0]!;
        const tool = registry.get(name)!;
        expect(tool).toBeDefined();
        const providerName = registry.providerName(name)!;
        const args = firstValues(parameters);
        const result = toolCallToAction(registry, {
          id: entry.id,
          toolName: providerName,
          arguments: JSON.stringify(args),
        });
        const known = KNOWN_BAD_GROUND_TRUTH[entry.id];
        if (known !== undefined && known.call === index) {
          knownBad++;
          expect(result.ok, `${entry.id} is allow-listed as bad (${known.reason}) but validated`).toBe(false);
          if (!result.ok) {
            expect(
              (result.error as InvalidToolArgumentsError).issues.map((issue) => issue.path.split(/[.[]/)[0]),
            ).toContain(known.parameter);
          }
          continue;
        }
        if (!result.ok) refused.push({ id: entry.id, error: result.error as InvalidToolArgumentsError });
        else {
          expect(result.action.toolName).toBe(name);
          expect(result.coercions).toEqual([]);
          expect(result.action.args).toStrictEqual(args);
          validated++;
          samples.push({ id: entry.id, registry, tool, providerName, args });
        }
      }
    }
    expect(
      refused.map(
        ({ id, error }) =>
          `${id}: ${error.issues.map((issue) => `${issue.path} ${issue.problem}`).join('; ')}`,
      ),
    ).toEqual([]);
    expect(knownBad).toBe(Object.keys(KNOWN_BAD_GROUND_TRUTH).length);
    expect(validated).toBe(1747 - knownBad);
  });

  it('refuses a dropped required parameter, an unknown one and a broken enum, naming the parameter', () => {
    let dropped = 0;
    let unknown = 0;
    let enums = 0;
    for (const sample of samples) {
      const schema = sample.tool.inputSchema;
      const required = (schema.required ?? []).filter((name) => Object.hasOwn(sample.args, name));
      const call = (args: Record<string, unknown>) =>
        toolCallToAction(sample.registry, {
          id: sample.id,
          toolName: sample.providerName,
          arguments: JSON.stringify(args),
        });
      const pathsOf = (args: Record<string, unknown>): string[] => {
        const result = call(args);
        expect(result.ok, `${sample.id} accepted ${JSON.stringify(args)}`).toBe(false);
        return result.ok ? [] : (result.error as InvalidToolArgumentsError).issues.map((issue) => issue.path);
      };
      if (required.length > 0) {
        const victim = required[dropped % required.length]!;
        const { [victim]: _removed, ...rest } = sample.args;
        expect(pathsOf(rest)).toContain(victim);
        dropped++;
      }
      expect(pathsOf({ ...sample.args, zz_not_a_parameter: 1 })).toEqual(['zz_not_a_parameter']);
      unknown++;
      const enumParameter = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>).find(
        ([name, property]) => Array.isArray(property.enum) && Object.hasOwn(sample.args, name),
      );
      if (enumParameter !== undefined) {
        const [name] = enumParameter;
        const result = call({ ...sample.args, [name]: 'definitely-not-an-allowed-value' });
        expect(result.ok).toBe(false);
        if (!result.ok) {
          const issue = (result.error as InvalidToolArgumentsError).issues.find((item) => item.path === name);
          expect(issue?.problem).toMatch(/^must be one of /);
        }
        enums++;
      }
    }
    expect(dropped).toBeGreaterThanOrEqual(200);
    expect(unknown).toBeGreaterThanOrEqual(200);
    expect(enums).toBeGreaterThan(50);
  });

  it('accepts every number and boolean sent as text, and coerces it back to the original', () => {
    let checked = 0;
    let scalars = 0;
    for (const sample of samples) {
      const counter = { typed: 0, untyped: 0 };
      const stringified = stringifyScalars(sample.args, sample.tool.inputSchema, counter) as Record<
        string,
        unknown
      >;
      if (counter.typed === 0) continue;
      const result = toolCallToAction(sample.registry, {
        id: sample.id,
        toolName: sample.providerName,
        arguments: JSON.stringify(stringified),
      });
      expect(result.ok, `${sample.id}: ${result.ok ? '' : result.error.message}`).toBe(true);
      if (!result.ok) continue;
      expect(result.action.args).toStrictEqual(sample.args);
      expect(result.coercions.length).toBe(counter.typed);
      checked++;
      scalars += counter.typed;
    }
    expect(checked).toBeGreaterThanOrEqual(200);
    expect(scalars).toBeGreaterThan(checked);
  });
});
