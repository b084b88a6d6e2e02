import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  defineTool,
  InvalidToolDefinitionError,
  InvalidToolNameError,
  InvalidToolSchemaError,
  ToolRegistry,
  toolNeedsApproval,
  UnsafePatternError,
} from './index.js';

const weatherInput = z.object({
  city: z.string().describe('City name, e.g. Paris'),
  unit: z.enum(['celsius', 'fahrenheit']).optional(),
});

describe('defineTool', () => {
  it('infers the argument type of execute from a zod schema', () => {
    const tool = defineTool({
      name: 'get_weather',
      description: 'Current weather for a city.',
      input: weatherInput,
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ city: string; unit?: 'celsius' | 'fahrenheit' | undefined }>();
        return { temperature: 21, city: args.city };
      },
    });
    expect(tool.name).toBe('get_weather');
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City name, e.g. Paris' },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
      },
      required: ['city'],
    });
    expect(tool.terminal).toBe(false);
    expect(tool.needsApproval).toBe(false);
  });

  it('accepts a JSON Schema input, in a loose dialect too', () => {
    const tool = defineTool({
      name: 'math.factorial',
      description: 'n!',
      input: {
        type: 'dict',
        properties: { n: { type: 'integer' }, scale: { type: 'float' } },
        required: ['n'],
      },
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
        return 1;
      },
    });
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: { n: { type: 'integer' }, scale: { type: 'number' } },
      required: ['n'],
    });
  });

  it('refuses empty or invalid names with a typed error', () => {
    const base = { description: 'x', input: z.object({}), execute: () => 1 };
    for (const name of ['', 'get weather', 'naïve', 'a'.repeat(300), '...']) {
      expect(() => defineTool({ ...base, name })).toThrow(InvalidToolNameError);
    }
    expect(() => defineTool({ ...base, name: 'a'.repeat(64) })).not.toThrow();
    expect(() => defineTool({ ...base, name: 'github:search/issues' })).not.toThrow();
  });

  it('refuses an empty description, a bad timeout and a bad inject list', () => {
    const base = { name: 'tool', description: 'does things', input: z.object({}), execute: () => 1 };
    const error = (() => {
      try {
        defineTool({ ...base, description: '   ' });
      } catch (thrown) {
        return thrown;
      }
      return undefined;
    })();
    expect(InvalidToolDefinitionError.isInstance(error)).toBe(true);
    expect((error as InvalidToolDefinitionError).field).toBe('description');
    expect(() => defineTool({ ...base, timeoutMs: -5 })).toThrow(/timeoutMs/);
    expect(() => defineTool({ ...base, timeoutMs: Number.NaN })).toThrow(InvalidToolDefinitionError);
    expect(() => defineTool({ ...base, inject: ['userId', 'userId'] })).toThrow(/twice/);
  });

  it('declares eager and executeStreaming: eager defaults to false, each checked', () => {
    const base = {
      name: 'tool',
      description: 'does things',
      input: z.object({ q: z.string() }),
      execute: () => 'done',
    };
    const plain = defineTool(base);
    expect(plain.eager).toBe(false);
    expect('executeStreaming' in plain).toBe(false);
    const streaming = defineTool({
      ...base,
      eager: true,
      executeStreaming: async (input) => (await input.arguments).q,
    });
    expect(streaming.eager).toBe(true);
    expect(typeof streaming.executeStreaming).toBe('function');
    expectTypeOf(streaming.executeStreaming).parameter(0).toHaveProperty('arguments');
    expect(() => defineTool({ ...base, eager: 'yes' as never })).toThrow(/eager/);
    expect(() => defineTool({ ...base, executeStreaming: 42 as never })).toThrow(InvalidToolDefinitionError);
  });

  it('refuses schemas that are not objects at the root, or that JSON Schema cannot describe', () => {
    expect(() => defineTool({ name: 't', description: 'd', input: z.string(), execute: () => 1 })).toThrow(
      InvalidToolSchemaError,
    );
    expect(() =>
      defineTool({ name: 't', description: 'd', input: z.object({ when: z.date() }), execute: () => 1 }),
    ).toThrow(/cannot be described as JSON Schema/);
    expect(() =>
      defineTool({
        name: 't',
        description: 'd',
        input: { type: 'object', properties: { a: { type: 'complex' } } },
        execute: () => 1,
      }),
    ).toThrow(/unknown type 'complex'/);
  });

  it('refuses regex patterns prone to catastrophic backtracking, in zod and JSON Schema', () => {
    expect(() =>
      defineTool({
        name: 't',
        description: 'd',
        input: z.object({ s: z.string().regex(/^(a+)+$/) }),
        execute: () => 1,
      }),
    ).toThrow(UnsafePatternError);
    expect(() =>
      defineTool({
        name: 't',
        description: 'd',
        input: { type: 'object', properties: { s: { type: 'string', pattern: '^(a|a)*$' } } },
        execute: () => 1,
      }),
    ).toThrow(UnsafePatternError);
    expect(() =>
      defineTool({
        name: 't',
        description: 'd',
        input: z.object({ s: z.string().regex(/^[a-z]+-\d{3}$/) }),
        execute: () => 1,
      }),
    ).not.toThrow();
  });

  it('with strict: true, refuses a schema strict mode cannot express', () => {
    expect(() =>
      defineTool({
        name: 't',
        description: 'd',
        input: z.object({ tags: z.record(z.string(), z.string()) }),
        strict: true,
        execute: () => 1,
      }),
    ).toThrow(/free-form keys/);
  });

  it('keeps hidden (injected) parameters out of the input schema', () => {
    const tool = defineTool({
      name: 'list_orders',
      description: 'Orders of the current user.',
      input: z.object({ status: z.enum(['open', 'closed']), userId: z.string() }),
      inject: ['userId'],
      execute: ({ userId, status }) => ({ userId, status }),
    });
    expect(tool.inputSchema.properties).not.toHaveProperty('userId');
    expect(tool.inputSchema.required).toEqual(['status']);
    for (const target of ['json-schema', 'openai-strict', 'anthropic', 'bedrock'] as const) {
      expect(JSON.stringify(new ToolRegistry([tool]).specs({ target }))).not.toContain('userId');
    }
  });

  it('evaluates needsApproval as a boolean or a function of the arguments', async () => {
    const tool = defineTool({
      name: 'transfer',
      description: 'Move money.',
      input: z.object({ amount: z.number() }),
      needsApproval: ({ amount }) => amount > 100,
      execute: () => 'ok',
    });
    expect(await toolNeedsApproval(tool, { amount: 5 })).toBe(false);
    expect(await toolNeedsApproval(tool, { amount: 500 })).toBe(true);
  });

  it('fails closed: a truthy non-boolean result, or a predicate that throws or rejects, needs approval', async () => {
    const withPredicate = (needsApproval: (args: Record<string, unknown>) => unknown) =>
      defineTool({
        name: 'delete_repo',
        description: 'Delete a repository.',
        input: { type: 'object', properties: { repo: { type: 'string' } }, required: ['repo'] },
        // A predicate written in JavaScript, or typed loosely, may return anything.
        needsApproval: needsApproval as (args: Record<string, unknown>) => boolean,
        execute: () => 'deleted',
      });
    for (const result of [1, 'yes', {}, []]) {
      expect(
        await toolNeedsApproval(
          withPredicate(() => result),
          { repo: 'org/app' },
        ),
      ).toBe(true);
      expect(
        await toolNeedsApproval(
          withPredicate(async () => result),
          { repo: 'org/app' },
        ),
      ).toBe(true);
    }
    for (const result of [0, '', null, undefined, false]) {
      expect(
        await toolNeedsApproval(
          withPredicate(() => result),
          { repo: 'org/app' },
        ),
      ).toBe(false);
    }
    const throwing = withPredicate((args) => (args.owner as { id: string }).id === 'admin');
    expect(await toolNeedsApproval(throwing, { repo: 'org/app' })).toBe(true);
    const rejecting = withPredicate(async () => {
      throw new Error('policy service unavailable');
    });
    expect(await toolNeedsApproval(rejecting, { repo: 'org/app' })).toBe(true);
  });
});
