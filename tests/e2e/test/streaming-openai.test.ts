// The streaming loop end to end, through the real `openai` SDK against a local server that streams its answers
// slowly (Chat Completions server-sent events): an eager tool call, and the steps of a plan, start while the model
// is still writing, before the stream ends.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createToolPlanTool } from '@org/plan-executor';
import { runAgent } from '@org/planner';
import { createOpenAI } from '@org/provider-openai';
import { defineTool, ToolRegistry } from '@org/tools';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';

/** One streamed answer: its chunks (each a `choices[0].delta`), and the finish reason. */
interface StreamedAnswer {
  readonly deltas: readonly Record<string, unknown>[];
  readonly finishReason: 'tool_calls' | 'stop';
}

/** A Chat Completions server streaming each queued answer one chunk every `gapMs`; it records when each ended. */
async function startSlowServer(answers: StreamedAnswer[], gapMs: number) {
  const ended: number[] = [];
  const requests: Record<string, unknown>[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    request.on('end', async () => {
      requests.push(JSON.parse(body) as Record<string, unknown>);
      const answer = answers.shift();
      if (answer === undefined) {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: 'nothing queued', type: 'server_error' } }));
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const chunk = (choice: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
        `data: ${JSON.stringify({ id: 'chatcmpl-e2e', object: 'chat.completion.chunk', created: 1, model: 'gpt-e2e', choices: [choice], ...extra })}\n\n`;
      for (const delta of answer.deltas) {
        response.write(chunk({ index: 0, delta, finish_reason: null }));
        await new Promise((resolve) => setTimeout(resolve, gapMs));
      }
      response.write(chunk({ index: 0, delta: {}, finish_reason: answer.finishReason }));
      response.write(
        `data: ${JSON.stringify({ id: 'chatcmpl-e2e', object: 'chat.completion.chunk', created: 1, model: 'gpt-e2e', choices: [], usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 } })}\n\n`,
      );
      response.write('data: [DONE]\n\n');
      ended.push(Date.now());
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    ended,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The deltas that write one tool call: its id and name first, then its arguments in pieces of `size` characters. */
function callDeltas(index: number, id: string, name: string, args: string, size: number) {
  const deltas: Record<string, unknown>[] = [
    { tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }] },
  ];
  for (let at = 0; at < args.length; at += size) {
    deltas.push({ tool_calls: [{ index, function: { arguments: args.slice(at, at + size) } }] });
  }
  return deltas;
}

const textDeltas = (text: string) => text.split(/(?<= )/).map((content) => ({ content }));

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
    const model = createOpenAI({ apiKey: 'sk-e2e-test-key', baseURL: server.baseURL, maxRetries: 0 })(
      'gpt-e2e',
      {
        api: 'chat',
      },
    );
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
    const model = createOpenAI({ apiKey: 'sk-e2e-test-key', baseURL: server.baseURL, maxRetries: 0 })(
      'gpt-e2e',
      {
        api: 'chat',
      },
    );
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
