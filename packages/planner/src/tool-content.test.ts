import { createScriptedModel } from '@org/provider-scripted';
import { defineTool, ToolRegistry, withContent } from '@org/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createReActPlanner, runAgent } from './index.js';

const png = Buffer.from('a tiny png').toString('base64');

const screenshot = defineTool({
  name: 'screenshot',
  description: 'Takes a screenshot of a page.',
  input: z.object({ url: z.string() }),
  execute: ({ url }) =>
    withContent({ url, title: 'Home' }, [{ type: 'image', mediaType: 'image/png', data: png }]),
});

describe('a tool that returns an image', () => {
  it('function calling: the tool message carries the text and the image as content parts', async () => {
    const model = createScriptedModel({
      script: [
        { toolCalls: [{ id: 's', toolName: 'screenshot', arguments: { url: 'https://a.example' } }] },
        { text: 'The page shows its home title.' },
      ],
    });
    const result = await runAgent({
      model,
      tools: new ToolRegistry([screenshot]),
      task: 'What is on the page?',
    });
    expect(result.finishReason).toBe('final-answer');
    const toolMessage = model.requests[1]?.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toEqual([
      { type: 'text', text: '{"url":"https://a.example","title":"Home"}' },
      { type: 'image', mediaType: 'image/png', data: png },
    ]);
    expect(result.observations[0]?.content).toEqual([{ type: 'image', mediaType: 'image/png', data: png }]);
  });

  it('ReAct: the observation message carries the image after its text', async () => {
    const model = createScriptedModel({
      capabilities: { toolCalls: false },
      script: [
        {
          text: JSON.stringify({
            thought: 'Look.',
            type: 'call_tool',
            tool: 'screenshot',
            args: { url: 'u' },
          }),
        },
        { text: JSON.stringify({ thought: 'Seen.', type: 'final_answer', answer: 'Home page.' }) },
      ],
    });
    const result = await runAgent({
      model,
      tools: new ToolRegistry([screenshot]),
      planner: createReActPlanner(),
      task: 'What is on the page?',
    });
    expect(result.text).toBe('Home page.');
    const observation = model.requests[1]?.messages.at(-1);
    expect(observation?.role).toBe('user');
    expect(observation?.content).toEqual([
      { type: 'text', text: 'Observation: {"url":"u","title":"Home"}' },
      { type: 'image', mediaType: 'image/png', data: png },
    ]);
  });
});
