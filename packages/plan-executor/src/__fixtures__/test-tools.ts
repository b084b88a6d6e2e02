import { defineTool, ToolRegistry } from '@org/tools';
import { z } from 'zod';
import type { Clock } from '../clock.js';

/** Tools for the tests. `clock` drives the `wait` tool (virtual time in most tests). */
export function createTestTools(clock?: Clock): ToolRegistry {
  const getWeather = defineTool({
    name: 'get_weather',
    description: 'Current weather for a city.',
    input: z.object({ city: z.string() }),
    // Closed (`strictObject`): the output check refuses other fields, so a reference to one is a validation problem.
    output: z.strictObject({ city: z.string(), temperature: z.number(), conditions: z.string() }),
    execute: ({ city }) => ({ city, temperature: 21, conditions: 'sunny' }),
  });
  const search = defineTool({
    name: 'search',
    description: 'Search the web.',
    input: z.object({ query: z.string(), limit: z.number().int().optional() }),
    execute: ({ query }) => ({
      total: 2,
      items: [
        { id: 'r1', title: `About ${query}`, url: 'https://example.com/1' },
        { id: 'r2', title: 'Second', url: 'https://example.com/2' },
      ],
    }),
  });
  const echo = defineTool({
    name: 'echo',
    description: 'Returns its value argument.',
    input: z.object({ value: z.unknown() }),
    execute: ({ value }) => value,
  });
  const add = defineTool({
    name: 'add',
    description: 'Adds two numbers.',
    input: z.object({ a: z.number(), b: z.number() }),
    execute: ({ a, b }) => a + b,
  });
  const jsonText = defineTool({
    name: 'json_text',
    description: 'Returns JSON as a string.',
    input: z.object({}),
    execute: () => '{"user":{"name":"Ada","tags":["x","y"]}}',
  });
  const fail = defineTool({
    name: 'fail',
    description: 'Always fails.',
    input: z.object({ message: z.string().optional() }),
    execute: ({ message }): never => {
      throw new Error(message ?? 'boom');
    },
  });
  const wait = defineTool({
    name: 'wait',
    description: 'Waits, then returns its label.',
    input: z.object({ ms: z.number(), label: z.string().optional(), fail: z.boolean().optional() }),
    execute: async ({ ms, label, fail: shouldFail }, context) => {
      await (clock ?? realSleep).sleep(ms, context.signal);
      if (context.signal.aborted) throw new Error('aborted');
      if (shouldFail) throw new Error(`${label ?? 'wait'} failed`);
      return { label: label ?? 'done', ms };
    },
  });
  return new ToolRegistry([getWeather, search, echo, add, jsonText, fail, wait]);
}

const realSleep: Pick<Clock, 'sleep'> = {
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    }),
};
