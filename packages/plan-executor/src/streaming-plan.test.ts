import type { RunEvent } from '@org/core';
import {
  defineTool,
  executeAction,
  executeStreamingAction,
  type StreamingActionExecution,
  type Tool,
  ToolRegistry,
  toolCallToAction,
} from '@org/tools';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { VirtualClock } from './__fixtures__/virtual-clock.js';
import { createToolPlanTool, type PlanResult } from './index.js';

const numRuns = Number(process.env.FC_NUM_RUNS ?? 200);
const timeout = Math.max(60_000, numRuns * 100);

/**
 * `work` tools on a virtual clock: each waits `ms`, fails when asked, and returns its label and inputs. The `_eager`
 * one may start while the plan streams; the other waits for the whole plan. `started` records who started when.
 */
function workTools(clock: VirtualClock) {
  const started: { label: string; at: number }[] = [];
  const signals = new Map<string, AbortSignal>();
  const make = (name: string, eager: boolean): Tool =>
    defineTool({
      name,
      description: `Works (${eager ? 'eager' : 'waits for the plan'}).`,
      input: z.object({
        label: z.string(),
        ms: z.number().optional(),
        fail: z.boolean().optional(),
        inputs: z.array(z.unknown()).optional(),
      }),
      output: z.object({ label: z.string(), inputs: z.array(z.unknown()) }),
      eager,
      execute: async ({ label, ms, fail, inputs }, context) => {
        started.push({ label, at: clock.now() });
        signals.set(label, context.signal);
        await clock.sleep(ms ?? 0, context.signal);
        if (context.signal.aborted) throw new Error(`${label} aborted`);
        if (fail === true) throw new Error(`${label} failed`);
        return { label, inputs: inputs ?? [] };
      },
    });
  return {
    tools: new ToolRegistry([make('work_eager', true), make('work', false)]),
    started,
    signals,
  };
}

interface Harness {
  readonly clock: VirtualClock;
  readonly registry: ToolRegistry;
  readonly started: { label: string; at: number }[];
  readonly signals: Map<string, AbortSignal>;
  readonly results: PlanResult[];
  readonly events: RunEvent[];
}

function harness(): Harness {
  const clock = new VirtualClock();
  const { tools, started, signals } = workTools(clock);
  const results: PlanResult[] = [];
  const events: RunEvent[] = [];
  const planTool = createToolPlanTool({
    tools,
    clock,
    onPlanResult: (result) => results.push(result),
    onEvent: (event) => events.push(event),
  });
  return {
    clock,
    registry: ToolRegistry.compose(tools, new ToolRegistry([planTool])),
    started,
    signals,
    results,
    events,
  };
}

/** Streams `text` into a plan call, `size` characters every `delayMs` of virtual time, then completes it. */
async function streamPlan(
  h: Harness,
  text: string,
  size: number,
  delayMs: number,
  marks: { streamEnd?: number } = {},
): Promise<{
  execution: StreamingActionExecution;
  observation: Awaited<StreamingActionExecution['observation']>;
}> {
  const execution = executeStreamingAction(h.registry, { id: 'plan', toolName: 'execute_tool_plan' });
  for (let index = 0; index < text.length; index += size) {
    execution.push(text.slice(index, index + size));
    await h.clock.sleep(delayMs);
  }
  marks.streamEnd = h.clock.now();
  const converted = toolCallToAction(h.registry, {
    id: 'plan',
    toolName: 'execute_tool_plan',
    arguments: text,
  });
  if (!converted.ok) throw converted.error;
  execution.complete(converted.action);
  return { execution, observation: await execution.observation };
}

/** A result without timings, to compare two runs of one plan. */
function outcome(result: PlanResult | undefined): unknown {
  if (result === undefined) return undefined;
  return {
    status: result.status,
    aborted: result.aborted,
    outputStepIds: result.outputStepIds,
    counts: result.counts,
    steps: result.steps.map((step) => ({
      id: step.id,
      tool: step.tool,
      status: step.status,
      output: step.output,
      error: step.error,
      arguments: step.arguments,
      argumentRepairs: step.argumentRepairs,
      missingReferences: step.missingReferences,
      skippedBecauseOf: step.skippedBecauseOf,
      started: step.startedAt !== undefined,
      observationStatus: step.observation?.status,
    })),
  };
}

describe('execute_tool_plan while the model writes it (executeStreaming)', () => {
  it('starts the steps of eager tools before the plan has finished streaming; the others wait for the whole plan', async () => {
    const h = harness();
    const text = JSON.stringify({
      steps: {
        a: { work_eager: { label: 'a', ms: 100 } },
        b: { work_eager: { label: 'b', ms: 100, inputs: ['$a.label'] } },
        c: { work: { label: 'c', inputs: ['$a.label', '$b'] } },
        d: { work_eager: { label: 'd', inputs: ['$c.label'] } },
      },
    });
    const marks: { streamEnd?: number } = {};
    const { observation } = await h.clock.run(streamPlan(h, text, 8, 20, marks));
    expect(observation.status).toBe('success');
    const startedAt = new Map(h.started.map((entry) => [entry.label, entry.at]));
    // a starts as soon as its object is complete (the fragment holding its closing brace), b once a is done.
    const aClosed = text.indexOf('}}') + 1;
    expect(startedAt.get('a')).toBe(Math.floor(aClosed / 8) * 20);
    const bClosed = text.indexOf(']}}') + 2;
    expect(startedAt.get('b')).toBe(Math.max(startedAt.get('a')! + 100, Math.floor(bClosed / 8) * 20));
    expect(marks.streamEnd).toBeGreaterThan(startedAt.get('b')!);
    // c's tool is not eager: it waits for the whole plan; d waits for c.
    expect(startedAt.get('c')).toBe(marks.streamEnd);
    expect(startedAt.get('d')).toBe(marks.streamEnd);
    expect(JSON.parse(observation.output as string)).toEqual({
      status: 'success',
      summary: '4 of 4 steps succeeded.',
      results: { d: { label: 'd', inputs: ['c'] } },
    });
    const stepEvents = h.events
      .filter((event) => event.type === 'plan-step-started')
      .map((event) => event.stepId);
    expect(stepEvents).toEqual(['a', 'b', 'c', 'd']);
  });

  it('gives the same result as the whole plan, and ends sooner on the virtual clock', async () => {
    const text = JSON.stringify({
      steps: [
        { id: 's1', tool: 'work_eager', arguments: { label: 's1', ms: 300 } },
        { id: 's2', tool: 'work_eager', arguments: { label: 's2', ms: 300 } },
        {
          id: 'sum',
          tool: 'work_eager',
          arguments: { label: 'sum', inputs: ['$ref:s1.label', '$ref:s2.label'] },
        },
      ],
      output_steps: ['sum'],
    });
    const streamed = harness();
    const { observation } = await streamed.clock.run(streamPlan(streamed, text, 10, 15));
    const whole = harness();
    await whole.clock.run(
      (async () => {
        for (let index = 0; index < text.length; index += 10) await whole.clock.sleep(15);
        return executeAction(whole.registry, {
          id: 'plan',
          toolName: 'execute_tool_plan',
          args: JSON.parse(text) as Record<string, unknown>,
        });
      })(),
    );
    expect(outcome(streamed.results[0])).toEqual(outcome(whole.results[0]));
    expect(observation.status).toBe('success');
    expect(streamed.clock.now()).toBeLessThan(whole.clock.now());
  });

  it('an invalid complete plan: the started steps are stopped, and the model gets the problems and what they did', async () => {
    const h = harness();
    const text = JSON.stringify({
      steps: [
        { id: 'quick', tool: 'work_eager', arguments: { label: 'quick' } },
        { id: 'slow', tool: 'work_eager', arguments: { label: 'slow', ms: 10_000 } },
        { id: 'x', tool: 'work', arguments: { label: 'x', inputs: ['$ref:y'] } },
        { id: 'y', tool: 'work', arguments: { label: 'y', inputs: ['$ref:x'] } },
        { id: 'quick', tool: 'work_eager', arguments: { label: 'again' } },
      ],
    });
    const { observation } = await h.clock.run(streamPlan(h, text, 25, 10));
    expect(observation.status).toBe('error');
    const message = observation.error?.message ?? '';
    expect(message).toContain('The plan is invalid (2 problems). 2 steps had started while it was written');
    expect(message).toContain("Step id 'quick' is used by 2 steps");
    expect(message).toContain('form a cycle');
    const startedPart = JSON.parse(message.slice(message.indexOf('Steps that started: ') + 20)) as {
      results: Record<string, unknown>;
      errors: Record<string, { status: string }>;
    };
    expect(startedPart.results.quick).toEqual({ label: 'quick', inputs: [] });
    expect(startedPart.errors.slow?.status).toBe('aborted');
    expect(h.signals.get('slow')?.aborted).toBe(true);
    // Nothing else ran: not the steps of the cycle, not the second 'quick'.
    expect(h.started.map((entry) => entry.label).sort()).toEqual(['quick', 'slow']);
    expect(h.results).toEqual([]);
  });

  it('a discarded answer aborts the steps that started through their signals; nothing that waits for the plan runs', async () => {
    const h = harness();
    const text = JSON.stringify({
      steps: {
        long: { work_eager: { label: 'long', ms: 5_000 } },
        send: { work: { label: 'send', inputs: ['$long'] } },
      },
    });
    const observation = await h.clock.run(
      (async () => {
        const execution = executeStreamingAction(h.registry, { id: 'plan', toolName: 'execute_tool_plan' });
        execution.push(text.slice(0, 60));
        await h.clock.sleep(50);
        execution.push(text.slice(60, 70));
        execution.abort(new Error('the stream broke'));
        return execution.observation;
      })(),
    );
    expect(observation).toMatchObject({ status: 'aborted', error: { code: 'aborted' } });
    expect(h.started.map((entry) => entry.label)).toEqual(['long']);
    expect(h.signals.get('long')?.aborted).toBe(true);
    const finished = h.events.filter((event) => event.type === 'plan-step-finished');
    expect(finished.map((event) => [event.stepId, event.status])).toEqual([['long', 'aborted']]);
  });

  it('a deadline that passes while the plan streams: what started ends as timeout, every later step too', async () => {
    const clock = new VirtualClock();
    const { tools, started } = workTools(clock);
    const results: PlanResult[] = [];
    const planTool = createToolPlanTool({
      tools,
      clock,
      timeoutMs: 100,
      onPlanResult: (result) => results.push(result),
    });
    const h: Harness = {
      clock,
      registry: ToolRegistry.compose(tools, new ToolRegistry([planTool])),
      started,
      signals: new Map(),
      results,
      events: [],
    };
    const text = JSON.stringify({
      steps: {
        done: { work_eager: { label: 'done', ms: 10 } },
        long: { work_eager: { label: 'long', ms: 1_000 } },
        later: { work_eager: { label: 'later', inputs: ['$done'] } },
      },
    });
    const { observation } = await clock.run(streamPlan(h, text, 30, 25));
    expect(observation.status).toBe('success');
    const result = results[0]!;
    expect(result.timedOut).toBe(true);
    expect(result.steps.map((step) => [step.id, step.status, step.error?.code])).toEqual([
      ['done', 'success', undefined],
      ['long', 'timeout', 'plan_timeout'],
      ['later', 'timeout', 'plan_timeout'],
    ]);
    expect(started.map((entry) => entry.label)).toEqual(['done', 'long']);
  });

  it('is eager itself only when every tool its steps may call is eager and needs no approval', () => {
    const eager = defineTool({
      name: 'read',
      description: 'Reads.',
      input: z.object({}),
      eager: true,
      execute: () => 1,
    });
    const guarded = defineTool({
      name: 'read_guarded',
      description: 'Reads, with approval.',
      input: z.object({}),
      eager: true,
      needsApproval: true,
      execute: () => 1,
    });
    expect(createToolPlanTool({ tools: [eager] }).eager).toBe(true);
    expect(createToolPlanTool({ tools: [eager, guarded] }).eager).toBe(false);
    expect(createToolPlanTool({ tools: workTools(new VirtualClock()).tools }).eager).toBe(false);
    expect(typeof createToolPlanTool({ tools: [eager] }).executeStreaming).toBe('function');
  });

  it(
    'property: a random valid plan streamed in random fragments gives the same result as the plan executed whole',
    async () => {
      const stepArbitrary = (index: number) =>
        fc.record({
          eager: fc.boolean(),
          ms: fc.integer({ min: 0, max: 60 }),
          fail: fc.boolean().map((flag) => flag && index % 4 === 1),
          inputs: fc.uniqueArray(fc.integer({ min: 0, max: Math.max(0, index - 1) }), {
            maxLength: index === 0 ? 0 : 3,
          }),
          path: fc.constantFrom('', '.label', '.inputs.0', '.missing'),
          asText: fc.boolean(),
        });
      const planArbitrary = fc.integer({ min: 1, max: 10 }).chain((count) =>
        fc.record({
          steps: fc.tuple(...Array.from({ length: count }, (_, index) => stepArbitrary(index))),
          form: fc.constantFrom('list', 'map'),
          // Integer-like ids come first in an object's key order: a plan order that is not the order written.
          numericIds: fc.boolean(),
          size: fc.integer({ min: 1, max: 40 }),
          delay: fc.integer({ min: 0, max: 30 }),
        }),
      );
      await fc.assert(
        fc.asyncProperty(planArbitrary, async ({ steps, form, numericIds, size, delay }) => {
          const idOf = (index: number): string =>
            numericIds && index % 2 === 0 ? `${90 - index}` : `s${index}`;
          const argumentsOf = (step: (typeof steps)[number], index: number, short: boolean) => {
            const args = {
              label: idOf(index),
              ms: step.ms,
              ...(step.fail ? { fail: true } : {}),
              inputs: step.inputs.map((input) => `${short ? '$' : '$ref:'}${idOf(input)}${step.path}`),
            };
            return step.asText ? JSON.stringify(args) : args;
          };
          const plan =
            form === 'list'
              ? {
                  steps: steps.map((step, index) => ({
                    id: idOf(index),
                    tool: step.eager ? 'work_eager' : 'work',
                    arguments: argumentsOf(step, index, false),
                  })),
                }
              : {
                  steps: Object.fromEntries(
                    steps.map((step, index) => [
                      idOf(index),
                      { [step.eager ? 'work_eager' : 'work']: argumentsOf(step, index, true) },
                    ]),
                  ),
                };
          const text = JSON.stringify(plan);
          const streamed = harness();
          const { observation } = await streamed.clock.run(streamPlan(streamed, text, size, delay));
          const whole = harness();
          const direct = await whole.clock.run(
            executeAction(whole.registry, {
              id: 'plan',
              toolName: 'execute_tool_plan',
              args: JSON.parse(text) as Record<string, unknown>,
            }),
          );
          expect(observation.status).toBe(direct.status);
          expect(outcome(streamed.results[0])).toEqual(outcome(whole.results[0]));
          expect(observation.output).toEqual(direct.output);
        }),
        { numRuns },
      );
    },
    timeout,
  );
});
