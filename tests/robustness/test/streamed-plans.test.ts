/**
 * Issue 15: the entry points that read a model's text while it streams. `IncrementalJsonReader` of
 * `@org/plan-executor` (the incremental JSON parser, `@streamparser/json` underneath) and `execute_tool_plan` started
 * on its streaming arguments through `executeStreamingAction` of `@org/tools`. Hostile text, split anywhere, must give
 * a typed result: the reader fails exactly when the one strict reader refuses the text, keeps `__proto__` as data and
 * stops at its limits as the text arrives; a plan stream starts only steps of eager tools, every step it starts ends
 * once, and nothing that waits for the whole plan runs unless the complete plan is valid.
 */

import { readStrictJson } from '@org/core';
import { createToolPlanTool, IncrementalJsonReader, type PlanResult } from '@org/plan-executor';
import { defineTool, executeStreamingAction, ToolRegistry, toolCallToAction } from '@org/tools';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { NUM_RUNS } from './support/run-helpers.js';

const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'prototype', 'hasOwnProperty', 'valueOf'];

/** Splits a text at any UTF-16 index (inside a surrogate pair too). */
function split(text: string, points: readonly number[]): string[] {
  const cuts = [...new Set(points.map((point) => point % (text.length + 1)))].sort((a, b) => a - b);
  const fragments: string[] = [];
  let last = 0;
  for (const cut of cuts) {
    fragments.push(text.slice(last, cut));
    last = cut;
  }
  fragments.push(text.slice(last));
  return fragments;
}

/** JSON-ish text: valid JSON with prototype-named keys, then edited by a model-like hand (cuts, repeats, junk). */
const hostileText = fc
  .tuple(
    fc.dictionary(
      fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES), fc.string({ maxLength: 6 })),
      fc.jsonValue({ maxDepth: 3 }),
      {
        maxKeys: 5,
      },
    ),
    fc.array(
      fc.record({
        at: fc.nat(),
        remove: fc.nat({ max: 3 }),
        insert: fc.oneof(
          fc.constantFrom(
            '',
            '{',
            '}',
            '[',
            ']',
            '"',
            ',',
            ':',
            '\\',
            '\ud800',
            '\ufeff',
            '1e400',
            '12345678901234567891',
          ),
          fc.string({ unit: 'binary', maxLength: 3 }),
        ),
      }),
      { maxLength: 3 },
    ),
  )
  .map(([value, edits]) => {
    let text = JSON.stringify({ steps: value });
    for (const edit of edits) {
      const at = edit.at % (text.length + 1);
      text = text.slice(0, at) + edit.insert + text.slice(at + edit.remove);
    }
    return text;
  });

/** Plans of `read` (eager) and `write` steps with prototype-named ids and references to earlier steps. */
const validPlanText = fc
  .array(
    fc.record({
      id: fc.oneof(
        fc.constantFrom(...PROTOTYPE_NAMES.filter((name) => name !== '__proto__')),
        fc.stringMatching(/^[a-z][a-z0-9]{0,4}$/),
      ),
      eager: fc.boolean(),
      uses: fc.array(fc.nat(), { maxLength: 2 }),
      form: fc.constantFrom('short', 'long', 'text'),
    }),
    { minLength: 1, maxLength: 6 },
  )
  .map((steps) => {
    const ids: string[] = [];
    const entries: string[] = [];
    for (const step of steps) {
      if (ids.includes(step.id)) continue;
      const refs = ids.length === 0 ? [] : step.uses.map((use) => ids[use % ids.length]!);
      const value = refs.map((id) =>
        step.form === 'long' ? `$ref:${id}` : step.form === 'text' ? `x $${id}.label y` : `$${id}`,
      );
      entries.push(
        `${JSON.stringify(step.id)}:{"${step.eager ? 'read' : 'write'}":{"label":${JSON.stringify(step.id)},"uses":${JSON.stringify(value)}}}`,
      );
      ids.push(step.id);
    }
    return `{"steps":{${entries.join(',')}}}`;
  });

/** A plan as a model may stream it: valid, valid but edited (cut, junk), or hostile text. */
const planText = fc.oneof(
  validPlanText,
  fc
    .tuple(validPlanText, fc.nat(), fc.constantFrom('', '}', ',', '"', '\\', '$'))
    .map(
      ([text, at, insert]) =>
        text.slice(0, at % (text.length + 1)) + insert + text.slice(at % (text.length + 1)),
    ),
  hostileText,
);

describe('issue 15: text read while it streams', () => {
  it('property: hostile text split anywhere: the incremental reader fails exactly when the strict reader refuses it, __proto__ kept as data', () => {
    fc.assert(
      fc.property(hostileText, fc.array(fc.nat(), { maxLength: 10 }), (text, points) => {
        const reported: unknown[] = [];
        const reader = new IncrementalJsonReader({
          paths: ['$.steps.*'],
          maxBytes: 1 << 20,
          maxDepth: 64,
          onValue: (value) => reported.push(value),
        });
        for (const fragment of split(text, points)) reader.write(fragment);
        const whole = reader.end();
        const strict = readStrictJson(text, { maxBytes: 1 << 20, maxDepth: 64 });
        expect(whole.ok).toBe(strict.ok);
        if (whole.ok && strict.ok) {
          expect(whole.value).toEqual(strict.value);
          const steps = (whole.value as { steps?: unknown }).steps;
          if (steps !== null && typeof steps === 'object' && Object.hasOwn(steps, '__proto__')) {
            expect(Object.getPrototypeOf(steps)).toBe(Object.prototype);
          }
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('a 10^5-deep text and a text past the size limit stop as they arrive, with a typed failure', () => {
    const deep = new IncrementalJsonReader({
      paths: ['$.steps.*'],
      maxBytes: 1 << 22,
      maxDepth: 67,
      onValue: () => {},
    });
    deep.write('{"steps":[');
    for (let index = 0; index < 100; index++) deep.write('['.repeat(1000));
    expect(deep.failure).toEqual({ reason: 'nested more than 67 levels deep', limit: 'depth' });
    expect(deep.end().ok).toBe(false);
    const large = new IncrementalJsonReader({ paths: [], maxBytes: 4096, maxDepth: 64, onValue: () => {} });
    large.write('{"steps":"');
    large.write('x'.repeat(10_000));
    expect(large.failure?.limit).toBe('bytes');
  });

  it('property: a hostile plan stream into execute_tool_plan: only eager steps start early, each ends once, a refused plan runs nothing that waits', async () => {
    await fc.assert(
      fc.asyncProperty(
        planText,
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.integer({ min: 0, max: 9 }).map((draw) => draw < 3),
        async (text, points, discard) => {
          const started: string[] = [];
          const finished = new Map<string, number>();
          const make = (name: string, eager: boolean) =>
            defineTool({
              name,
              description: `${name}.`,
              input: z.object({ label: z.string().optional(), uses: z.array(z.unknown()).optional() }),
              eager,
              execute: ({ label }) => {
                started.push(name);
                return { label: label ?? name };
              },
            });
          const tools = new ToolRegistry([make('read', true), make('write', false)]);
          const results: PlanResult[] = [];
          const planTool = createToolPlanTool({
            tools,
            onPlanResult: (result) => results.push(result),
            onEvent: (event) => {
              if (event.type === 'plan-step-finished')
                finished.set(event.stepId, (finished.get(event.stepId) ?? 0) + 1);
            },
          });
          const registry = ToolRegistry.compose(tools, new ToolRegistry([planTool]));
          const execution = executeStreamingAction(registry, { id: 'p', toolName: 'execute_tool_plan' });
          for (const fragment of split(text, points)) execution.push(fragment);
          const converted = toolCallToAction(registry, {
            id: 'p',
            toolName: 'execute_tool_plan',
            arguments: text,
          });
          // As the planner does: a call that does not read as valid arguments (or a discarded answer) is aborted.
          if (discard || !converted.ok) execution.abort(new Error('not run'));
          else execution.complete(converted.action);
          const observation = await execution.observation;
          expect(['success', 'error', 'aborted']).toContain(observation.status);
          if (observation.status !== 'success')
            expect(started.filter((name) => name === 'write')).toEqual([]);
          else expect(results).toHaveLength(1);
          for (const count of finished.values()) expect(count).toBe(1);
        },
      ),
      { numRuns: NUM_RUNS },
    );
  }, 120_000);
});
