import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defineTool,
  InvalidToolArgumentsError,
  type Tool,
  ToolRegistry,
  toolCallToAction,
  validateToolArguments,
} from './index.js';

const numRuns = Number(process.env.FC_NUM_RUNS ?? 200);

function jsonTool(name: string, input: Record<string, unknown>): Tool {
  return defineTool({
    name,
    description: 'Runs a step with free-form arguments.',
    input,
    execute: (args) => args,
  });
}

// The shapes a plan tool and generic "call anything" tools use for their free-form part.
const untyped = jsonTool('run_untyped', { type: 'object', properties: { arguments: {} } });
const openOrText = jsonTool('run_open_or_text', {
  properties: {
    arguments: { anyOf: [{ type: 'object', additionalProperties: true }, { type: 'string' }] },
  },
});
const oneOfOpen = jsonTool('run_one_of_open', {
  type: 'object',
  properties: { arguments: { oneOf: [{ type: 'object' }, { type: 'string' }] } },
});
const dictionary = jsonTool('run_dictionary', {
  type: 'object',
  properties: { arguments: { type: 'object' } },
  required: ['arguments'],
});
const openWithProperties = jsonTool('run_open_with_properties', {
  type: 'object',
  properties: {
    arguments: { type: 'object', properties: { q: { type: 'string' } }, additionalProperties: true },
  },
});
const planLike = jsonTool('run_plan', {
  type: 'object',
  properties: {
    steps: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          arguments: { anyOf: [{ type: 'object', additionalProperties: true }, { type: 'string' }] },
        },
        required: ['id', 'arguments'],
      },
    },
  },
  required: ['steps'],
});
const zodOpen = defineTool({
  name: 'run_zod_open',
  description: 'Runs a step with free-form arguments.',
  input: z.object({
    anything: z.unknown().optional(),
    record: z.record(z.string(), z.unknown()).optional(),
    either: z.union([z.looseObject({}), z.string()]).optional(),
  }),
  execute: (args) => args,
});

function issuesOf(error: unknown): InvalidToolArgumentsError['issues'] {
  if (!InvalidToolArgumentsError.isInstance(error)) throw new Error('expected an InvalidToolArgumentsError');
  return error.issues;
}

const nested = { q: 'x', page: 2, filters: { tags: ['a', 'b'], since: null }, 'odd key': true };

describe('open objects: {} accepts any JSON value', () => {
  it.each([
    ['an object with any keys', nested],
    ['an empty object', {}],
    ['a string', 'text'],
    ['a number', 42],
    ['an array', [1, { a: 2 }]],
    ['null', null],
    ['false', false],
  ])('accepts %s under a property whose schema is {}', (_label, value) => {
    const result = validateToolArguments(untyped, { arguments: value });
    expect(result).toEqual({ ok: true, value: { arguments: value }, coercions: [] });
  });

  it('accepts any JSON value, whatever its keys (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const result = validateToolArguments(untyped, { arguments: value });
        expect(result.ok).toBe(true);
        if (result.ok) expect(result.value).toEqual({ arguments: value });
      }),
      { numRuns },
    );
  });
});

describe('open objects: additionalProperties true, or no properties, is a dictionary', () => {
  it.each([
    ['anyOf [open object, string]', openOrText],
    ['oneOf [object, string]', oneOfOpen],
    ['an object without properties', dictionary],
  ])('accepts any keys under %s', (_label, tool) => {
    const result = validateToolArguments(tool, { arguments: nested });
    expect(result).toEqual({ ok: true, value: { arguments: nested }, coercions: [] });
  });

  it('checks declared properties of an open object and keeps the extra keys', () => {
    expect(validateToolArguments(openWithProperties, { arguments: { q: 'x', extra: [1] } })).toEqual({
      ok: true,
      value: { arguments: { q: 'x', extra: [1] } },
      coercions: [],
    });
    const wrong = validateToolArguments(openWithProperties, { arguments: { q: { not: 'text' }, extra: 1 } });
    expect(wrong.ok).toBe(false);
    if (!wrong.ok) expect(issuesOf(wrong.error).map((issue) => issue.path)).toEqual(['arguments.q']);
  });

  it('in anyOf, the first branch that matches decides: a JSON string stays text when a string is allowed', () => {
    const result = validateToolArguments(openOrText, { arguments: '{"q":"x"}' });
    expect(result).toEqual({ ok: true, value: { arguments: '{"q":"x"}' }, coercions: [] });
  });

  it('a JSON string for an object-only dictionary is read as the object, and recorded', () => {
    const result = validateToolArguments(dictionary, { arguments: '{"q":"x","n":1}' });
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.value).toEqual({ arguments: { q: 'x', n: 1 } });
      expect(result.coercions.map((coercion) => coercion.kind)).toEqual(['json-string-to-object']);
    }
  });

  it('still refuses unknown keys where the object is closed', () => {
    const closed = jsonTool('run_closed', {
      type: 'object',
      properties: { arguments: { type: 'object', properties: {}, additionalProperties: false } },
    });
    const result = validateToolArguments(closed, { arguments: { q: 'x' } });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(issuesOf(result.error)).toEqual([
        {
          path: 'arguments.q',
          problem: 'is not a parameter of this tool.',
          suggestion: 'This object takes no parameters; remove it.',
        },
      ]);
    }
    const top = validateToolArguments(openOrText, { arguments: {}, extra: 1 });
    expect(top.ok).toBe(false);
  });

  it('accepts open objects inside array items (a plan with steps), as objects and as JSON text', () => {
    const value = {
      steps: [
        { id: 'a', arguments: nested },
        { id: 'b', arguments: '{"url":"$ref:a.items.0.url"}' },
        { id: 'c', arguments: {} },
      ],
    };
    expect(validateToolArguments(planLike, value)).toEqual({ ok: true, value, coercions: [] });
  });

  it('accepts open objects in zod schemas (unknown, record, union with a loose object)', () => {
    const value = { anything: nested, record: nested, either: nested };
    expect(validateToolArguments(zodOpen, value)).toEqual({ ok: true, value, coercions: [] });
    expect(validateToolArguments(zodOpen, { either: '{"q":1}' })).toEqual({
      ok: true,
      value: { either: '{"q":1}' },
      coercions: [],
    });
  });
});

describe('open objects through toolCallToAction', () => {
  const registry = new ToolRegistry([untyped, openOrText, planLike, zodOpen]);

  it.each([
    ['run_untyped', { arguments: nested }],
    ['run_open_or_text', { arguments: nested }],
    ['run_open_or_text', { arguments: '{"q":"x"}' }],
    ['run_plan', { steps: [{ id: 'a', arguments: nested }] }],
    ['run_plan', { steps: [{ id: 'a', arguments: '{"q":"x"}' }] }],
    ['run_zod_open', { anything: nested, record: nested, either: nested }],
  ])('turns a %s call with free-form arguments into an action', (toolName, args) => {
    const result = toolCallToAction(registry, { id: 'call_1', toolName, arguments: JSON.stringify(args) });
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.action).toEqual({ id: 'call_1', toolName, args });
      expect(result.coercions).toEqual([]);
    }
  });
});

describe('JSON Schema semantics: nested objects that list properties are open unless they say otherwise', () => {
  // The shape of BFCL live's HTTP tools: `data` lists a few placeholder properties, the call sends others.
  const httpPost = jsonTool('requests_post', {
    type: 'object',
    properties: {
      url: { type: 'string' },
      data: {
        type: 'object',
        description: 'The form fields to send.',
        properties: { key1: { type: 'string' }, key2: { type: 'string' } },
      },
      headers: {
        type: 'object',
        properties: { 'Content-Type': { type: 'string' } },
        additionalProperties: false,
      },
    },
    required: ['url'],
  });

  it('keeps unknown keys of a nested object and still checks the declared ones', () => {
    const args = { url: 'https://example.com/form', data: { name: 'Ada', age: '36', key1: 'x' } };
    expect(validateToolArguments(httpPost, args)).toEqual({ ok: true, value: args, coercions: [] });
    const wrong = validateToolArguments(httpPost, { url: 'u', data: { key1: { not: 'text' }, other: 1 } });
    expect(wrong.ok).toBe(false);
    if (!wrong.ok) expect(issuesOf(wrong.error).map((issue) => issue.path)).toEqual(['data.key1']);
  });

  it('refuses an unknown top-level parameter with a did-you-mean, and unknown keys where the schema closes', () => {
    const top = validateToolArguments(httpPost, { url: 'https://example.com', dta: { name: 'Ada' } });
    expect(top.ok).toBe(false);
    if (!top.ok) {
      expect(issuesOf(top.error)).toEqual([
        { path: 'dta', problem: 'is not a parameter of this tool.', suggestion: 'Did you mean "data"?' },
      ]);
    }
    const closed = validateToolArguments(httpPost, { url: 'u', headers: { Accept: 'text/html' } });
    expect(closed.ok).toBe(false);
    if (!closed.ok) expect(issuesOf(closed.error).map((issue) => issue.path)).toEqual(['headers.Accept']);
  });

  it('reads the same through toolCallToAction, the path a model call takes', () => {
    const registry = new ToolRegistry([httpPost]);
    const args = { url: 'https://example.com/form', data: { name: 'Ada' } };
    const result = toolCallToAction(registry, {
      id: 'call_1',
      toolName: 'requests_post',
      arguments: JSON.stringify(args),
    });
    expect(result.ok && result.action.args).toEqual(args);
  });

  it('names the misspelt key when an open object misses a required property', () => {
    const result = validateToolArguments(planLike, { steps: [{ id: 'a', argument: { q: 'x' } }] });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(issuesOf(result.error)).toEqual([
        {
          path: 'steps[0].arguments',
          problem: 'is a required parameter and is missing.',
          suggestion: 'Rename "argument" to "arguments".',
        },
      ]);
    }
  });

  it('keeps zod objects closed at every depth (zod would drop the key silently)', () => {
    const zodTool = defineTool({
      name: 'zod_nested',
      description: 'A tool with a nested zod object.',
      input: z.object({ filter: z.object({ city: z.string() }) }),
      execute: (args) => args,
    });
    const result = validateToolArguments(zodTool, { filter: { city: 'Paris', country: 'FR' } });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(issuesOf(result.error).map((issue) => issue.path)).toEqual(['filter.country']);
  });
});
