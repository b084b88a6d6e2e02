import { executePlan } from '@org/plan-executor';
import { createVirtualClock } from '@org/provider-scripted';
import { defineTool, ToolRegistry } from '@org/tools';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildPlanTimeline, referencedSteps, renderTimelineSvg } from './index.js';

function workTools(clock: ReturnType<typeof createVirtualClock>): ToolRegistry {
  return new ToolRegistry([
    defineTool({
      name: 'work',
      description: 'Works for ms milliseconds.',
      input: z.object({ ms: z.number(), after: z.array(z.unknown()) }),
      execute: async ({ ms }, context) => {
        await clock.sleep(ms, context.signal);
        return { done: ms };
      },
    }),
  ]);
}

async function timelineOf(steps: { id: string; ms: number; after: string[] }[]) {
  const clock = createVirtualClock();
  const plan = {
    steps: steps.map((step) => ({
      id: step.id,
      tool: 'work',
      arguments: { ms: step.ms, after: step.after.map((id) => `$ref:${id}.done`) },
    })),
  };
  const result = await executePlan(plan, {
    tools: workTools(clock),
    clock,
    maxConcurrency: Number.POSITIVE_INFINITY,
  });
  return buildPlanTimeline('test', result, plan);
}

describe('buildPlanTimeline', () => {
  it('finds the critical path of the skew plan', async () => {
    const timeline = await timelineOf([
      { id: 'a1', ms: 900, after: [] },
      { id: 'a2', ms: 100, after: ['a1'] },
      { id: 'b1', ms: 100, after: [] },
      { id: 'b2', ms: 700, after: ['b1'] },
    ]);
    expect(timeline.durationMs).toBe(1000);
    expect(timeline.criticalPath).toEqual(['a1', 'a2']);
    expect(timeline.steps.map((step) => [step.id, step.startMs, step.endMs, step.critical])).toEqual([
      ['a1', 0, 900, true],
      ['a2', 900, 1000, true],
      ['b1', 0, 100, false],
      ['b2', 100, 800, false],
    ]);
    const svg = renderTimelineSvg(timeline);
    expect(svg.match(/<rect class="step/g)).toHaveLength(4);
    expect(svg.match(/<rect class="step critical"/g)).toHaveLength(2);
  });

  it('gives, on any DAG with unlimited concurrency, a dependency chain from 0 to the plan end', async () => {
    const dag = fc
      .array(
        fc.record({ ms: fc.integer({ min: 1, max: 1000 }), parents: fc.array(fc.nat(), { maxLength: 3 }) }),
        {
          minLength: 1,
          maxLength: 12,
        },
      )
      .map((nodes) =>
        nodes.map((node, index) => ({
          id: `s${index}`,
          ms: node.ms,
          after: index === 0 ? [] : [...new Set(node.parents.map((parent) => `s${parent % index}`))],
        })),
      );
    await fc.assert(
      fc.asyncProperty(dag, async (steps) => {
        const timeline = await timelineOf(steps);
        const path = timeline.criticalPath.map((id) => steps.find((step) => step.id === id));
        expect(timeline.steps[0]?.startMs).toBe(0);
        expect(path[0]?.after).toEqual([]);
        path.forEach((step, index) => {
          if (index > 0) expect(step?.after).toContain(path[index - 1]?.id);
        });
        expect(path.reduce((sum, step) => sum + (step?.ms ?? 0), 0)).toBe(timeline.durationMs);
      }),
      { numRuns: 60 },
    );
  });
});

describe('referencedSteps', () => {
  it('finds references anywhere in arguments, also in a JSON string and inside text', () => {
    expect(referencedSteps({ a: '$ref:x', b: ['$ref:y.z.0', { c: 'from $ref:w.t.' }], d: 3 })).toEqual([
      'x',
      'y',
      'w',
    ]);
    expect(referencedSteps('{"q": "$ref:search.items.0.url"}')).toEqual(['search']);
    expect(referencedSteps('not json')).toEqual([]);
  });
});
