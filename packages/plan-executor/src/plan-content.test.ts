import { defineTool, executeAction, ToolRegistry, withContent } from '@org/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolPlanTool } from './index.js';

const png = Buffer.from('chart').toString('base64');

describe('a plan whose output step returns an image', () => {
  it('passes the image on with the plan result; a step used only as an input does not', async () => {
    const tools = new ToolRegistry([
      defineTool({
        name: 'chart',
        description: 'Draws a chart of a series.',
        input: z.object({ series: z.string() }),
        execute: ({ series }) =>
          withContent({ series }, [{ type: 'image', mediaType: 'image/png', data: png }]),
      }),
      defineTool({
        name: 'caption',
        description: 'Writes a caption.',
        input: z.object({ of: z.unknown() }),
        execute: ({ of }) => `A chart of ${JSON.stringify(of)}`,
      }),
    ]);
    const registry = new ToolRegistry([createToolPlanTool({ tools })]);
    const observation = await executeAction(registry, {
      id: 'p',
      toolName: 'execute_tool_plan',
      args: {
        steps: {
          drawn: { chart: { series: 'sales' } },
          hidden: { chart: { series: 'costs' } },
          text: { caption: { of: '$hidden' } },
        },
        output_steps: ['drawn', 'text'],
      },
    });
    expect(observation.status).toBe('success');
    expect(observation.content).toEqual([{ type: 'image', mediaType: 'image/png', data: png }]);
    expect(String(observation.output)).toContain('A chart of');
  });
});
