import type { Adjustment, RunEvent } from '@org/core';
import { createFunctionCallingPlanner, runAgent } from '@org/planner';
import { createOpenAI } from '@org/provider-openai';
import { defineTool } from '@org/tools';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type FakeHttpServer, jsonReply, startFakeHttpServer } from './support/fake-http-server.js';

// Issue 19 item 5: a model that declares strict schemas gets each tool strict when strict mode can express its
// schema, and strict: false (reported) when it cannot, without the planner being told schemaTarget.
const lookup = defineTool({
  name: 'lookup_city',
  description: 'Looks a city up.',
  input: z.object({ city: z.string(), country: z.string().optional() }),
  execute: ({ city }) => ({ city, population: 2_102_650 }),
});
const annotate = defineTool({
  name: 'annotate',
  description: 'Stores free-form metadata about a city.',
  input: { type: 'object', properties: { metadata: { type: 'object' } }, required: ['metadata'] },
  execute: () => 'stored',
});

const chatAnswer = (message: Record<string, unknown>, finishReason: string) =>
  jsonReply(200, {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-test',
    choices: [
      { index: 0, message: { role: 'assistant', content: null, ...message }, finish_reason: finishReason },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  });
const responsesAnswer = (output: unknown[]) =>
  jsonReply(200, {
    id: 'resp_1',
    object: 'response',
    created_at: 1,
    status: 'completed',
    model: 'gpt-test',
    output,
    usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
  });

let server: FakeHttpServer;
beforeEach(async () => {
  server = await startFakeHttpServer('/v1');
});
afterEach(async () => {
  await server.close();
});

async function run(
  api: 'chat' | 'responses',
): Promise<{ tools: Record<string, unknown>[]; adjustments: Adjustment[] }> {
  if (api === 'chat') {
    server.enqueue(
      chatAnswer(
        {
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'lookup_city', arguments: '{"city":"Paris","country":null}' },
            },
          ],
        },
        'tool_calls',
      ),
      chatAnswer({ content: 'Paris has 2.1 million people.' }, 'stop'),
    );
  } else {
    server.enqueue(
      responsesAnswer([
        {
          type: 'function_call',
          id: 'fc_1',
          call_id: 'call_1',
          name: 'lookup_city',
          arguments: '{"city":"Paris","country":null}',
          status: 'completed',
        },
      ]),
      responsesAnswer([
        {
          type: 'message',
          id: 'msg_1',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Paris has 2.1 million people.', annotations: [] }],
        },
      ]),
    );
  }
  const model = createOpenAI({ apiKey: 'sk-test', baseURL: server.baseURL, maxRetries: 0 })('gpt-test', {
    api,
    capabilities: { streaming: false },
  });
  const events: RunEvent[] = [];
  const result = await runAgent({
    model,
    tools: [lookup, annotate],
    planner: createFunctionCallingPlanner(),
    task: 'How many people live in Paris?',
    onEvent: (event) => events.push(event),
  });
  expect(result.finishReason).toBe('final-answer');
  expect(result.observations[0]?.status).toBe('success');
  const body = server.received[0]?.body as { tools: Record<string, unknown>[] };
  return {
    tools: body.tools,
    adjustments: events.flatMap((event) => (event.type === 'adjustment' ? [event.adjustment] : [])),
  };
}

describe('strict schemas on a model that declares them (OpenAI, no schemaTarget given)', () => {
  for (const api of ['chat', 'responses'] as const) {
    it(`${api}: strict: true for a strict-compatible tool, strict: false plus an adjustment for a free-form one`, async () => {
      const { tools, adjustments } = await run(api);
      const strictOf = (tool: Record<string, unknown>): unknown =>
        api === 'chat' ? (tool.function as Record<string, unknown>).strict : tool.strict;
      const parametersOf = (tool: Record<string, unknown>): unknown =>
        api === 'chat' ? (tool.function as Record<string, unknown>).parameters : tool.parameters;
      expect(tools.map(strictOf)).toEqual([true, false]);
      expect(parametersOf(tools[0] ?? {})).toMatchObject({
        additionalProperties: false,
        required: ['city', 'country'],
        properties: { country: { type: ['string', 'null'] } },
      });
      expect(adjustments).toContainEqual({
        kind: 'schema-adapted',
        message: expect.stringContaining("'annotate'"),
        details: {
          reason: 'strict-not-expressible',
          tools: [{ toolName: 'annotate', reason: expect.any(String) }],
        },
      });
      // Reported once for the run, not once per model call.
      expect(adjustments.filter((adjustment) => adjustment.kind === 'schema-adapted')).toHaveLength(1);
    });
  }
});
