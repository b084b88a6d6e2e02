import type { RunEvent, Usage } from '@org/core';
import { executePlan } from '@org/plan-executor';
import { runAgent } from '@org/planner';
import { createScriptedModel, createVirtualClock, LATENCY_PROFILES } from '@org/provider-scripted';
import { defineTool, ToolRegistry } from '@org/tools';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { assertWellFormedXml } from '../test/xml.js';
import {
  buildPlanTimeline,
  buildRunTimeline,
  referencedSteps,
  renderTimelineSvg,
  summarizeRunTimeline,
} from './index.js';

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
    assertWellFormedXml(svg);
    expect(svg.match(/<rect class="step/g)).toHaveLength(4);
    expect(svg.match(/<rect class="step critical"/g)).toHaveLength(2);
    // A plan on its own has no model calls to draw.
    expect(svg).not.toContain('class="model-call"');
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

/** The attributes of the first `<rect>` whose class list contains `className` and that matches `filter`. */
function rects(svg: string, className: string): Record<string, string>[] {
  return [...svg.matchAll(/<rect ([^>]*)>/g)]
    .map((match) =>
      Object.fromEntries([...(match[1] ?? '').matchAll(/([\w-]+)="([^"]*)"/g)].map((m) => [m[1], m[2]])),
    )
    .filter((attributes) => (attributes.class ?? '').split(' ').includes(className));
}

describe('buildRunTimeline and renderTimelineSvg: the model and the tools on one time axis', () => {
  it('draws a real streamed run: the model call as a bar with its first token, an eager tool call inside it', async () => {
    const clock = createVirtualClock();
    const lookup = defineTool({
      name: 'lookup',
      description: 'Looks a key up.',
      input: z.object({ key: z.string() }),
      eager: true,
      execute: async ({ key }, context) => {
        await clock.sleep(300, context.signal);
        return { key, found: true };
      },
    });
    const model = createScriptedModel({
      clock,
      latency: LATENCY_PROFILES.typical,
      script: [
        {
          toolCalls: [
            { id: 'first', toolName: 'lookup', arguments: { key: 'a first key, long enough to stream' } },
            { id: 'second', toolName: 'lookup', arguments: { key: 'b' } },
          ],
        },
        { text: 'Both keys were found.' },
      ],
    });
    const events: RunEvent[] = [];
    const result = await runAgent({
      model,
      tools: [lookup],
      task: 'Look up a and b.',
      clock,
      onEvent: (event) => events.push(event),
    });
    expect(result.finishReason).toBe('final-answer');

    const timeline = buildRunTimeline('lookups', events);
    expect(timeline.modelCalls.map((call) => [call.step, call.status])).toEqual([
      [0, 'finished'],
      [1, 'finished'],
    ]);
    const [writing] = timeline.modelCalls;
    // The wait for the first token is the profile's fixed cost plus the prompt, then generation.
    expect(writing?.firstTokenMs).toBeGreaterThan(LATENCY_PROFILES.typical.timeToFirstTokenMs);
    expect(writing?.firstTokenMs).toBeLessThan(writing?.endMs ?? 0);
    const first = timeline.toolCalls.find((call) => call.id === 'first');
    const second = timeline.toolCalls.find((call) => call.id === 'second');
    // `first` was complete in the stream while the model still wrote `second`: it started inside the model's bar.
    expect(first?.startedDuringModelCall).toBe(1);
    expect(first?.startMs).toBeGreaterThan(writing?.firstTokenMs ?? Number.POSITIVE_INFINITY);
    expect(first?.startMs).toBeLessThan(writing?.endMs ?? 0);
    // `second` ended the answer: it started in the instant the answer was complete, which is not early.
    expect(second?.startMs).toBe(writing?.endMs);
    expect(second?.startedDuringModelCall).toBeUndefined();
    expect(summarizeRunTimeline(timeline)).toBe(
      '2 model calls · 2 tool calls · 1 started while the model was writing',
    );

    const svg = renderTimelineSvg(timeline);
    assertWellFormedXml(svg);
    const models = rects(svg, 'model-call');
    expect(models.map((bar) => bar['data-model-call'])).toEqual(['1', '2']);
    const modelBar = models[0] as Record<string, string>;
    expect(Number(modelBar['data-first-token-ms'])).toBeGreaterThan(Number(modelBar['data-start-ms']));
    expect(rects(svg, 'model-generation')).toHaveLength(2);
    const early = rects(svg, 'early');
    expect(early.map((bar) => [bar.class, bar['data-tool-call']])).toEqual([['tool-call early', 'first']]);
    const earlyBar = early[0] as Record<string, string>;
    expect(Number(earlyBar['data-start-ms'])).toBeGreaterThan(Number(modelBar['data-start-ms']));
    expect(Number(earlyBar['data-start-ms'])).toBeLessThan(Number(modelBar['data-end-ms']));
    expect(svg).toContain('class="generation-band"');
    expect(svg).toContain('class="early-marker"');
  });

  it('places plan steps dispatched while the plan streams inside the model bar, with their critical path', () => {
    // The events of a plan tool that dispatches steps as the plan streams: `a` and `b` start before the answer is
    // complete (at 900 and 1100 ms, the answer ends at 1200 ms), `c` waits for both.
    const plan = JSON.stringify({
      steps: [
        { id: 'a', tool: 'lookup', arguments: { key: 'a' } },
        { id: 'b', tool: 'lookup', arguments: { key: 'b' } },
        { id: 'c', tool: 'merge', arguments: { items: ['$ref:a', '$ref:b.value'] } },
        { id: 'd', tool: 'merge', arguments: { items: ['$ref:c'] } },
      ],
    });
    const usage: Usage = { inputTokens: 100, outputTokens: 40, totalTokens: 140 };
    const at = (timestamp: number) => ({ timestamp: 10_000 + timestamp, runId: 'run_1' });
    const events: RunEvent[] = [
      { type: 'run-started', ...at(0), runId: 'run_1' },
      {
        type: 'inference-started',
        ...at(0),
        step: 0,
        modelId: 'm',
        provider: 'p',
        messageCount: 2,
        toolCount: 2,
        toolChoice: { type: 'auto' },
      },
      {
        type: 'tool-call-streaming-started',
        ...at(500),
        step: 0,
        toolCallId: 'plan_1',
        toolName: 'execute_tool_plan',
      },
      { type: 'tool-call-arguments-delta', ...at(520), step: 0, toolCallId: 'plan_1', delta: '{"steps":[' },
      {
        type: 'tool-call-started',
        ...at(600),
        action: { id: 'plan_1', toolName: 'execute_tool_plan', args: {} },
      },
      { type: 'plan-step-started', ...at(900), planId: 'plan_1', stepId: 'a', toolName: 'lookup' },
      { type: 'plan-step-started', ...at(1100), planId: 'plan_1', stepId: 'b', toolName: 'lookup' },
      {
        type: 'inference-finished',
        ...at(1200),
        step: 0,
        finishReason: 'tool-calls',
        usage,
        toolCalls: [{ id: 'plan_1', toolName: 'execute_tool_plan', arguments: plan }],
        adjustments: [],
        durationMs: 1200,
      },
      {
        type: 'plan-step-finished',
        ...at(1300),
        planId: 'plan_1',
        stepId: 'a',
        toolName: 'lookup',
        status: 'success',
        durationMs: 400,
      },
      {
        type: 'plan-step-finished',
        ...at(1400),
        planId: 'plan_1',
        stepId: 'b',
        toolName: 'lookup',
        status: 'error',
        durationMs: 300,
        error: { code: 'tool_failed', message: 'lookup failed' },
      },
      {
        type: 'plan-step-finished',
        ...at(1400),
        planId: 'plan_1',
        stepId: 'c',
        toolName: 'merge',
        status: 'skipped',
        durationMs: 0,
      },
      {
        type: 'plan-step-finished',
        ...at(1400),
        planId: 'plan_1',
        stepId: 'd',
        toolName: 'merge',
        status: 'skipped',
        durationMs: 0,
      },
      {
        type: 'tool-call-finished',
        ...at(1400),
        observation: {
          actionId: 'plan_1',
          toolName: 'execute_tool_plan',
          status: 'success',
          durationMs: 800,
        },
      },
      {
        type: 'run-finished',
        ...at(2000),
        runId: 'run_1',
        reason: 'final-answer',
        steps: 2,
        usage,
        segmentUsage: usage,
      },
    ];
    const timeline = buildRunTimeline('streamed plan', events);
    expect(timeline.durationMs).toBe(2000);
    expect(timeline.modelCalls).toEqual([
      {
        step: 0,
        attempt: 1,
        startMs: 0,
        firstTokenMs: 500,
        endMs: 1200,
        status: 'finished',
        outputTokens: 40,
      },
    ]);
    const [steps] = timeline.plans;
    expect(steps?.planId).toBe('plan_1');
    expect(
      steps?.steps.map((step) => [
        step.id,
        step.status,
        step.startMs,
        step.endMs,
        step.startedDuringModelCall,
      ]),
    ).toEqual([
      ['a', 'success', 900, 1300, 1],
      ['b', 'error', 1100, 1400, 1],
      ['c', 'skipped', 1400, 1400, undefined],
      ['d', 'skipped', 1400, 1400, undefined],
    ]);
    // The dependencies come from the plan the model wrote; a skipped step names the failure it traces back to.
    expect(steps?.steps.map((step) => [step.id, step.dependsOn, step.skippedBecauseOf])).toEqual([
      ['a', [], undefined],
      ['b', [], undefined],
      ['c', ['a', 'b'], 'b'],
      ['d', ['c'], 'b'],
    ]);
    // `b` finished last, and nothing but the model held it up: it started when the model had written it.
    expect(steps?.criticalPath).toEqual(['b']);
    expect(steps?.criticalPathAfterModelCall).toBe(1);
    expect(steps?.durationMs).toBe(500);
    expect(timeline.toolCalls).toEqual([
      {
        id: 'plan_1',
        tool: 'execute_tool_plan',
        status: 'success',
        startMs: 600,
        endMs: 1400,
        ran: true,
        startedDuringModelCall: 1,
      },
    ]);

    const svg = renderTimelineSvg(timeline);
    assertWellFormedXml(svg);
    const [modelBar] = rects(svg, 'model-call');
    expect(modelBar).toMatchObject({
      'data-start-ms': '0',
      'data-first-token-ms': '500',
      'data-end-ms': '1200',
    });
    const stepBars = rects(svg, 'step');
    expect(stepBars.map((bar) => [bar['data-step'], bar.class])).toEqual([
      ['a', 'step early'],
      ['b', 'step critical early'],
      ['c', 'step'],
      ['d', 'step'],
    ]);
    for (const bar of stepBars.filter((candidate) => candidate.class?.includes('early'))) {
      // Overlap: the step started after the model began generating and before its answer was complete.
      expect(Number(bar['data-start-ms'])).toBeGreaterThan(Number(modelBar?.['data-first-token-ms']));
      expect(Number(bar['data-start-ms'])).toBeLessThan(Number(modelBar?.['data-end-ms']));
    }
    // The plan's call sits right above its steps, and the run's rows follow the order things started.
    const rows = [...svg.matchAll(/<text x="[\d.]+" y="[\d.]+" text-anchor="end"[^>]*>([^<]+)<\/text>/g)].map(
      (match) => match[1],
    );
    expect(rows).toEqual([
      'model call 1',
      'plan_1 · execute_tool_plan',
      'a · lookup',
      'b · lookup',
      'c · merge',
      'd · merge',
    ]);
    expect(svg).toContain('skipped (b failed)');
    // The path is drawn from the model's bar, where it completed `b`, to `b`.
    expect(svg).toMatch(/<polyline class="critical-path" points="[\d.]+,69 /);
    expect(summarizeRunTimeline(timeline)).toBe(
      '1 model call · 1 tool call · plan: 4 steps in 500 ms; critical path: model call 1 → b · 3 started while the model was writing',
    );
  });
});
