import { defineTool, executeAction, type ToolExecutionContext, ToolRegistry } from '@org/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestTools } from './__fixtures__/test-tools.js';
import { VirtualClock } from './__fixtures__/virtual-clock.js';
import { createToolPlanTool, executePlan, formatPlanResult } from './index.js';

describe("a plan's deadline keeps the finished steps", () => {
  const chain = {
    steps: [
      { id: 'pay', tool: 'echo', arguments: { value: 'paid' } },
      { id: 'a', tool: 'wait', arguments: { ms: 300, label: 'after $ref:pay' } },
      { id: 'b', tool: 'wait', arguments: { ms: 300, label: 'after $ref:a.label' } },
      { id: 'c', tool: 'echo', arguments: { value: '$ref:b.label' } },
    ],
  };

  it('ends running steps and the ones not started as timeout (plan_timeout), and keeps every result', async () => {
    const clock = new VirtualClock();
    const tools = createTestTools(clock);
    const result = await clock.run(executePlan(chain, { tools, clock, timeoutMs: 500 }));
    expect(result).toMatchObject({ status: 'partial', timedOut: true, timeoutMs: 500, aborted: false });
    expect(result.durationMs).toBe(500);
    expect(result.steps.map((step) => [step.id, step.status, step.error?.code])).toEqual([
      ['pay', 'success', undefined],
      ['a', 'success', undefined],
      ['b', 'timeout', 'plan_timeout'],
      ['c', 'timeout', 'plan_timeout'],
    ]);
    expect(result.steps[2]?.error?.message).toContain('was stopped');
    expect(result.steps[3]?.error?.message).toContain('did not start');
    const text = formatPlanResult(result);
    const formatted = JSON.parse(text);
    expect(formatted.results).toEqual({ pay: 'paid', a: { label: 'after paid', ms: 300 } });
    expect(formatted.timedOut).toContain('Steps that succeeded took effect; do not repeat them.');
    expect(text).not.toContain('narrower arguments');
    expect(clock.pendingTimers).toBe(0);
  });

  it('is checked like the other options', async () => {
    await expect(executePlan(chain, { tools: createTestTools(), timeoutMs: -1 })).rejects.toMatchObject({
      code: 'invalid_plan_options',
      option: 'timeoutMs',
    });
  });

  it("execute_tool_plan ends the plan before its call's deadline and answers with what finished", async () => {
    const tools = createTestTools();
    let charges = 0;
    const payTools = new ToolRegistry([
      ...tools.list(),
      defineTool({
        name: 'pay',
        description: 'Charges the card.',
        input: z.object({}),
        execute: () => ({ charged: ++charges }),
      }),
    ]);
    const agentTools = new ToolRegistry([createToolPlanTool({ tools: payTools })]);
    const observation = await executeAction(
      agentTools,
      {
        id: 'call_1',
        toolName: 'execute_tool_plan',
        args: {
          steps: [
            { id: 'pay', tool: 'pay', arguments: {} },
            { id: 'a', tool: 'wait', arguments: { ms: 300, label: '$ref:pay.charged' } },
            { id: 'b', tool: 'wait', arguments: { ms: 300, label: '$ref:a.label' } },
          ],
        },
      },
      { timeoutMs: 500 },
    );
    expect(observation.status).toBe('success');
    const formatted = JSON.parse(String(observation.output));
    expect(formatted).toMatchObject({
      status: 'partial',
      results: { pay: { charged: 1 }, a: { label: '1', ms: 300 } },
      errors: { b: { status: 'timeout', code: 'plan_timeout' } },
    });
    expect(String(observation.output)).not.toContain('narrower arguments');
    expect(charges).toBe(1);
  });

  it("counts the plan's end from its call's deadline (deadlineAt), not from when the plan started", async () => {
    // As if the process had paused for 400 ms between the call's timer starting and the plan starting (descheduled,
    // a garbage collection): 100 ms of the call's 500 are left, so the plan must end within them, not 490 ms later.
    const planTool = createToolPlanTool({ tools: createTestTools() });
    const plan = {
      steps: [
        { id: 'quick', tool: 'echo', arguments: { value: 'done' } },
        { id: 'slow', tool: 'wait', arguments: { ms: 300, label: 'after $ref:quick' } },
      ],
    };
    const context = (): ToolExecutionContext =>
      ({
        signal: new AbortController().signal,
        toolCallId: 'call_2',
        toolName: 'execute_tool_plan',
        reportProgress: () => {},
        injected: {},
        timeoutMs: 500,
        deadlineAt: performance.now() + 100,
      }) as unknown as ToolExecutionContext;
    const started = performance.now();
    const output = await planTool.execute(plan, context());
    const elapsed = performance.now() - started;
    expect(JSON.parse(String(output))).toMatchObject({
      status: 'partial',
      results: { quick: 'done' },
      errors: { slow: { status: 'timeout', code: 'plan_timeout' } },
    });
    // Ended 10 ms before the call's deadline (the lead of a 500 ms call), where the 300 ms step would have finished.
    expect(elapsed).toBeLessThan(300);

    // The same for a plan read while the model writes it.
    const text = JSON.stringify(plan);
    const input = Object.assign(
      (async function* () {
        yield text;
      })(),
      { arguments: Promise.resolve(plan) },
    );
    const streamStarted = performance.now();
    const streamed = await planTool.executeStreaming!(input, context());
    expect(performance.now() - streamStarted).toBeLessThan(300);
    expect(JSON.parse(String(streamed))).toMatchObject({
      status: 'partial',
      errors: { slow: { status: 'timeout', code: 'plan_timeout' } },
    });
  });
});
