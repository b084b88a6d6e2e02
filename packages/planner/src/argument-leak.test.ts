import type { ToolCall } from '@org/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isArgumentEcho } from './index.js';

const call = (args: unknown, id = 'c1'): ToolCall => ({
  id,
  toolName: 'get_weather',
  arguments: JSON.stringify(args),
});

describe('isArgumentEcho', () => {
  it('recognises the arguments echoed bare, fenced, re-ordered or as a list', () => {
    const calls = [call({ city: 'Paris', unit: 'celsius' }), call({ city: 'Rome' }, 'c2')];
    expect(isArgumentEcho('{"unit": "celsius", "city": "Paris"}', calls)).toBe(true);
    expect(isArgumentEcho('```json\n{"city":"Rome"}\n```', calls)).toBe(true);
    expect(isArgumentEcho('{"city":"Rome"}\n{"city":"Paris","unit":"celsius"}', calls)).toBe(true);
  });

  it('keeps real text, other JSON, and anything when the arguments are broken', () => {
    const calls = [call({ city: 'Paris' })];
    expect(isArgumentEcho('Let me check Paris.', calls)).toBe(false);
    expect(isArgumentEcho('{"city": "Rome"}', calls)).toBe(false);
    expect(isArgumentEcho('{"city": "Paris"} and then Rome', calls)).toBe(false);
    expect(
      isArgumentEcho('{"city": "Paris"}', [{ id: 'x', toolName: 'get_weather', arguments: '{city: Paris' }]),
    ).toBe(false);
    expect(isArgumentEcho('   ', calls)).toBe(false);
  });

  const jsonObject = fc.dictionary(
    fc.string({ minLength: 1, maxLength: 8 }),
    fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)),
    { minKeys: 1, maxKeys: 5 },
  );

  it('property: the JSON of a call’s own arguments, in any key order, is an echo', () => {
    fc.assert(
      fc.property(jsonObject, fc.boolean(), (args, fenced) => {
        const reordered = Object.fromEntries(Object.entries(args).reverse());
        const text = fenced
          ? `\`\`\`json\n${JSON.stringify(reordered, null, 2)}\n\`\`\``
          : JSON.stringify(reordered);
        expect(isArgumentEcho(text, [call(args)])).toBe(true);
      }),
      { numRuns: Number(process.env.FC_NUM_RUNS ?? 1000) },
    );
  });

  it('property: prose that is not JSON is never an echo, and the check never throws', () => {
    fc.assert(
      fc.property(fc.string(), jsonObject, (text, args) => {
        const result = isArgumentEcho(text, [call(args)]);
        let isJson = true;
        try {
          JSON.parse(text.replace(/```[a-zA-Z0-9_-]*\s*\n?/g, '\n'));
        } catch {
          isJson = false;
        }
        if (!isJson && !text.includes('{') && !text.includes('[')) expect(result).toBe(false);
      }),
      { numRuns: Number(process.env.FC_NUM_RUNS ?? 1000) },
    );
  });
});

describe('code fences', () => {
  it('are whole lines: backticks inside the JSON are data (a counterexample fast-check found)', () => {
    const args = { '``` ': null, ' ': '' };
    expect(isArgumentEcho(JSON.stringify(args), [call(args)])).toBe(true);
    expect(isArgumentEcho(`\`\`\`json\n${JSON.stringify(args, null, 2)}\n\`\`\``, [call(args)])).toBe(true);
    expect(isArgumentEcho('```\n{"city":"Paris"}\n```', [call({ city: 'Paris' })])).toBe(true);
  });
});
