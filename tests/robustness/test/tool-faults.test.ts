/**
 * Issue 11, cases 12-15: faults from tools, driven as a user meets them (the scripted model and runAgent; plans
 * through executePlan and the execute_tool_plan tool), with the plan executor on a virtual clock.
 */
import { AbortedError, contentText, type RunEvent } from '@org/core';
import { createToolPlanTool, executePlan, type PlanResult } from '@org/plan-executor';
import { runAgent } from '@org/planner';
import { createScriptedModel, createVirtualClock, type ScriptedTurn } from '@org/provider-scripted';
import { defineTool, type Tool, ToolRegistry } from '@org/tools';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { assertEveryCallAnsweredOnce, eventLog, NUM_RUNS, propertyTimeout } from './support/run-helpers.js';

/** A tool that fails by throwing (or rejecting with) exactly `thrown`. */
function throwingTool(name: string, thrown: () => unknown, asRejection = false): Tool {
  return defineTool({
    name,
    description: `Fails with a ${name}.`,
    input: z.object({}),
    execute: () => {
      if (asRejection) return Promise.reject(thrown());
      throw thrown();
    },
  });
}

const healthy = defineTool({
  name: 'healthy',
  description: 'Works.',
  input: z.object({}),
  execute: () => ({ fine: true }),
});

const FAULTS: ReadonlyArray<readonly [string, () => unknown, boolean?]> = [
  ['a_string', () => 'plain string failure'],
  ['undefined_value', () => undefined],
  ['null_value', () => null],
  ['a_number', () => 42],
  ['a_symbol', () => Symbol('failure')],
  [
    'getter_object',
    () => ({
      get message(): string {
        throw new Error('the getter throws');
      },
    }),
  ],
  [
    'hostile_proxy',
    () =>
      new Proxy(
        {},
        {
          get: () => {
            throw new Error('proxy get');
          },
          getPrototypeOf: () => {
            throw new Error('proxy getPrototypeOf');
          },
          ownKeys: () => {
            throw new Error('proxy ownKeys');
          },
          has: () => {
            throw new Error('proxy has');
          },
        },
      ),
  ],
  [
    'error_with_throwing_message',
    () => {
      const error = new Error('hidden');
      Object.defineProperty(error, 'message', {
        get: () => {
          throw new Error('message getter');
        },
      });
      return error;
    },
  ],
  ['rejected_object', () => ({ reason: 'rejected with an object' }), true],
  ['rejected_undefined', () => undefined, true],
];

// ---------------------------------------------------------------------------------------------------------------
describe('12. tools that throw things that are not errors', () => {
  it('every kind of thrown value is one error observation, and the run continues to its answer', async () => {
    const tools = [
      ...FAULTS.map(([name, thrown, rejection]) => throwingTool(name, thrown, rejection)),
      healthy,
    ];
    const model = createScriptedModel({
      script: [
        {
          toolCalls: [
            ...FAULTS.map(([name]) => ({ toolName: name, arguments: {} })),
            { toolName: 'healthy' },
          ],
        },
        { text: 'Most tools failed; one worked.' },
      ],
    });
    const log = eventLog();
    const result = await runAgent({ model, tools, task: 'Run them all.', onEvent: log.listener });
    expect(result.finishReason).toBe('final-answer');
    expect(result.text).toBe('Most tools failed; one worked.');
    expect(result.observations.map((observation) => observation.status)).toEqual([
      ...FAULTS.map(() => 'error'),
      'success',
    ]);
    for (const observation of result.observations.slice(0, FAULTS.length)) {
      expect(observation.error?.code).toBe('tool_execution_failed');
      expect(typeof observation.error?.message).toBe('string');
    }
    expect(log.ofType('tool-call-finished')).toHaveLength(FAULTS.length + 1);
    assertEveryCallAnsweredOnce(result);
  });

  it(
    'property: whatever a tool throws or rejects with, one error observation, and the run goes on',
    async () => {
      const thrownArbitrary = fc.oneof(
        fc.anything({ maxDepth: 2 }),
        fc.string().map((message) => new Error(message)),
        fc.string().map(
          (message) =>
            ({
              get message(): string {
                throw new Error(message);
              },
            }) as unknown,
        ),
      );
      await fc.assert(
        fc.asyncProperty(thrownArbitrary, fc.boolean(), async (thrown, asRejection) => {
          const model = createScriptedModel({
            script: [{ toolCalls: [{ toolName: 'faulty' }, { toolName: 'healthy' }] }, { text: 'ok' }],
          });
          const result = await runAgent({
            model,
            tools: [throwingTool('faulty', () => thrown, asRejection), healthy],
            task: 'Go.',
          });
          expect(result.finishReason).toBe('final-answer');
          expect(result.observations.map((observation) => observation.status)).toEqual(['error', 'success']);
          expect(result.observations[0]?.error?.code).toBe('tool_execution_failed');
          assertEveryCallAnsweredOnce(result);
        }),
        { numRuns: NUM_RUNS },
      );
    },
    propertyTimeout(20),
  );
});

// ---------------------------------------------------------------------------------------------------------------
describe('13. circular, BigInt and 100 MB outputs', () => {
  it('serialised safely and cut to the budget with a marker; the raw value stays with the caller', async () => {
    const circular: Record<string, unknown> = { name: 'loop' };
    circular.self = circular;
    const withBigInt = { id: 12345678901234567890n, nested: { small: 1n } };
    // 100 MB of prose (words, so the scripted model's tokenizer meets ordinary text).
    const huge = 'lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(
      Math.ceil((100 * 1024 * 1024) / 57),
    );
    const outputs: Record<string, unknown> = { circular, big_int: withBigInt, huge: { text: huge } };
    const tools = Object.entries(outputs).map(([name, value]) =>
      defineTool({ name, description: `Returns ${name}.`, input: z.object({}), execute: () => value }),
    );
    const model = createScriptedModel({
      script: [
        { toolCalls: Object.keys(outputs).map((name) => ({ toolName: name })) },
        { text: 'Read them.' },
      ],
    });
    const budget = 50_000;
    const result = await runAgent({ model, tools, task: 'Fetch.', outputBudgetBytes: budget });
    expect(result.finishReason).toBe('final-answer');
    const [first, second, third] = result.observations;
    expect(first?.status).toBe('success');
    expect(JSON.stringify(first?.output)).toContain('[Circular]');
    expect(first?.rawOutput).toBe(circular);
    expect(JSON.stringify(second?.output)).toContain('12345678901234567890');
    expect(second?.rawOutput).toBe(withBigInt);
    expect(third?.truncated).toBe(true);
    expect(String(third?.output)).toContain('[output truncated');
    expect((third?.rawOutput as { text: string } | undefined)?.text).toBe(huge);
    // What the model received: every tool message within the budget (plus the marker).
    const toolContents = (model.requests[1]?.messages ?? []).filter((message) => message.role === 'tool');
    expect(toolContents).toHaveLength(3);
    for (const message of toolContents)
      expect(Buffer.byteLength(contentText(message.content))).toBeLessThanOrEqual(budget + 200);
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('14. a tool that hangs and ignores its abort signal', () => {
  it('at the deadline its signal aborts, the timeout is recorded once, a late result is discarded', async () => {
    let release: (value: unknown) => void = () => {};
    let seenSignal: AbortSignal | undefined;
    const hanging = defineTool({
      name: 'hanging',
      description: 'Never finishes on its own.',
      input: z.object({}),
      execute: (_args, context) => {
        seenSignal = context.signal;
        // Ignores the signal on purpose.
        return new Promise((resolve) => {
          release = resolve;
        });
      },
    });
    const model = createScriptedModel({
      script: [
        { toolCalls: [{ toolName: 'hanging' }, { toolName: 'healthy' }] },
        { text: 'The slow one timed out.' },
      ],
    });
    const log = eventLog();
    const result = await runAgent({
      model,
      tools: [hanging, healthy],
      task: 'Go.',
      toolTimeoutMs: 30,
      onEvent: log.listener,
    });
    expect(result.finishReason).toBe('final-answer');
    expect(seenSignal?.aborted).toBe(true);
    const [timedOut, fine] = result.observations;
    expect(timedOut?.status).toBe('timeout');
    expect(timedOut?.error?.code).toBe('timeout');
    expect(fine?.status).toBe('success');
    const finishedBefore = log
      .ofType('tool-call-finished')
      .filter((event) => event.observation.toolName === 'hanging');
    expect(finishedBefore).toHaveLength(1);
    // The late result arrives: nothing changes, nothing more is emitted.
    const eventsBefore = log.events.length;
    release({ late: true });
    await new Promise((resolve) => setImmediate(resolve));
    expect(log.events.length).toBe(eventsBefore);
    expect(timedOut?.status).toBe('timeout');
    expect(JSON.stringify(result.messages)).not.toContain('"late"');
    assertEveryCallAnsweredOnce(result);
  });

  it('in a plan on a virtual clock: the step times out once at stepTimeoutMs, dependents are skipped', async () => {
    const clock = createVirtualClock();
    const signals: AbortSignal[] = [];
    const tools = new ToolRegistry([
      defineTool({
        name: 'hang',
        description: 'Hangs.',
        input: z.object({}),
        execute: (_args, context) => {
          signals.push(context.signal);
          return new Promise(() => {});
        },
      }),
      defineTool({
        name: 'work',
        description: 'Works for 100 ms.',
        input: z.object({ after: z.unknown().optional() }),
        execute: async () => {
          await clock.sleep(100);
          return { done: true };
        },
      }),
    ]);
    const finished: string[] = [];
    const result = await executePlan(
      {
        steps: [
          { id: 'stuck', tool: 'hang', arguments: {} },
          { id: 'after_stuck', tool: 'work', arguments: { after: '$ref:stuck' } },
          { id: 'free', tool: 'work', arguments: {} },
        ],
      },
      {
        tools,
        clock,
        stepTimeoutMs: 1000,
        onEvent: (event: RunEvent) => {
          if (event.type === 'plan-step-finished') finished.push(`${event.stepId}:${event.status}`);
        },
      },
    );
    expect(result.steps.map((step) => step.status)).toEqual(['timeout', 'skipped', 'success']);
    expect(result.steps[0]?.durationMs).toBe(1000);
    expect(finished.sort()).toEqual(['after_stuck:skipped', 'free:success', 'stuck:timeout']);
    expect(signals[0]?.aborted).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('15. an abort in the middle of a plan or of an agent run', () => {
  it('mid-plan: nothing new starts, every step ends once, finished results are kept, the abort is marked', async () => {
    const clock = createVirtualClock();
    const controller = new AbortController();
    const tools = new ToolRegistry([
      defineTool({
        name: 'work',
        description: 'Works for `ms` on the clock, ignoring aborts.',
        input: z.object({ ms: z.number(), input: z.unknown().optional() }),
        execute: async ({ ms }) => {
          await clock.sleep(ms);
          return { ms };
        },
      }),
    ]);
    const started: string[] = [];
    const finished = new Map<string, number>();
    let abortedAt: number | undefined;
    const startedAfterAbort: string[] = [];
    const result: PlanResult = await executePlan(
      {
        steps: [
          { id: 'fast', tool: 'work', arguments: { ms: 10 } },
          { id: 'slow', tool: 'work', arguments: { ms: 1000 } },
          { id: 'needs_fast', tool: 'work', arguments: { ms: 10, input: '$ref:fast' } },
          { id: 'needs_slow', tool: 'work', arguments: { ms: 10, input: '$ref:slow' } },
          { id: 'later', tool: 'work', arguments: { ms: 10, input: '$ref:needs_fast' } },
        ],
      },
      {
        tools,
        clock,
        maxConcurrency: 2,
        signal: controller.signal,
        onEvent: (event: RunEvent) => {
          if (event.type === 'plan-step-started') {
            started.push(event.stepId);
            if (abortedAt !== undefined) startedAfterAbort.push(event.stepId);
          }
          if (event.type === 'plan-step-finished') {
            finished.set(event.stepId, (finished.get(event.stepId) ?? 0) + 1);
            if (event.stepId === 'needs_fast') {
              abortedAt = clock.now();
              controller.abort(new Error('user pressed stop'));
            }
          }
        },
      },
    );
    expect(result.aborted).toBe(true);
    expect(result.status).toBe('aborted');
    expect(result.abortReason).toContain('user pressed stop');
    expect(startedAfterAbort).toEqual([]);
    expect([...finished.values()]).toEqual([1, 1, 1, 1, 1]);
    const byId = Object.fromEntries(result.steps.map((step) => [step.id, step]));
    expect(byId.fast?.status).toBe('success');
    expect(byId.fast?.output).toEqual({ ms: 10 });
    expect(byId.needs_fast?.status).toBe('success');
    expect(byId.slow?.status).toBe('aborted');
    expect(byId.needs_slow?.status).toBe('aborted');
    expect(byId.later?.status).toBe('aborted');
    expect(Object.values(result.counts).reduce((sum, count) => sum + count, 0)).toBe(5);
  });

  it('mid-run: running calls end aborted, finished ones keep their results, no new model call starts', async () => {
    const controller = new AbortController();
    const stopper = defineTool({
      name: 'stopper',
      description: 'The user presses stop while this runs; it ignores the signal.',
      input: z.object({}),
      execute: () => {
        setImmediate(() => controller.abort(new Error('user pressed stop')));
        return new Promise(() => {});
      },
    });
    const model = createScriptedModel({
      script: [{ toolCalls: [{ toolName: 'healthy' }, { toolName: 'stopper' }] }, { text: 'never reached' }],
    });
    const log = eventLog();
    const result = await runAgent({
      model,
      tools: [healthy, stopper],
      task: 'Go.',
      signal: controller.signal,
      onEvent: log.listener,
    });
    expect(result.finishReason).toBe('aborted');
    expect(AbortedError.isInstance(result.error)).toBe(true);
    expect(result.observations.map((observation) => observation.status)).toEqual(['success', 'aborted']);
    expect(result.observations[0]?.output).toEqual({ fine: true });
    expect(model.calls).toHaveLength(1);
    expect(log.ofType('inference-started')).toHaveLength(1);
    expect(log.ofType('run-finished').map((event) => event.reason)).toEqual(['aborted']);
    assertEveryCallAnsweredOnce(result);
  });

  it('while the model is answering: the run ends aborted at once, with no tool run', async () => {
    const controller = new AbortController();
    const model = createScriptedModel({ script: [{ stall: true } as ScriptedTurn] });
    const running = runAgent({ model, tools: [healthy], task: 'Go.', signal: controller.signal });
    setImmediate(() => controller.abort(new Error('user pressed stop')));
    const result = await running;
    expect(result.finishReason).toBe('aborted');
    expect(result.observations).toEqual([]);
  });

  it('inside a plan inside a run: the plan reports partial results with the abort marked; the run ends aborted', async () => {
    const controller = new AbortController();
    const clock = createVirtualClock();
    const base = new ToolRegistry([
      defineTool({
        name: 'work',
        description: 'Works for `ms` on the clock.',
        input: z.object({ ms: z.number() }),
        execute: async ({ ms }) => {
          await clock.sleep(ms);
          return { ms };
        },
      }),
    ]);
    let planResult: PlanResult | undefined;
    const tools = ToolRegistry.compose(
      base,
      new ToolRegistry([
        createToolPlanTool({
          tools: base,
          clock,
          // The user presses stop the moment the quick step has finished.
          onEvent: (event: RunEvent) => {
            if (event.type === 'plan-step-finished' && event.stepId === 'quick') {
              controller.abort(new Error('user pressed stop'));
            }
          },
          onPlanResult: (result) => {
            planResult = result;
          },
        }),
      ]),
    );
    const model = createScriptedModel({
      script: [
        {
          toolCalls: [
            {
              toolName: 'execute_tool_plan',
              arguments: {
                steps: [
                  { id: 'quick', tool: 'work', arguments: { ms: 10 } },
                  { id: 'long', tool: 'work', arguments: { ms: 5000 } },
                ],
              },
            },
          ],
        },
        { text: 'never reached' },
      ],
    });
    const result = await runAgent({ model, tools, task: 'Plan it.', signal: controller.signal });
    expect(result.finishReason).toBe('aborted');
    expect(model.calls).toHaveLength(1);
    assertEveryCallAnsweredOnce(result);
    const observation = result.observations[0];
    expect(['aborted', 'success']).toContain(observation?.status);
    expect(planResult?.aborted).toBe(true);
    expect(planResult?.steps.map((step) => step.status)).toEqual(['success', 'aborted']);
    expect(planResult?.steps[0]?.output).toEqual({ ms: 10 });
  });
});
