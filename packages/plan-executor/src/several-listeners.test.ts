import type { RunEvent, RunEventListener } from '@org/core';
import { executeAction, ToolRegistry } from '@org/tools';
import { describe, expect, it } from 'vitest';
import { createTestTools } from './__fixtures__/test-tools.js';
import { createInProcessStepRunner, createToolPlanTool, executePlan, PlanOptionsError } from './index.js';

const PLAN = {
  steps: [
    { id: 'w', tool: 'get_weather', arguments: { city: 'Paris' } },
    { id: 'e', tool: 'echo', arguments: { value: '$ref:w.city' } },
  ],
};
const throwing: RunEventListener = () => {
  throw new Error('a broken printer');
};
const stepEvents = (events: readonly RunEvent[]): string[] =>
  events.filter((event) => event.type.startsWith('plan-step-')).map((event) => event.type);
const isOnEventError = (error: unknown): boolean =>
  PlanOptionsError.isInstance(error) &&
  error.option === 'onEvent' &&
  /must be a listener function or an array of listener functions; got/.test(error.message);
const NOT_LISTENERS = ['print', [() => {}, null]] as unknown as RunEventListener[];

describe('onEvent of executePlan, createToolPlanTool and createInProcessStepRunner: one listener or several', () => {
  it('executePlan gives each listener every event in order; a throwing one costs the others nothing', async () => {
    const first: RunEvent[] = [];
    const second: RunEvent[] = [];
    const result = await executePlan(PLAN, {
      tools: createTestTools(),
      onEvent: [(event) => first.push(event), throwing, (event) => second.push(event)],
    });
    expect(result.status).toBe('success');
    expect(stepEvents(first)).toEqual([
      'plan-step-started',
      'plan-step-finished',
      'plan-step-started',
      'plan-step-finished',
    ]);
    expect(second).toEqual(first);
  });

  it('execute_tool_plan gives each of its listeners the plan events, and still reports them as progress', async () => {
    const first: RunEvent[] = [];
    const second: RunEvent[] = [];
    const tools = createTestTools();
    const planTool = createToolPlanTool({
      tools,
      onEvent: [(event) => first.push(event), throwing, (event) => second.push(event)],
    });
    const outer: RunEvent[] = [];
    const observation = await executeAction(
      new ToolRegistry([planTool]),
      { id: 'plan-1', toolName: planTool.name, args: PLAN },
      { onEvent: (event) => outer.push(event) },
    );
    expect(observation.status).toBe('success');
    expect(stepEvents(first)).toHaveLength(4);
    expect(second).toEqual(first);
    expect(outer.filter((event) => event.type === 'tool-call-progress')).not.toHaveLength(0);
  });

  it('refuses a value that is not a listener with PlanOptionsError naming onEvent, where it is given', async () => {
    const tools = createTestTools();
    for (const onEvent of NOT_LISTENERS) {
      await expect(executePlan(PLAN, { tools, onEvent })).rejects.toSatisfy(isOnEventError);
      expect(() => createToolPlanTool({ tools, onEvent })).toThrow(PlanOptionsError);
      expect(() => createInProcessStepRunner(tools, { onEvent })).toThrow(PlanOptionsError);
    }
  });
});
