import { defineTool, executeAction, ToolRegistry } from '@org/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestTools } from './__fixtures__/test-tools.js';
import { createToolPlanTool, executePlan, formatPlanResult } from './index.js';

describe('a large plan result keeps its failures', () => {
  it('keeps every failure and why within the budget, and cuts the outputs with markers', async () => {
    const big = (label: string) => ({ label, text: label.repeat(20_000) });
    const tools = new ToolRegistry([
      ...createTestTools().list(),
      defineTool({
        name: 'big',
        description: 'A large output.',
        input: z.object({ label: z.string() }),
        execute: ({ label }) => big(label),
      }),
    ]);
    const planTool = createToolPlanTool({ tools });
    const observation = await executeAction(new ToolRegistry([planTool]), {
      id: 'call_1',
      toolName: 'execute_tool_plan',
      args: {
        steps: [
          { id: 'x', tool: 'big', arguments: { label: 'x' } },
          { id: 'y', tool: 'big', arguments: { label: 'y' } },
          { id: 'z', tool: 'big', arguments: { label: 'z' } },
          { id: 'f', tool: 'fail', arguments: { message: 'card declined: insufficient funds' } },
        ],
      },
    });
    expect(observation.status).toBe('success');
    // The summary fits the call's budget, so executeAction does not cut it again (which would cut the tail).
    expect(observation.truncated).not.toBe(true);
    expect(observation.output).toBe(observation.rawOutput);
    const text = String(observation.output);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(50_000);
    const formatted = JSON.parse(text);
    expect(formatted.summary).toBe('3 of 4 steps succeeded, 1 failed.');
    expect(formatted.errors.f.message).toContain('card declined: insufficient funds');
    expect(Object.keys(formatted.results)).toEqual(['x', 'y', 'z']);
    for (const id of ['x', 'y', 'z']) expect(formatted.results[id]).toContain('[output truncated');
    // Failures come before the outputs in the text, too.
    expect(text.indexOf('"errors"')).toBeLessThan(text.indexOf('"results"'));
  });

  it('fits a smaller budget, gives small outputs whole, and lists failures that do not fit by id', async () => {
    const steps = [
      { id: 'small', tool: 'echo', arguments: { value: 'tiny' } },
      { id: 'large', tool: 'echo', arguments: { value: 'L'.repeat(5_000) } },
      ...Array.from({ length: 40 }, (_, index) => ({
        id: `f${index}`,
        tool: 'fail',
        arguments: { message: `reason ${index} `.repeat(20) },
      })),
    ];
    const result = await executePlan({ steps }, { tools: createTestTools() });
    const text = formatPlanResult(result, { budgetBytes: 4_000 });
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4_000 + 1_000);
    const formatted = JSON.parse(text);
    expect(formatted.summary).toBe('2 of 42 steps succeeded, 40 failed.');
    expect(Object.keys(formatted.errors).length).toBeGreaterThan(0);
    expect(formatted.errorsNotShown).toMatch(/^\d+ more not shown .*f39$/);
    const unlimited = JSON.parse(formatPlanResult(result, { budgetBytes: Number.POSITIVE_INFINITY }));
    expect(Object.keys(unlimited.errors)).toHaveLength(40);
    expect(unlimited.results.large).toBe('L'.repeat(5_000));
  });
});
