/**
 * Issue 18, class 3: one strict JSON reader for every piece of model, tool or server text. Every public entry that
 * reads such text refuses a key repeated with another value and an integer a double cannot hold (never "last wins",
 * never rounded), keeps `__proto__` as data, and bounds nesting before it recurses: `readStrictJson` of `@org/core`
 * (which the providers use for history arguments), `parseToolArguments`, `parsePlan` (whole text and argument
 * strings), `executePlan` reading a tool's output for a `$ref` path, and the planner's argument-leak check.
 */

import { readStrictJson } from '@org/core';
import { executePlan, PlanValidationError, parsePlan } from '@org/plan-executor';
import { isArgumentEcho } from '@org/planner';
import { defineTool, MalformedToolArgumentsError, parseToolArguments, ToolRegistry } from '@org/tools';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { figure, figures, measure } from './support/bounds.js';
import { NUM_RUNS } from './support/run-helpers.js';

const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'prototype', 'hasOwnProperty', 'valueOf'];
const key = fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES), fc.string({ maxLength: 8 }));
const smallJson = fc.jsonValue({ maxDepth: 2 });

/** Two different JSON values. */
const twoDifferent = fc
  .tuple(smallJson, smallJson)
  .filter(([left, right]) => JSON.stringify(left) !== JSON.stringify(right));

/** Integers a double cannot hold exactly (beyond 2^53, and not equal to their rounded value), as digits. */
const inexactInteger = fc
  .bigInt({ min: 2n ** 53n + 1n, max: 10n ** 40n })
  .filter((value) => BigInt(Number(value)) !== value)
  .map((value) => value.toString());

function duplicateKeyText(name: string, first: unknown, second: unknown): string {
  const quoted = JSON.stringify(name);
  return `{${quoted}:${JSON.stringify(first)},"other":1,${quoted}:${JSON.stringify(second)}}`;
}

const tools = new ToolRegistry([
  defineTool({
    name: 'source',
    description: 'Returns the text it is given.',
    input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    execute: (args: Record<string, unknown>) => args.text,
  }),
  defineTool({
    name: 'sink',
    description: 'Takes any value.',
    input: { type: 'object', properties: { value: {} } },
    execute: (args: Record<string, unknown>) => ({ received: args.value ?? null }),
  }),
]);

afterAll(() => {
  if (figures.length > 0) console.info(`[issue 18 figures: json readers]\n${figures.join('\n')}`);
});

describe('issue 18, class 3: one strict JSON reader', () => {
  it('property: valid JSON with prototype-named keys reads back equal to JSON.parse, __proto__ as own data', () => {
    fc.assert(
      fc.property(fc.dictionary(key, smallJson, { maxKeys: 6 }), (object) => {
        const text = JSON.stringify(object);
        const read = readStrictJson(text);
        expect(read.ok).toBe(true);
        if (!read.ok) return;
        expect(read.value).toEqual(JSON.parse(text));
        for (const name of Object.keys(JSON.parse(text)))
          expect(Object.hasOwn(read.value as object, name)).toBe(true);
        const parsed = parseToolArguments(text);
        expect(parsed.ok).toBe(true);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('property: a key repeated with another value is refused by every reader, never "last wins"', async () => {
    await fc.assert(
      fc.asyncProperty(key, twoDifferent, async (name, [first, second]) => {
        const text = duplicateKeyText(name, first, second);
        // core (and so the providers' history conversion)
        const read = readStrictJson(text);
        expect(read.ok).toBe(false);
        // direct tool call
        const parsed = parseToolArguments(text);
        expect(parsed.ok).toBe(false);
        if (!parsed.ok) expect(MalformedToolArgumentsError.isInstance(parsed.error)).toBe(true);
        // a plan step's argument string, and the same object inside a whole plan given as text
        const step = parsePlan({ steps: [{ id: 'a', tool: 'sink', arguments: text }] });
        expect(step.ok).toBe(false);
        if (!step.ok) expect(step.error.problems[0]?.code).toBe('invalid_arguments_json');
        const whole = parsePlan(`{"steps":[{"id":"a","tool":"sink","arguments":${text}}]}`);
        expect(whole.ok).toBe(false);
        if (!whole.ok) expect(PlanValidationError.isInstance(whole.error)).toBe(true);
        // the leak check never takes it for an echo of the last value's arguments (JSON.parse would)
        const lastWins = JSON.stringify({ ...JSON.parse(text) });
        expect(isArgumentEcho(text, [{ id: 'c', toolName: 'sink', arguments: lastWins }])).toBe(false);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('property: an integer beyond 2^53 is refused by every reader, never rounded into a tool', async () => {
    await fc.assert(
      fc.asyncProperty(inexactInteger, async (digits) => {
        const text = `{"account": ${digits}}`;
        expect(readStrictJson(text).ok).toBe(false);
        const parsed = parseToolArguments(text);
        expect(parsed.ok).toBe(false);
        const plan = parsePlan({ steps: [{ id: 'a', tool: 'sink', arguments: `{"value": ${digits}}` }] });
        expect(plan.ok).toBe(false);
        expect(isArgumentEcho(text, [{ id: 'c', toolName: 'sink', arguments: text }])).toBe(false);
        // A tool's output holding the number: a reference into it is missing, with the reason; never a rounded value.
        const result = await executePlan(
          {
            steps: [
              { id: 's', tool: 'source', arguments: { text } },
              { id: 't', tool: 'sink', arguments: { value: '$ref:s.account' } },
            ],
          },
          { tools },
        );
        const sink = result.steps.find((step) => step.id === 't');
        expect(sink?.status).toBe('success');
        expect(sink?.output).toEqual({ received: null });
        expect(sink?.missingReferences?.[0]?.reason).toMatch(/more digits than can be represented exactly/);
      }),
      { numRuns: Math.max(1, Math.floor(NUM_RUNS / 4)) },
    );
  });

  it('property: a tool output with a repeated key: a reference into it is missing with the reason', async () => {
    await fc.assert(
      fc.asyncProperty(twoDifferent, async ([first, second]) => {
        const result = await executePlan(
          {
            steps: [
              { id: 's', tool: 'source', arguments: { text: duplicateKeyText('k', first, second) } },
              { id: 't', tool: 'sink', arguments: { value: '$ref:s.k' } },
            ],
          },
          { tools },
        );
        const sink = result.steps.find((step) => step.id === 't');
        expect(sink?.output).toEqual({ received: null });
        expect(sink?.missingReferences?.[0]?.reason).toMatch(/appears twice/);
      }),
      { numRuns: Math.max(1, Math.floor(NUM_RUNS / 4)) },
    );
  });

  it('property: any cut of valid JSON, any depth: a typed result, never a throw or a stack overflow', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 4 }),
        fc.nat(),
        fc.integer({ min: 1, max: 20_000 }),
        (value, cut, depth) => {
          const text = JSON.stringify(value);
          const prefix = text.slice(0, cut % (text.length + 1));
          const read = readStrictJson(prefix, { maxDepth: 64 });
          expect(typeof read.ok).toBe('boolean');
          const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
          const deep = readStrictJson(nested, { maxDepth: 64 });
          expect(deep.ok).toBe(depth <= 64);
          if (!deep.ok) expect(deep.limit).toBe('depth');
          const parsed = parseToolArguments(`{"a":${nested}}`);
          expect(parsed.ok).toBe(depth < 64);
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });

  it('reads in time and heap linear in the text: 1 MB of hostile text against 16 KB of it', () => {
    // Hostile: repeated keys with equal values (each compared), escapes, prototype names, long digit runs.
    const unit = `"__proto__":{"x":"\\u0041\\n${'9'.repeat(15)}"},"__proto__":{"x":"\\u0041\\n${'9'.repeat(15)}"},`;
    const build = (bytes: number): string => `{${unit.repeat(Math.ceil(bytes / unit.length))}"end":1}`;
    const small = build(16 * 1024);
    const large = build(1024 * 1024);
    expect(readStrictJson(large).ok).toBe(true);
    const smallCost = measure(() => readStrictJson(small), 5);
    const largeCost = measure(() => readStrictJson(large), 3);
    const ratio = largeCost.ms / large.length / (Math.max(smallCost.ms, 0.05) / small.length);
    figure(
      `readStrictJson: ${(largeCost.ms / (large.length / 2 ** 20)).toFixed(1)} ms per MB of hostile text; per-byte ratio 1 MB / 16 KB ${ratio.toFixed(2)}; heap ${(largeCost.heapBytes / large.length).toFixed(1)} bytes per input byte`,
    );
    expect(ratio).toBeLessThan(8);
    expect(largeCost.heapBytes).toBeLessThan(64 * large.length);
  });
});
