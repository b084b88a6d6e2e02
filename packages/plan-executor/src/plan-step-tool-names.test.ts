import { defineTool, ToolRegistry } from '@org/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolPlanTool, executePlan, type PlanProblem, validatePlan } from './index.js';

function namespacedTools(): ToolRegistry {
  return new ToolRegistry([
    defineTool({
      name: 'orders.get',
      description: 'An order.',
      input: z.object({ id: z.string() }),
      output: z.object({ id: z.string(), total: z.number() }),
      execute: ({ id }) => ({ id, total: 42 }),
    }),
    // Takes `math_factorial`, so `math.factorial` goes on the wire as `math_factorial_2`.
    defineTool({
      name: 'math_factorial',
      description: 'n!',
      input: z.object({ n: z.number() }),
      execute: ({ n }) => (n <= 1 ? 1 : n * 2),
    }),
    defineTool({
      name: 'math.factorial',
      description: 'n! (namespaced)',
      input: z.object({ n: z.number() }),
      execute: () => 'namespaced',
    }),
  ]);
}

const problemsOf = (input: unknown, tools: ToolRegistry): PlanProblem[] => {
  const checked = validatePlan(input, { tools });
  return checked.ok ? [] : [...checked.error.problems];
};

describe('plan steps accept the tool names the model was shown', () => {
  it('resolves provider names (orders_get, math_factorial_2) and registered names through the registry mapping', async () => {
    const tools = namespacedTools();
    const specNames = tools.specs({ target: 'anthropic' }).map((spec) => spec.name);
    expect(specNames).toEqual(['orders_get', 'math_factorial', 'math_factorial_2']);
    // Every provider target gets the same names from the one mapping.
    for (const target of ['json-schema', 'openai-strict', 'bedrock'] as const) {
      expect(tools.specs({ target }).map((spec) => spec.name)).toEqual(specNames);
    }
    const seen: string[] = [];
    const result = await executePlan(
      {
        steps: [
          { id: 'o', tool: 'orders_get', arguments: { id: 'A1' } },
          { id: 'f', tool: 'math_factorial_2', arguments: { n: '$ref:o.total' } },
          { id: 'g', tool: 'math_factorial', arguments: { n: 3 } },
          { id: 'r', tool: 'orders.get', arguments: { id: 'A2' } },
        ],
      },
      {
        tools,
        onEvent: (event) => {
          if (event.type === 'plan-step-started') seen.push(event.toolName);
        },
      },
    );
    expect(result.status).toBe('success');
    expect(result.steps.map((step) => [step.tool, step.observation?.toolName, step.output])).toEqual([
      ['orders_get', 'orders.get', { id: 'A1', total: 42 }],
      ['math_factorial_2', 'math.factorial', 'namespaced'],
      ['math_factorial', 'math_factorial', 6],
      ['orders.get', 'orders.get', { id: 'A2', total: 42 }],
    ]);
    // Events and actions carry the registered name, as for a direct call.
    expect(seen.sort()).toEqual(['math.factorial', 'math_factorial', 'orders.get', 'orders.get']);
  });

  it('suggests and lists tools by the names the model sees', () => {
    const [problem] = problemsOf(
      { steps: [{ id: 'o', tool: 'orders_gte', arguments: {} }] },
      namespacedTools(),
    );
    expect(problem).toMatchObject({ code: 'unknown_tool', suggestion: 'orders_get' });
    expect(problem?.message).toContain('Available tools: orders_get, math_factorial, math_factorial_2.');
  });

  it("names tools in the plan tool's output-field hint as the model sees them", () => {
    const planTool = createToolPlanTool({ tools: namespacedTools() });
    expect(planTool.description).toContain('Output fields: orders_get{id, total}.');
    expect(planTool.description).not.toContain('orders.get');
  });
});
