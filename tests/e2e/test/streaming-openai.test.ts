// The streaming loop end to end, through the real `openai` SDK against a local server that streams its answers
// slowly (Chat Completions server-sent events): an eager tool call, and the steps of a plan, start while the model
// is still writing, before the stream ends.
import { createToolPlanTool } from '@org/plan-executor';
import { runAgent } from '@org/planner';
import { defineTool, ToolRegistry } from '@org/tools';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callDeltas, slowServerModel, startSlowServer, textDeltas } from './support/slow-sse-server.js';

function searchTool(started: { query: string; at: number }[]) {
  return defineTool({
    name: 'search',
    description: 'Searches the index; returns the score of the best hit.',
    input: z.object({ query: z.string() }),
    eager: true,
    execute: ({ query }) => {
      started.push({ query, at: Date.now() });
      return { query, score: query.length };
    },
  });
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe('the streaming loop through the openai SDK', () => {
  it('native calls: an eager call starts before the stream of the answer ends', async () => {
    const started: { query: string; at: number }[] = [];
    const server = await startSlowServer(
      [
        {
          deltas: [
            { role: 'assistant' },
            ...callDeltas(0, 'call_a', 'search', '{"query":"alpha"}', 4),
            ...callDeltas(1, 'call_b', 'search', '{"query":"beta"}', 4),
          ],
          finishReason: 'tool_calls',
        },
        { deltas: textDeltas('alpha scores 5, beta 4.'), finishReason: 'stop' },
      ],
      15,
    );
    close = server.close;
    const model = slowServerModel(server);
    const result = await runAgent({ model, tools: [searchTool(started)], task: 'Score alpha and beta.' });
    expect(result.text).toBe('alpha scores 5, beta 4.');
    expect(started.map((start) => start.query)).toEqual(['alpha', 'beta']);
    // alpha's arguments were complete several chunks before the answer's last one.
    expect(started[0]?.at).toBeLessThan(server.ended[0] as number);
    expect(server.requests[0]).toMatchObject({ stream: true });
  });

  it('plan mode: the first plan step runs while the model is still writing the plan', async () => {
    const started: { query: string; at: number }[] = [];
    const tools = new ToolRegistry([searchTool(started)]);
    const plan = JSON.stringify({
      steps: [
        { id: 'a', tool: 'search', arguments: { query: 'alpha' } },
        { id: 'b', tool: 'search', arguments: { query: 'beta' } },
        { id: 'c', tool: 'search', arguments: { query: 'gamma' } },
      ],
      output_steps: ['a', 'b', 'c'],
    });
    const server = await startSlowServer(
      [
        {
          deltas: [{ role: 'assistant' }, ...callDeltas(0, 'call_plan', 'execute_tool_plan', plan, 6)],
          finishReason: 'tool_calls',
        },
        { deltas: textDeltas('alpha 5, beta 4, gamma 5.'), finishReason: 'stop' },
      ],
      10,
    );
    close = server.close;
    const model = slowServerModel(server);
    const events: string[] = [];
    const result = await runAgent({
      model,
      tools: ToolRegistry.compose(tools, new ToolRegistry([createToolPlanTool({ tools })])),
      task: 'Score alpha, beta and gamma.',
      onEvent: (event) => {
        if (event.type === 'plan-step-started') events.push(`step ${event.stepId}`);
        if (event.type === 'inference-finished') events.push('answer complete');
      },
    });
    expect(result.finishReason).toBe('final-answer');
    expect(started.map((start) => start.query)).toEqual(['alpha', 'beta', 'gamma']);
    expect(started[0]?.at).toBeLessThan(server.ended[0] as number);
    // The steps started before the model's answer was complete.
    expect(events.indexOf('step a')).toBeLessThan(events.indexOf('answer complete'));
    expect(result.observations[0]).toMatchObject({ toolName: 'execute_tool_plan', status: 'success' });
  });
});
