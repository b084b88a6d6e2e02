import { defineTool, ToolRegistry } from '@org/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestTools } from './__fixtures__/test-tools.js';
import { createToolPlanTool } from './index.js';

describe('output schemas offered to the model, compactly', () => {
  it('lists nested fields and arrays, skips tools without a useful schema, and stays bounded', () => {
    const tools = new ToolRegistry([
      ...createTestTools().list(),
      defineTool({
        name: 'search_docs',
        description: 'Search.',
        input: z.object({ q: z.string() }),
        output: z.object({
          total: z.number(),
          items: z.array(z.object({ url: z.string(), meta: z.object({ tags: z.array(z.string()) }) })),
        }),
        execute: () => ({ total: 0, items: [] }),
      }),
      defineTool({
        name: 'count',
        description: 'A number.',
        input: z.object({}),
        output: z.number(),
        execute: () => 1,
      }),
    ]);
    const description = createToolPlanTool({ tools }).description;
    expect(description).toContain(
      'Output fields: get_weather{city, temperature, conditions}; search_docs{total, items[{url, meta{tags[]}}]}.',
    );
    expect(description).not.toContain('count');
    const many = new ToolRegistry(
      Array.from({ length: 60 }, (_, index) =>
        defineTool({
          name: `tool_${index}`,
          description: 'x',
          input: z.object({}),
          output: z.object({ first_field: z.string(), second_field: z.string(), third_field: z.string() }),
          execute: () => ({ first_field: '', second_field: '', third_field: '' }),
        }),
      ),
    );
    const bounded = createToolPlanTool({ tools: many }).description;
    expect(bounded.length).toBeLessThan(2_000);
    expect(bounded).toMatch(/; and \d+ more tools\.$/);
  });
});
