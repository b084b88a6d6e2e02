import type { ModelResponse } from '@org/core';
import type { ToolObservation } from '@org/tools';
import { describe, expect, it } from 'vitest';
import { exactJsonCopy, JournalValueError, journaledModelResponse, journaledObservation } from './index.js';

const response: ModelResponse = {
  text: 'Paris',
  toolCalls: [{ id: 'c1', toolName: 'get_weather', arguments: '{"city":"Paris"}' }],
  finishReason: 'tool-calls',
  usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12 },
  adjustments: [],
};

describe('journaled values are JSON, exactly what a replay reads back', () => {
  it('copies JSON data as it is, leaving out undefined fields, keeping prototype-named keys as data', () => {
    const hostile = JSON.parse(
      '{"__proto__": {"polluted": true}, "constructor": 1, "nested": [1, "a", null]}',
    );
    const copy = exactJsonCopy({ ...hostile, skipped: undefined }, 'a value');
    expect(Object.hasOwn(copy, '__proto__')).toBe(true);
    expect(copy).toEqual(hostile);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.parse(JSON.stringify(copy))).toEqual(copy);
  });

  it.each([
    ['a BigInt', { count: 10n }, "'count' is a bigint"],
    ['NaN', { ratio: Number.NaN }, "'ratio' is NaN"],
    ['a Date', { at: new Date(0) }, "'at' is a Date object, not plain data"],
    ['a function', { call: () => 1 }, "'call' is a function"],
    ['an undefined array item', { list: [1, undefined] }, "'list[1]' is undefined"],
  ])('refuses %s, naming where it is', (_name, value, problem) => {
    expect(() => exactJsonCopy(value, 'the response of model call 0.0')).toThrow(
      `Cannot journal the response of model call 0.0: ${problem}`,
    );
  });

  it('refuses a cycle with a typed error', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    let thrown: unknown;
    try {
      exactJsonCopy(cyclic, 'a value');
    } catch (error) {
      thrown = error;
    }
    expect(JournalValueError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code: 'journal_value_invalid', path: 'self' });
  });

  it('journals a model response as JSON, its raw provider response converted', () => {
    const journaled = journaledModelResponse(
      { ...response, rawResponse: { id: 7n, at: new Date(0) } },
      'a response',
    );
    expect(journaled).toEqual({ ...response, rawResponse: { id: '7', at: '1970-01-01T00:00:00.000Z' } });
    expect(journaledModelResponse(response, 'a response')).toEqual(response);
  });

  it('journals an observation as toJsonValue writes it: raw output as JSON', () => {
    const observation: ToolObservation = {
      actionId: 'a1',
      toolName: 'lookup',
      status: 'success',
      output: { found: true },
      rawOutput: { found: true, at: new Date(0), tags: new Set(['x']) },
      durationMs: 3,
    };
    expect(journaledObservation(observation)).toEqual({
      ...observation,
      rawOutput: { found: true, at: '1970-01-01T00:00:00.000Z', tags: ['x'] },
    });
  });
});
