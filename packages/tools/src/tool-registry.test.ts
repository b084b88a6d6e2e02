import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  DuplicateToolError,
  defineTool,
  InvalidToolOptionError,
  PROVIDER_TOOL_NAME_PATTERN,
  ToolNameMapping,
  ToolRegistry,
  toolCallToAction,
} from './index.js';

const make = (name: string) =>
  defineTool({
    name,
    description: `the ${name} tool`,
    input: z.object({ q: z.string() }),
    execute: () => name,
  });

describe('ToolRegistry.from', () => {
  const tool = defineTool({
    name: 'search',
    description: 'Searches.',
    input: z.object({}),
    execute: () => [],
  });

  it('returns a registry as is, and builds one from an array or any iterable', () => {
    const registry = new ToolRegistry([tool]);
    expect(ToolRegistry.from(registry)).toBe(registry);
    expect(ToolRegistry.from([tool]).names()).toEqual(['search']);
    expect(ToolRegistry.from(new Set([tool])).names()).toEqual(['search']);
  });

  it('rebuilds a registry from another copy of the package (it fails instanceof)', () => {
    const foreign = { list: () => [tool], specs: () => [] };
    expect(ToolRegistry.from(foreign as never).names()).toEqual(['search']);
  });

  it('refuses anything else with an error naming the option the caller was given', () => {
    for (const bad of [undefined, null, 42, 'search', { search: tool }]) {
      expect(() => ToolRegistry.from(bad as never, 'nestedTools')).toThrow(
        expect.objectContaining({ code: 'invalid_tool_option', option: 'nestedTools' }),
      );
    }
    expect(() => ToolRegistry.from(7 as never)).toThrow(
      expect.toSatisfy((error: unknown) => InvalidToolOptionError.isInstance(error)),
    );
  });
});

describe('ToolRegistry', () => {
  it('registers, gets, lists and names tools in order', () => {
    const registry = new ToolRegistry([make('search'), make('fetch')]);
    expect(registry.names()).toEqual(['search', 'fetch']);
    expect(registry.list().map((tool) => tool.name)).toEqual(['search', 'fetch']);
    expect(registry.get('search')?.name).toBe('search');
    expect(registry.has('fetch')).toBe(true);
    expect(registry.size).toBe(2);
  });

  it('unregisters a tool: gone from get, names, resolve and the cached specs; the name can be reused', () => {
    const registry = new ToolRegistry([make('search'), make('math.factorial'), make('math_factorial')]);
    expect(registry.specs().map((spec) => spec.name)).toEqual([
      'search',
      'math_factorial_2',
      'math_factorial',
    ]);
    expect(registry.unregister('math_factorial')).toBe(true);
    expect(registry.unregister('math_factorial')).toBe(false);
    expect(registry.unregister('__proto__')).toBe(false);
    expect(registry.names()).toEqual(['search', 'math.factorial']);
    // The mapping is recomputed: the namespaced name now gets the unsuffixed provider name.
    expect(registry.specs().map((spec) => spec.name)).toEqual(['search', 'math_factorial']);
    expect(registry.resolve('math_factorial')?.name).toBe('math.factorial');
    expect(registry.unregister('search')).toBe(true);
    expect(registry.resolve('search')).toBeUndefined();
    registry.register(make('search'));
    expect(registry.names()).toEqual(['math.factorial', 'search']);
  });

  it('rejects a duplicate name with a typed error', () => {
    const registry = new ToolRegistry([make('search')]);
    expect(() => registry.register(make('search'))).toThrow(DuplicateToolError);
    try {
      registry.register(make('search'));
    } catch (error) {
      expect(DuplicateToolError.isInstance(error) && error.toolName).toBe('search');
      expect(DuplicateToolError.isInstance(error) && error.code).toBe('duplicate_tool');
    }
  });

  it('treats __proto__, constructor and prototype as ordinary unknown names', () => {
    const registry = new ToolRegistry([make('search')]);
    for (const name of ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty']) {
      expect(registry.get(name)).toBeUndefined();
      expect(registry.has(name)).toBe(false);
      expect(registry.resolve(name)).toBeUndefined();
    }
  });

  it('composes registries; the same tool twice is kept once, two tools with one name are refused', () => {
    const search = make('search');
    const composed = ToolRegistry.compose(
      new ToolRegistry([search]),
      new ToolRegistry([search, make('fetch')]),
    );
    expect(composed.names()).toEqual(['search', 'fetch']);
    expect(() => ToolRegistry.compose(new ToolRegistry([make('a')]), new ToolRegistry([make('a')]))).toThrow(
      DuplicateToolError,
    );
  });

  it('maps names providers reject to valid ones, collision-safe, and back', () => {
    const registry = new ToolRegistry([make('math.factorial'), make('math_factorial'), make('fs/read')]);
    const names = registry.specs().map((spec) => spec.name);
    expect(names).toEqual(['math_factorial_2', 'math_factorial', 'fs_read']);
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(registry.resolve('math_factorial_2')?.name).toBe('math.factorial');
    expect(registry.resolve('math_factorial')?.name).toBe('math_factorial');
    expect(registry.resolve('math.factorial')?.name).toBe('math.factorial');
    expect(registry.resolve('fs_read')?.name).toBe('fs/read');
  });

  it('maps a name that starts with a digit or a dash (Gemini refuses it) to one that starts with an underscore', () => {
    const taken = '_21st_builder';
    const mapping = new ToolNameMapping(['21st_builder', taken, '-dash', `9${'x'.repeat(63)}`]);
    expect(mapping.toProvider(taken)).toBe(taken);
    expect(mapping.toProvider('21st_builder')).toBe('_21st_builder_2');
    expect(mapping.toProvider('-dash')).toBe('_-dash');
    const long = mapping.toProvider(`9${'x'.repeat(63)}`) ?? '';
    expect(long.length).toBeLessThanOrEqual(64);
    for (const name of ['21st_builder', taken, '-dash', `9${'x'.repeat(63)}`]) {
      const sent = mapping.toProvider(name) ?? '';
      expect(sent).toMatch(PROVIDER_TOOL_NAME_PATTERN);
      expect(mapping.fromProvider(sent)).toBe(name);
    }
  });

  it('shortens long mapped names to 64 characters and keeps them distinct', () => {
    const long = `${'a.'.repeat(40)}x`;
    const longer = `${'a.'.repeat(40)}y`;
    const mapping = new ToolNameMapping([long, longer]);
    const first = mapping.toProvider(long)!;
    const second = mapping.toProvider(longer)!;
    expect(first.length).toBeLessThanOrEqual(64);
    expect(first).not.toBe(second);
    expect(mapping.fromProvider(first)).toBe(long);
    expect(mapping.fromProvider(second)).toBe(longer);
  });

  it('describes every tool for every target; openai-strict falls back to non-strict when it must', () => {
    const dictionary = defineTool({
      name: 'tag',
      description: 'Set tags.',
      input: z.object({ tags: z.record(z.string(), z.string()) }),
      execute: () => 'ok',
    });
    const registry = new ToolRegistry([make('search'), dictionary]);
    const strict = registry.specs({ target: 'openai-strict' });
    expect(strict[0]).toMatchObject({
      name: 'search',
      strict: true,
      inputSchema: { additionalProperties: false },
    });
    expect(strict[1]).toMatchObject({ name: 'tag', strict: false });
    for (const target of ['json-schema', 'anthropic', 'bedrock'] as const) {
      const specs = registry.specs({ target });
      expect(specs.map((spec) => spec.name)).toEqual(['search', 'tag']);
      expect(specs.every((spec) => spec.strict === undefined)).toBe(true);
    }
  });

  it('never registers a value that is not a tool', () => {
    const registry = new ToolRegistry();
    expect(() => registry.register({ name: 'x' } as never)).toThrow(/not a tool/);
  });
});

describe('ToolRegistry.specs: tools defined strict: true', () => {
  it('sends a strict: true tool strict, in the strict dialect, for every target', () => {
    const weather = defineTool({
      name: 'get_weather',
      description: 'Current weather for a city.',
      input: z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']).optional() }),
      strict: true,
      execute: ({ city, unit }) => ({ city, unit: unit ?? 'celsius' }),
    });
    const registry = new ToolRegistry([weather, make('search')]);
    const openai = registry.specs({ target: 'openai-strict' })[0];
    expect(openai).toMatchObject({ name: 'get_weather', strict: true });
    expect(openai?.inputSchema).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['city', 'unit'],
    });
    for (const target of ['json-schema', 'anthropic', 'bedrock'] as const) {
      const [strictSpec, plainSpec] = registry.specs({ target });
      expect(strictSpec).toEqual(openai);
      expect(plainSpec?.strict).toBeUndefined();
    }
    // The strict dialect's `null` for an optional field is read back as absent, whatever the target.
    const result = toolCallToAction(registry, {
      id: 'call_1',
      toolName: 'get_weather',
      arguments: '{"city": "Paris", "unit": null}',
    });
    expect(result.ok && result.action.args).toEqual({ city: 'Paris' });
  });
});
