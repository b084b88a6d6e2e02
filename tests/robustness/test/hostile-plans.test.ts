/**
 * Issue 18, classes 9 and 5: limits checked before the work grows, and no super-linear work on model input.
 *
 * Class 9: a plan of a few KB whose steps repeat a `$ref` to a large output used to grow each step's arguments to
 * hundreds of MB; the filled arguments are now held to `maxArgumentsBytes` while they are filled (before any text is
 * built), and outputs read for references to `maxReferencedOutputBytes`.
 *
 * Class 5: every walk and suggestion search over model input costs time linear in it: plan validation with many
 * unknown references (did-you-mean over model-chosen ids), `closestMatch` on huge names, the schema walker on a
 * recursive schema with unions at every level, the argument-leak check on long text.
 */

import { closestMatch } from '@org/core';
import { executePlan, validatePlan } from '@org/plan-executor';
import { isArgumentEcho } from '@org/planner';
import { defineTool, parseToolArguments, ToolRegistry, validateToolArguments } from '@org/tools';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { figure, figures, measure, measureAsync } from './support/bounds.js';
import { NUM_RUNS } from './support/run-helpers.js';

const PROTOTYPE_IDS = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'prototype'];

/** The largest argument size each `sink` call received, to check what actually ran. */
let largestArguments = 0;
const OUTPUT = 'x'.repeat(16 * 1024);
const hostileTools = new ToolRegistry([
  defineTool({
    name: 'big',
    description: 'Returns a large output.',
    input: { type: 'object', properties: { size: { type: 'integer' } } },
    execute: (args: Record<string, unknown>) =>
      typeof args.size === 'number' ? 'y'.repeat(args.size) : { text: OUTPUT, items: [OUTPUT, OUTPUT] },
  }),
  defineTool({
    name: 'sink',
    description: 'Takes anything.',
    input: { type: 'object', properties: {}, additionalProperties: true },
    execute: (args: Record<string, unknown>) => {
      largestArguments = Math.max(largestArguments, JSON.stringify(args).length);
      return 'ok';
    },
  }),
]);

afterAll(() => {
  if (figures.length > 0) console.info(`[issue 18 figures: hostile plans]\n${figures.join('\n')}`);
});

describe('issue 18, class 9: limits hold what actually runs', () => {
  it('property: steps repeating references to a large output never run with arguments past the limit', async () => {
    const maxArgumentsBytes = 64 * 1024;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 0, max: 300 }),
        fc.constantFrom('$ref:a', '$ref:a.text', '$ref:a.items', '$ref:a.items.0'),
        async (stepCount, textRepeats, wholeRepeats, reference) => {
          largestArguments = 0;
          const steps = [{ id: 'a', tool: 'big', arguments: {} }];
          for (let index = 0; index < stepCount; index++) {
            steps.push({
              id: `s${index}`,
              tool: 'sink',
              arguments: {
                text: `${reference} `.repeat(textRepeats),
                whole: Array.from({ length: wholeRepeats }, () => reference),
              } as never,
            });
          }
          const result = await executePlan({ steps }, { tools: hostileTools, limits: { maxArgumentsBytes } });
          expect(result.steps).toHaveLength(stepCount + 1);
          for (const step of result.steps.slice(1)) {
            if (step.status === 'success') continue;
            expect(step.status).toBe('error');
            expect(step.error?.code).toBe('limit_exceeded');
          }
          // Counted as UTF-16 units of JSON text: what ran is within the limit (strings of ASCII here).
          expect(largestArguments).toBeLessThanOrEqual(maxArgumentsBytes);
        },
      ),
      { numRuns: Math.max(1, Math.floor(NUM_RUNS / 10)) },
    );
  });

  it('the issue example: 1 MB output, 50 steps of 1 000 references each: typed errors, bounded heap and time', async () => {
    largestArguments = 0;
    const reference = Array.from({ length: 1000 }, () => '$ref:a').join(' ');
    const steps = [
      { id: 'a', tool: 'big', arguments: { size: 1024 * 1024 } },
      ...Array.from({ length: 50 }, (_, index) => ({
        id: `s${index}`,
        tool: 'sink',
        arguments: { text: reference, again: [reference] },
      })),
    ];
    const planBytes = JSON.stringify({ steps }).length;
    let statuses: string[] = [];
    const cost = await measureAsync(async () => {
      const result = await executePlan({ steps }, { tools: hostileTools });
      statuses = result.steps.slice(1).map((step) => `${step.status}:${step.error?.code}`);
    }, 1);
    expect(new Set(statuses)).toEqual(new Set(['error:limit_exceeded']));
    expect(largestArguments).toBe(0);
    figure(
      `executePlan, ${(planBytes / 1024).toFixed(0)} KB plan (50 steps × 1 000 $ref to a 1 MB output; unbounded this was 50 GB of arguments): ${cost.ms.toFixed(0)} ms, heap +${(cost.heapBytes / 2 ** 20).toFixed(1)} MB; every step limit_exceeded`,
    );
    expect(cost.heapBytes).toBeLessThan(256 * 2 ** 20);
  });

  it('an output over maxReferencedOutputBytes is not read for a reference: missing, with the reason', async () => {
    const steps = [
      { id: 'a', tool: 'big', arguments: { size: 10 } },
      { id: 'b', tool: 'sink', arguments: { value: '$ref:a.field' } },
    ];
    const json = defineTool({
      name: 'big',
      description: 'Returns JSON text.',
      input: { type: 'object', properties: { size: { type: 'integer' } } },
      execute: () => JSON.stringify({ field: 'z'.repeat(4096) }),
    });
    const tools = new ToolRegistry([json, hostileTools.get('sink')!]);
    const result = await executePlan({ steps }, { tools, limits: { maxReferencedOutputBytes: 1024 } });
    expect(result.steps[1]?.missingReferences?.[0]?.reason).toMatch(/maxReferencedOutputBytes/);
  });
});

describe('issue 18, class 5: work linear in the model input', () => {
  it('property: random plans with prototype-named ids and keys, references anywhere: a typed result', () => {
    const id = fc.oneof(fc.constantFrom(...PROTOTYPE_IDS), fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/));
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            id,
            tool: fc.constantFrom('sink', 'big', 'sinc', 'constructor'),
            keys: fc.array(fc.oneof(fc.constantFrom(...PROTOTYPE_IDS), fc.string({ maxLength: 5 })), {
              maxLength: 4,
            }),
            refs: fc.array(fc.tuple(id, fc.constantFrom('', '.text', '.__proto__', '.items.0')), {
              maxLength: 4,
            }),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        (rawSteps) => {
          const steps = rawSteps.map((step) => {
            const args: Record<string, unknown> = {};
            step.keys.forEach((key, index) => {
              Object.defineProperty(args, key, {
                value:
                  step.refs[index] === undefined
                    ? key
                    : `$ref:${step.refs[index]![0]}${step.refs[index]![1]}`,
                enumerable: true,
                writable: true,
                configurable: true,
              });
            });
            return { id: step.id, tool: step.tool, arguments: args };
          });
          const checked = validatePlan({ steps }, { tools: hostileTools });
          if (!checked.ok) {
            for (const problem of checked.error.problems) expect(typeof problem.code).toBe('string');
          }
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });

  it('validatePlan: did-you-mean over many unknown references is linear (64-character ids, 500 steps)', () => {
    const ids = Array.from(
      { length: 500 },
      (_, index) => `${'step_'.repeat(12)}${String(index).padStart(4, '0')}`,
    );
    const planWith = (references: number) => ({
      steps: ids.map((stepId, index) => ({
        id: stepId,
        tool: 'sink',
        arguments:
          index === 0
            ? {
                refs: Array.from(
                  { length: references },
                  (_, n) => `$ref:${'stap_'.repeat(12)}${String(n % 9999).padStart(4, '0')}`,
                ),
              }
            : {},
      })),
    });
    // 12 000 references of 69 characters stay under the 1 MiB argument limit, so every one is checked.
    const small = planWith(750);
    const large = planWith(12000);
    const checked = validatePlan(large, { tools: hostileTools });
    expect(checked.ok).toBe(false);
    if (!checked.ok)
      expect(checked.error.problems.filter((p) => p.code === 'unknown_step')).toHaveLength(12000);
    const smallCost = measure(() => validatePlan(small, { tools: hostileTools }));
    const largeCost = measure(() => validatePlan(large, { tools: hostileTools }));
    const ratio = largeCost.ms / 12000 / (smallCost.ms / 750);
    figure(
      `validatePlan, unknown references × 500 ids of 64 chars: ${((largeCost.ms / 12000) * 1000).toFixed(1)} µs per reference at 12 000 (per-reference ratio to 750: ${ratio.toFixed(2)})`,
    );
    expect(ratio).toBeLessThan(4);
  });

  it('closestMatch: a 1 MB name or 10 000 candidates of 10 KB cost a bounded search', () => {
    const candidates = Array.from({ length: 10_000 }, (_, index) => `${'c'.repeat(10_000)}${index}`);
    const huge = 'q'.repeat(1024 * 1024);
    const cost = measure(() => {
      closestMatch(huge, candidates);
      closestMatch('c'.repeat(100), candidates);
      closestMatch(
        'x'.repeat(100),
        Array.from({ length: 10_000 }, (_, index) => `${'x'.repeat(99)}${index}`),
      );
    });
    figure(
      `closestMatch, 1 MB input against 10 000 candidates of 10 KB: ${cost.ms.toFixed(1)} ms (bounded work)`,
    );
    const baseline = measure(() => closestMatch('get_wether', ['get_weather', 'search', 'send_email']), 5);
    expect(cost.ms).toBeLessThan(Math.max(200, baseline.ms * 1e5));
  });

  it('schema walker: a recursive schema with unions at every level costs time linear in the depth', () => {
    const tree = defineTool({
      name: 'tree',
      description: 'A tree.',
      input: {
        type: 'object',
        properties: { root: { $ref: '#/$defs/node' } },
        required: ['root'],
        $defs: {
          node: {
            anyOf: [
              {
                type: 'object',
                properties: { child: { $ref: '#/$defs/node' }, value: { type: 'integer' } },
                required: ['value'],
                additionalProperties: false,
              },
              { type: 'null' },
            ],
          },
        },
      },
      execute: () => 'ok',
    });
    /** A chain `depth` deep whose leaf is wrong: every level tries both branches, with and without coercion. */
    const text = (depth: number): string =>
      `{"root":${'{"value":1,"child":'.repeat(depth)}{"value":"not a number"}${'}'.repeat(depth)}}`;
    const timeOf = (depth: number) => {
      const parsed = parseToolArguments(text(depth));
      if (!parsed.ok) throw parsed.error;
      return measure(() => {
        const checked = validateToolArguments(tree, parsed.value);
        expect(checked.ok).toBe(false);
      });
    };
    const shallow = timeOf(15);
    const deep = timeOf(60);
    const ratio = deep.ms / 60 / (Math.max(shallow.ms, 0.05) / 15);
    figure(
      `validateToolArguments, recursive anyOf schema, wrong leaf 60 deep: ${deep.ms.toFixed(1)} ms (per-level ratio to 15 deep: ${ratio.toFixed(2)}; exponential before the work budget)`,
    );
    expect(ratio).toBeLessThan(16);
  });

  it('property: the argument-leak check on long or hostile text never throws and costs time in the arguments', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 200 }),
        fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 })),
        (noise, args) => {
          const text = JSON.stringify(args);
          const calls = [{ id: 'c', toolName: 't', arguments: text }];
          expect(isArgumentEcho(text, calls)).toBe(true);
          expect(typeof isArgumentEcho(`${noise}\n\n${noise}`, calls)).toBe('boolean');
        },
      ),
      { numRuns: NUM_RUNS },
    );
    const calls = [{ id: 'c', toolName: 't', arguments: '{"city":"Paris"}' }];
    const long = `${'{"city":"Paris"}\n\n'.repeat(60_000)}`;
    const cost = measure(() => expect(isArgumentEcho(long, calls)).toBe(false));
    const baseline = measure(() => isArgumentEcho('{"city":"Paris"}\n\n{"city":"Paris"}', calls), 5);
    figure(
      `isArgumentEcho, 1 MB of repeated JSON against 16 bytes of arguments: ${cost.ms.toFixed(2)} ms (34 bytes: ${baseline.ms.toFixed(3)} ms)`,
    );
    // Linear in the arguments, not the text: 1 MB costs what a short text does, within a generous factor.
    expect(cost.ms).toBeLessThan(Math.max(1, baseline.ms) * 100);
  });
});
