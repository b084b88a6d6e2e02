import type { RunEvent } from '@org/core';
import {
  defineTool,
  executeAction,
  type ToolExecutionContext,
  ToolRegistry,
  toolCallToAction,
} from '@org/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestTools } from './__fixtures__/test-tools.js';
import { createToolPlanTool, type PlanResult, TOOL_PLAN_DESCRIPTION } from './index.js';

describe('createToolPlanTool', () => {
  it('is the execute_tool_plan tool with a JSON Schema input and the teaching description', () => {
    const tool = createToolPlanTool({ tools: createTestTools() });
    expect(tool.name).toBe('execute_tool_plan');
    expect(tool.description).toBe(
      `${TOOL_PLAN_DESCRIPTION} Output fields: get_weather{city, temperature, conditions}.`,
    );
    expect(createToolPlanTool({ tools: createTestTools(), describeOutputs: false }).description).toBe(
      TOOL_PLAN_DESCRIPTION,
    );
    // Both forms of steps: the object the description teaches, and the list.
    expect(tool.inputSchema).toEqual({
      type: 'object',
      required: ['steps'],
      properties: {
        steps: { type: ['object', 'array'] },
        output_steps: { type: 'array', items: { type: 'string' } },
      },
    });
    expect(TOOL_PLAN_DESCRIPTION).toContain('steps: {ID: {TOOL: ARGS}}');
    expect(TOOL_PLAN_DESCRIPTION).not.toContain('"');
    const [spec] = new ToolRegistry([tool]).specs({ target: 'anthropic' });
    expect(spec?.name).toBe('execute_tool_plan');
  });

  it('runs a plan a model wrote as raw JSON text, with string arguments, and answers with the summary', async () => {
    const tools = createTestTools();
    const events: RunEvent[] = [];
    const results: PlanResult[] = [];
    const planTool = createToolPlanTool({
      tools,
      onEvent: (event) => events.push(event),
      onPlanResult: (result) => results.push(result),
    });
    const agentTools = new ToolRegistry([...tools.list(), planTool]);
    const converted = toolCallToAction(agentTools, {
      id: 'call_1',
      toolName: 'execute_tool_plan',
      arguments: JSON.stringify({
        steps: [
          { id: 'w', tool: 'get_weather', arguments: '{"city":"Paris"}' },
          { id: 'm', tool: 'echo', arguments: { value: 'Paris: $ref:w.temperature C' } },
        ],
        output_steps: ['m'],
      }),
    });
    if (!converted.ok) throw converted.error;
    const observation = await executeAction(agentTools, converted.action);
    expect(observation.status).toBe('success');
    expect(JSON.parse(observation.output as string)).toEqual({
      status: 'success',
      summary: '2 of 2 steps succeeded.',
      results: { m: 'Paris: 21 C' },
    });
    expect(results[0]?.steps.map((step) => step.status)).toEqual(['success', 'success']);
    const finished = events.filter((event) => event.type === 'plan-step-finished');
    expect(finished.map((event) => [event.planId, event.stepId])).toEqual([
      ['call_1', 'w'],
      ['call_1', 'm'],
    ]);
  });

  it('fails the call with every problem listed when the plan is invalid, running nothing', async () => {
    const tools = createTestTools();
    const planTool = createToolPlanTool({ tools });
    const registry = new ToolRegistry([planTool]);
    const observation = await executeAction(registry, {
      id: 'call_2',
      toolName: 'execute_tool_plan',
      args: {
        steps: [
          { id: 'a', tool: 'get_wether', arguments: {} },
          { id: 'b', tool: 'echo', arguments: { value: '$ref:c' } },
        ],
      },
    });
    expect(observation.status).toBe('error');
    expect(observation.error?.message).toContain('The plan is invalid (2 problems)');
    expect(observation.error?.message).toContain("did you mean 'get_weather'?");
    expect(observation.error?.message).toContain("unknown step 'c'");
  });

  it('aborts the plan with the call', async () => {
    const tools = createTestTools();
    const registry = new ToolRegistry([createToolPlanTool({ tools })]);
    const controller = new AbortController();
    const pending = executeAction(
      registry,
      {
        id: 'call_3',
        toolName: 'execute_tool_plan',
        args: { steps: [{ id: 'slow', tool: 'wait', arguments: { ms: 5000 } }] },
      },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 5);
    const observation = await pending;
    expect(observation.status).toBe('aborted');
  });

  it("runs every step as the plan call is run: the caller's hooks and injected values apply to each step", async () => {
    const tools = new ToolRegistry([
      ...createTestTools().list(),
      defineTool({
        name: 'my_city',
        description: "The user's city.",
        input: z.object({}),
        inject: ['userId'],
        execute: (_args, context) => (context.injected.userId === 'u-42' ? 'Paris' : 'unknown'),
      }),
    ]);
    const agentTools = new ToolRegistry([...tools.list(), createToolPlanTool({ tools })]);
    const hooked: string[] = [];
    const observation = await executeAction(
      agentTools,
      {
        id: 'call_7',
        toolName: 'execute_tool_plan',
        args: {
          steps: [
            { id: 'c', tool: 'my_city', arguments: {} },
            { id: 'w', tool: 'get_weather', arguments: { city: '$ref:c' } },
            { id: 's', tool: 'search', arguments: { query: 'weather in $ref:c' } },
          ],
        },
      },
      {
        injected: { userId: 'u-42' },
        hooks: {
          beforeToolUse: ({ action }) => {
            hooked.push(action.id);
            return action.toolName === 'search' ? { decision: 'block', reason: 'no web search' } : undefined;
          },
        },
      },
    );
    expect(hooked.sort()).toEqual(['call_7', 'call_7/c', 'call_7/s', 'call_7/w']);
    expect(JSON.parse(observation.output as string)).toMatchObject({
      status: 'partial',
      results: {
        c: 'Paris',
        w: { city: 'Paris', temperature: 21 },
      },
      errors: { s: { status: 'blocked', message: expect.stringContaining('no web search') } },
    });
  });

  it('uses a runner given in its options instead', async () => {
    const tools = createTestTools();
    const ran: string[] = [];
    const planTool = createToolPlanTool({
      tools,
      runner: {
        run: async ({ action }) => {
          ran.push(action.id);
          return {
            actionId: action.id,
            toolName: action.toolName,
            status: 'success',
            output: 'queued',
            durationMs: 0,
          };
        },
      },
    });
    const observation = await executeAction(
      new ToolRegistry([planTool]),
      {
        id: 'call_8',
        toolName: 'execute_tool_plan',
        args: { steps: [{ id: 'a', tool: 'echo', arguments: { value: 1 } }] },
      },
      {
        hooks: {
          beforeToolUse: ({ action }) =>
            action.id === 'call_8' ? undefined : { decision: 'block', reason: 'x' },
        },
      },
    );
    expect(ran).toEqual(['call_8/a']);
    expect(JSON.parse(observation.output as string)).toMatchObject({ results: { a: 'queued' } });
  });

  it('runs a plan when called directly with a hand-built context (no executeNested): steps run in process', async () => {
    const planTool = createToolPlanTool({ tools: createTestTools() });
    const output = await planTool.execute(
      { steps: [{ id: 'w', tool: 'get_weather', arguments: { city: 'Oslo' } }] },
      {
        signal: new AbortController().signal,
        toolCallId: 'call_9',
        toolName: 'execute_tool_plan',
        reportProgress: () => {},
        injected: {},
      } as unknown as ToolExecutionContext,
    );
    expect(JSON.parse(output as string)).toMatchObject({
      status: 'success',
      results: { w: { city: 'Oslo' } },
    });
  });

  it('takes its tools as runAgent does: an array or a registry; anything else names the option', async () => {
    const tools = createTestTools();
    const fromArray = createToolPlanTool({ tools: tools.list() });
    const registry = new ToolRegistry([fromArray]);
    const observation = await executeAction(registry, {
      id: 'plan_1',
      toolName: 'execute_tool_plan',
      args: { steps: [{ id: 'w', tool: 'get_weather', arguments: { city: 'Oslo' } }] },
    });
    expect(observation.status).toBe('success');
    for (const bad of [undefined, 42, { get_weather: true }, 'get_weather']) {
      expect(() => createToolPlanTool({ tools: bad as never })).toThrow(
        expect.objectContaining({ code: 'invalid_plan_options', option: 'tools' }),
      );
    }
  });
});
