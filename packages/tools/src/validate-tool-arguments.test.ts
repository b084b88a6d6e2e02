import { LimitExceededError, OrgError } from '@org/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, InvalidToolArgumentsError, type Tool, validateToolArguments } from './index.js';

const numRuns = Number(process.env.FC_NUM_RUNS ?? 1000);

const weather = defineTool({
  name: 'get_weather',
  description: 'Weather forecast.',
  input: z.object({
    location: z.string().describe('City name'),
    days: z.number().int().min(1).max(14).optional(),
    unit: z.enum(['celsius', 'fahrenheit']).optional(),
    detailed: z.boolean().optional(),
    stops: z.array(z.object({ lat: z.number(), lon: z.number() })).optional(),
    tags: z.array(z.string()).optional(),
  }),
  execute: (args) => args,
});

const jsonWeather = defineTool({
  name: 'get_weather_json',
  description: 'Weather forecast.',
  input: {
    type: 'object',
    properties: {
      location: { type: 'string', description: 'City name' },
      days: { type: 'integer', minimum: 1, maximum: 14 },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
      detailed: { type: 'boolean' },
      stops: {
        type: 'array',
        items: {
          type: 'object',
          properties: { lat: { type: 'number' }, lon: { type: 'number' } },
          required: ['lat', 'lon'],
        },
      },
      tags: { type: 'array', items: { type: 'string' } },
    },
    required: ['location'],
  },
  execute: (args) => args,
});

function issuesOf(tool: Tool, value: unknown) {
  const result = validateToolArguments(tool, value);
  if (result.ok) throw new Error('expected a failure');
  expect(InvalidToolArgumentsError.isInstance(result.error)).toBe(true);
  return (result.error as InvalidToolArgumentsError).issues;
}

describe.each([
  ['zod', weather as Tool],
  ['JSON Schema', jsonWeather as Tool],
])('validateToolArguments (%s tool)', (_kind, tool) => {
  it('accepts valid arguments without coercions', () => {
    const result = validateToolArguments(tool, { location: 'Paris', days: 3, unit: 'celsius' });
    expect(result).toEqual({
      ok: true,
      value: { location: 'Paris', days: 3, unit: 'celsius' },
      coercions: [],
    });
  });

  it('coerces what converts back exactly, and records each coercion', () => {
    const result = validateToolArguments(tool, {
      location: 'Paris',
      days: '3',
      detailed: 'yes',
      stops: '[{"lat": "48.85", "lon": 2.35}]',
      tags: 'sunny',
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value).toEqual({
      location: 'Paris',
      days: 3,
      detailed: true,
      stops: [{ lat: 48.85, lon: 2.35 }],
      tags: ['sunny'],
    });
    expect(result.coercions.map(({ path, kind }) => `${path}:${kind}`)).toEqual([
      'days:string-to-integer',
      'detailed:string-to-boolean',
      'stops:json-string-to-array',
      'stops[0].lat:string-to-number',
      'tags:value-to-array',
    ]);
    expect(result.coercions[0]).toEqual({ path: 'days', kind: 'string-to-integer', from: '3', to: 3 });
  });

  it('reads every true and false word', () => {
    for (const [word, expected] of [
      ['true', true],
      ['yes', true],
      ['on', true],
      ['1', true],
      ['TRUE', true],
      ['false', false],
      ['no', false],
      ['off', false],
      ['0', false],
      ['False', false],
    ] as const) {
      const result = validateToolArguments(tool, { location: 'x', detailed: word });
      expect(result.ok && result.value.detailed).toBe(expected);
    }
    expect(issuesOf(tool, { location: 'x', detailed: 'maybe' })[0]?.path).toBe('detailed');
  });

  it('refuses numbers that would not convert back unchanged', () => {
    for (const text of ['3.50', '1e400', '-0', '12345678901234567890', ' 3', '0x10', '3.5']) {
      const issues = issuesOf(tool, { location: 'x', days: text });
      expect(issues[0]?.path).toBe('days');
    }
  });

  it('reports an unknown parameter with a did-you-mean', () => {
    const issues = issuesOf(tool, { loction: 'Paris' });
    expect(issues).toContainEqual({
      path: 'loction',
      problem: 'is not a parameter of this tool.',
      suggestion: 'Did you mean "location"?',
    });
    expect(issues).toContainEqual(
      expect.objectContaining({ path: 'location', problem: 'is a required parameter and is missing.' }),
    );
  });

  it('lists the allowed values of an enum, with the closest one', () => {
    const [issue] = issuesOf(tool, { location: 'Paris', unit: 'celcius' });
    expect(issue).toEqual({
      path: 'unit',
      problem: 'must be one of "celsius", "fahrenheit"; got the string "celcius".',
      suggestion: 'Did you mean "celsius"?',
    });
  });

  it('reports every failing field at once, with paths, in a message for the model', () => {
    const result = validateToolArguments(tool, {
      days: 40,
      unit: 'kelvin',
      stops: [{ lat: 1 }, { lat: 'north', lon: 2 }],
      extra: 1,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const paths = (result.error as InvalidToolArgumentsError).issues.map((issue) => issue.path).sort();
    expect(paths).toEqual(['days', 'extra', 'location', 'stops[0].lon', 'stops[1].lat', 'unit'].sort());
    expect(result.error.message).toMatch(
      /^Invalid arguments for tool 'get_weather(_json)?' \(6 problems\):\n- /,
    );
    expect(result.error.message).toMatch(/Fix all of them and call 'get_weather(_json)?' again\.$/);
  });

  it('reads null for an optional field as absent (OpenAI strict mode), and records it', () => {
    const result = validateToolArguments(tool, { location: 'Paris', days: null, unit: null });
    expect(result.ok && result.value).toEqual({ location: 'Paris' });
    expect(result.ok && result.coercions.map((coercion) => coercion.kind)).toEqual([
      'null-to-absent',
      'null-to-absent',
    ]);
    expect(issuesOf(tool, { location: null })[0]?.path).toBe('location');
  });

  it('does nothing forgiving when coerce is false', () => {
    const result = validateToolArguments(tool, { location: 'Paris', days: '3' }, { coerce: false });
    expect(result.ok).toBe(false);
  });

  it('keeps __proto__ keys as data and never changes a prototype', () => {
    const value = JSON.parse('{"location": "x", "__proto__": {"polluted": true}}');
    const issues = issuesOf(tool, value);
    expect(issues[0]?.path).toBe('__proto__');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses values nested deeper than the limit before walking them', () => {
    let deep: unknown = 'leaf';
    for (let index = 0; index < 100; index++) deep = [deep];
    const result = validateToolArguments(tool, { location: 'x', tags: deep });
    expect(!result.ok && LimitExceededError.isInstance(result.error)).toBe(true);
  });
});

describe('validateToolArguments edge cases', () => {
  it('refuses a model setting a hidden parameter, with a clear message', () => {
    const tool = defineTool({
      name: 'list_orders',
      description: 'Orders of the current user.',
      input: z.object({ status: z.string(), userId: z.string() }),
      inject: ['userId'],
      execute: (args) => args,
    });
    expect(validateToolArguments(tool, { status: 'open' }).ok).toBe(true);
    const result = validateToolArguments(tool, { status: 'open', userId: 'admin' });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect((result.error as InvalidToolArgumentsError).issues).toEqual([
        {
          path: 'userId',
          problem: 'is set by the application, not by the model.',
          suggestion: 'Remove "userId"; its value is supplied automatically.',
        },
      ]);
    }
  });

  it('coerces a number to a string when it converts back exactly, and enum members from text', () => {
    const tool = defineTool({
      name: 'lookup',
      description: 'Look up.',
      input: {
        type: 'object',
        properties: { zip: { type: 'string' }, level: { enum: [1, 2, 3] } },
        required: ['zip'],
      },
      execute: (args) => args,
    });
    const result = validateToolArguments(tool, { zip: 75001, level: '2' });
    expect(result.ok && result.value).toEqual({ zip: '75001', level: 2 });
    expect(result.ok && result.coercions.map((coercion) => coercion.kind)).toEqual([
      'number-to-string',
      'string-to-enum-value',
    ]);
  });

  it('applies zod defaults and transforms after coercion', () => {
    const tool = defineTool({
      name: 'search',
      description: 'Search.',
      input: z.object({ query: z.string().trim(), limit: z.number().default(10) }),
      execute: (args) => args,
    });
    expect(validateToolArguments(tool, { query: ' cats ' })).toEqual({
      ok: true,
      value: { query: 'cats', limit: 10 },
      coercions: [],
    });
    const coerced = validateToolArguments(tool, { query: 'cats', limit: '5' });
    expect(coerced.ok && coerced.value).toEqual({ query: 'cats', limit: 5 });
  });

  it('reports zod refinements that JSON Schema cannot express', () => {
    const tool = defineTool({
      name: 'book',
      description: 'Book a room.',
      input: z
        .object({ from: z.string(), to: z.string() })
        .refine((value) => value.from < value.to, { message: 'to must be after from', path: ['to'] }),
      execute: (args) => args,
    });
    const result = validateToolArguments(tool, { from: '2025-02-01', to: '2025-01-01' });
    expect(!result.ok && (result.error as InvalidToolArgumentsError).issues).toEqual([
      { path: 'to', problem: 'to must be after from.' },
    ]);
  });

  it('refuses an arguments value that is not an object', () => {
    for (const value of [null, 'x', 3, [1]]) {
      const result = validateToolArguments(weather, value);
      expect(!result.ok && result.error.code).toBe('invalid_tool_arguments');
    }
  });

  it('never runs a pattern on a string longer than the limit', () => {
    const tool = defineTool({
      name: 'code',
      description: 'Check a code.',
      input: {
        type: 'object',
        properties: { code: { type: 'string', pattern: '^[a-z]+$' } },
        required: ['code'],
      },
      execute: (args) => args,
    });
    expect(validateToolArguments(tool, { code: 'abc' }).ok).toBe(true);
    const result = validateToolArguments(tool, { code: 'a'.repeat(20_000) });
    expect(!result.ok && result.error.message).toMatch(/too long to check against its pattern/);
  });
});

describe('validateToolArguments properties', () => {
  it('only returns results or typed errors, and Object.prototype stays unchanged, whatever the input', () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    const hostileKeys = fc.constantFrom(
      '__proto__',
      'constructor',
      'prototype',
      'location',
      'days',
      'unit',
      'stops',
      'tags',
    );
    const value = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }),
      fc.dictionary(fc.oneof(hostileKeys, fc.string()), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }),
      fc.dictionary(
        hostileKeys,
        fc.oneof(
          fc.jsonValue({ maxDepth: 2 }),
          fc.string().map((text) => `{"polluted": ${JSON.stringify(text)}}`),
        ),
      ),
    );
    fc.assert(
      fc.property(value, fc.boolean(), (input, coerce) => {
        for (const tool of [weather, jsonWeather] as Tool[]) {
          const parsed = JSON.parse(JSON.stringify(input) ?? 'null');
          const result = validateToolArguments(tool, parsed, { coerce });
          if (!result.ok) {
            expect(OrgError.isInstance(result.error)).toBe(true);
            expect(['invalid_tool_arguments', 'limit_exceeded']).toContain(result.error.code);
          }
        }
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns },
    );
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
  });
});

describe('validateToolArguments messages', () => {
  it('does not blame a field it coerced when another field fails, and never guesses from one letter', () => {
    const tool = defineTool({
      name: 'pick',
      description: 'Pick.',
      input: z.object({
        a: z.union([z.literal('x'), z.literal('y')]),
        c: z.union([z.literal(1), z.literal('k')]).optional(),
      }),
      execute: (args) => args,
    });
    expect(tool.inputSchema.properties?.a).toEqual({ type: 'string', enum: ['x', 'y'] });
    const result = validateToolArguments(tool, { a: 'z', c: '1' });
    expect(!result.ok && (result.error as InvalidToolArgumentsError).issues).toEqual([
      { path: 'a', problem: 'must be one of "x", "y"; got the string "z".' },
    ]);
    expect(validateToolArguments(tool, { a: 'x', c: '1' })).toMatchObject({
      ok: true,
      value: { a: 'x', c: 1 },
    });
  });

  it('reports zod formats and refinements next to schema problems', () => {
    const tool = defineTool({
      name: 'signup',
      description: 'Sign up.',
      input: z.object({ email: z.email(), age: z.number().int() }),
      execute: (args) => args,
    });
    const result = validateToolArguments(tool, { email: 'not-an-email', age: 'old' });
    expect(
      !result.ok && (result.error as InvalidToolArgumentsError).issues.map((issue) => issue.path).sort(),
    ).toEqual(['age', 'email']);
  });
});

describe('validateToolArguments with other zod shapes', () => {
  it('works with zod/mini schemas, hidden parameters included', async () => {
    const mini = await import('zod/mini');
    const tool = defineTool({
      name: 'mini',
      description: 'A zod/mini tool.',
      input: mini.object({ count: mini.number(), userId: mini.string() }),
      inject: ['userId'],
      execute: (args) => args,
    });
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: { count: { type: 'number' } },
      required: ['count'],
    });
    expect(validateToolArguments(tool, { count: '3' })).toMatchObject({ ok: true, value: { count: 3 } });
    expect(validateToolArguments(tool, { count: 3, extra: 1 }).ok).toBe(false);
  });

  it('accepts extra keys only where the schema opens the object', () => {
    const tool = defineTool({
      name: 'open',
      description: 'Open objects.',
      input: z.object({ meta: z.looseObject({ id: z.string() }), tags: z.record(z.string(), z.number()) }),
      execute: (args) => args,
    });
    expect(validateToolArguments(tool, { meta: { id: 'a', other: true }, tags: { x: 1 } })).toMatchObject({
      ok: true,
      value: { meta: { id: 'a', other: true }, tags: { x: 1 } },
    });
    const wrong = validateToolArguments(tool, { meta: { id: 'a' }, tags: { x: 'one' } });
    expect(!wrong.ok && (wrong.error as InvalidToolArgumentsError).issues.map((issue) => issue.path)).toEqual(
      ['tags.x'],
    );
  });
});

describe('validateToolArguments with recursive schemas and unions', () => {
  interface Tree {
    name: string;
    children?: Tree[] | undefined;
  }
  const TreeNode: z.ZodType<Tree> = z.object({
    name: z.string(),
    get children() {
      return z.array(TreeNode).optional();
    },
  });
  const tool = defineTool({
    name: 'draw',
    description: 'Draw a tree and a shape.',
    input: z.object({
      root: TreeNode,
      shape: z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('circle'), r: z.number() }),
        z.object({ kind: z.literal('square'), side: z.number() }),
      ]),
    }),
    execute: (args) => args,
  });

  it('coerces inside a recursive schema and a discriminated union', () => {
    const result = validateToolArguments(tool, {
      root: { name: 'a', children: [{ name: 'b', children: [] }] },
      shape: { kind: 'square', side: '2' },
    });
    expect(result.ok && result.value.shape).toEqual({ kind: 'square', side: 2 });
    expect(result.ok && result.coercions.map((coercion) => coercion.path)).toEqual(['shape.side']);
  });

  it('reports problems at depth, against the union branch the value was aiming for', () => {
    const result = validateToolArguments(tool, {
      root: { name: 'a', children: [{ nme: 'b' }] },
      shape: { kind: 'square', sid: 2 },
    });
    expect(
      !result.ok &&
        (result.error as InvalidToolArgumentsError).issues.map(({ path, suggestion }) => [path, suggestion]),
    ).toEqual([
      ['root.children[0].nme', 'Did you mean "name"?'],
      ['root.children[0].name', 'Add "name" (string).'],
      ['shape.sid', 'Did you mean "side"?'],
      ['shape.side', 'Add "side" (number).'],
    ]);
  });
});

describe('validateToolArguments message size', () => {
  it('lists the first 30 problems in the message and keeps all of them in issues', () => {
    const tool = defineTool({
      name: 'sum',
      description: 'Sum.',
      input: z.object({ values: z.array(z.number()) }),
      execute: () => 0,
    });
    const result = validateToolArguments(tool, {
      values: Array.from({ length: 100 }, (_, index) => `n${index}`),
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect((result.error as InvalidToolArgumentsError).issues).toHaveLength(100);
    expect(result.error.message.split('\n').filter((line) => line.startsWith('- values['))).toHaveLength(30);
    expect(result.error.message).toContain('- ... and 70 more like these\nFix all of them');
  });
});

describe('coercion round trip (property)', () => {
  const field = fc.constantFrom('number', 'integer', 'boolean', 'string', 'numbers');
  const valueFor = (kind: string) => {
    switch (kind) {
      case 'number':
        return fc.double({ noNaN: true, noDefaultInfinity: true }).filter((value) => !Object.is(value, -0));
      case 'integer':
        return fc.maxSafeInteger().filter((value) => !Object.is(value, -0));
      case 'boolean':
        return fc.boolean();
      case 'numbers':
        return fc.array(fc.integer(), { maxLength: 4 });
      default:
        return fc.string();
    }
  };
  const zodFor = (kind: string) => {
    switch (kind) {
      case 'number':
        return z.number();
      case 'integer':
        return z.number().int();
      case 'boolean':
        return z.boolean();
      case 'numbers':
        return z.array(z.number());
      default:
        return z.string();
    }
  };
  const stringify = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(stringify)
      : typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : value;

  // Each run defines a tool (schema conversion and checks), so this property is slower than the others.
  it('accepts every number and boolean sent as text and gives back the original value', {
    timeout: 120_000,
  }, () => {
    const scenario = fc
      .uniqueArray(fc.tuple(fc.stringMatching(/^[a-z][a-z_]{0,11}$/), field), {
        minLength: 1,
        maxLength: 6,
        selector: ([name]) => name,
      })
      .chain((fields) =>
        fc.tuple(fc.constant(fields), fc.tuple(...fields.map(([, kind]) => valueFor(kind)))),
      );
    fc.assert(
      fc.property(scenario, ([fields, values]) => {
        const tool = defineTool({
          name: 'generated',
          description: 'A generated tool.',
          input: z.object(Object.fromEntries(fields.map(([name, kind]) => [name, zodFor(kind)]))),
          execute: (args) => args,
        });
        const original = Object.fromEntries(fields.map(([name], index) => [name, values[index]]));
        const sent = JSON.parse(
          JSON.stringify(
            Object.fromEntries(Object.entries(original).map(([name, value]) => [name, stringify(value)])),
          ),
        );
        const result = validateToolArguments(tool, sent);
        expect(result.ok).toBe(true);
        if (result.ok) expect(result.value).toStrictEqual(original);
      }),
      { numRuns },
    );
  });
});
