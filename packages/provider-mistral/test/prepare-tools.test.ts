import {
  InvalidRequestError,
  type ModelRequest,
  ToolChoice,
  type ToolSpec,
  toToolChoice,
  UnsupportedToolChoiceError,
} from '@org/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeMistralServer, startFakeMistralServer } from './fake-mistral-server.js';
import { testProvider } from './test-provider.js';

const WEATHER: ToolSpec = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
  strict: true,
};
const SEARCH: ToolSpec = {
  name: 'search_docs',
  description: 'Search the docs.',
  inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
};
const MESSAGES: ModelRequest['messages'] = [{ role: 'user', content: 'Weather in Paris?' }];

let server: FakeMistralServer;
beforeEach(async () => {
  server = await startFakeMistralServer();
});
afterEach(async () => {
  await server.close();
});

async function sentBody(request: Partial<ModelRequest>, settings = {}): Promise<Record<string, unknown>> {
  server.enqueue({ type: 'response', text: 'ok' });
  await testProvider(server)('mistral-large-latest', settings).generate({ messages: MESSAGES, ...request });
  return server.requests.at(-1)?.body as unknown as Record<string, unknown>;
}

describe('tool choice on the wire', () => {
  it.each([
    ['auto', 'auto'],
    ['required', 'any'],
    ['any', 'any'],
    ['none', 'none'],
  ] as const)('%s → tool_choice %j, tools kept', async (choice, wire) => {
    const body = await sentBody({ tools: [WEATHER, SEARCH], toolChoice: toToolChoice(choice) });
    expect(body.tool_choice).toBe(wire);
    expect((body.tools as unknown[]).length).toBe(2);
  });

  it('a named tool → {type: function, function: {name}}', async () => {
    const body = await sentBody({
      tools: [WEATHER, SEARCH],
      toolChoice: { type: 'tool', toolName: 'search_docs' },
    });
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'search_docs' } });
  });

  it('parallelToolCalls → parallel_tool_calls, left out when not asked', async () => {
    expect((await sentBody({ tools: [WEATHER], parallelToolCalls: false })).parallel_tool_calls).toBe(false);
    expect((await sentBody({ tools: [WEATHER], parallelToolCalls: true })).parallel_tool_calls).toBe(true);
    expect(await sentBody({ tools: [WEATHER] })).not.toHaveProperty('parallel_tool_calls');
  });

  it('sends each tool as a function with its schema, and strict where the spec asks', async () => {
    const body = await sentBody({ tools: [WEATHER, SEARCH] });
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: WEATHER.description,
          parameters: WEATHER.inputSchema,
          strict: true,
        },
      },
      {
        type: 'function',
        function: { name: 'search_docs', description: SEARCH.description, parameters: SEARCH.inputSchema },
      },
    ]);
  });

  it('without tools, sends neither tools nor tool_choice', async () => {
    const body = await sentBody({ toolChoice: ToolChoice.none() });
    expect(body).not.toHaveProperty('tools');
    expect(body).not.toHaveProperty('tool_choice');
  });

  it('an emulated mode is sent as auto with an instruction, reported, and its answer checked', async () => {
    server.enqueue({
      type: 'response',
      toolCalls: [{ id: 'aB3dE5gH7', toolName: 'search_docs', arguments: '{"query":"rain"}' }],
    });
    const model = testProvider(server)('open-mistral-nemo', { family: 'open-weights' });
    const response = await model.generate({
      messages: MESSAGES,
      tools: [WEATHER, SEARCH],
      toolChoice: { type: 'tool', toolName: 'get_weather' },
    });
    const body = server.requests[0]?.body;
    expect(body?.tool_choice).toBe('auto');
    expect(body?.messages.at(-1)).toEqual({
      role: 'system',
      content: "You must answer by calling the tool 'get_weather'. Do not call any other tool.",
    });
    expect(response.toolCalls).toEqual([]);
    const kinds = response.adjustments.map((adjustment) => adjustment.kind);
    expect(kinds[0]).toBe('tool-choice-emulated');
    expect(kinds).toContain('tool-calls-rejected');
  });

  it('parallelToolCalls on a family declared without it is not sent, and reported', async () => {
    server.enqueue({ type: 'response', text: 'ok' });
    const model = testProvider(server)('open-mistral-nemo', { family: 'open-weights' });
    const response = await model.generate({ messages: MESSAGES, tools: [WEATHER], parallelToolCalls: false });
    expect(server.requests[0]?.body).not.toHaveProperty('parallel_tool_calls');
    expect(response.adjustments).toContainEqual(
      expect.objectContaining({
        kind: 'setting-ignored',
        details: { setting: 'parallelToolCalls', value: false },
      }),
    );
  });

  it('a function name Mistral refuses fails before sending, naming the tool and the fix', async () => {
    const model = testProvider(server)('mistral-large-latest');
    const error = await model
      .generate({ messages: MESSAGES, tools: [{ ...WEATHER, name: 'weather.get' }] })
      .catch((thrown: unknown) => thrown);
    expect(InvalidRequestError.isInstance(error)).toBe(true);
    expect((error as InvalidRequestError).providerCode).toBe('invalid_function_name');
    expect((error as Error).message).toContain("'weather.get'");
    expect((error as Error).message).toContain('ToolRegistry');
    expect(server.requests).toHaveLength(0);
  });

  it('a mode declared unsupported fails before sending', async () => {
    const model = testProvider(server)('mistral-large-latest', {
      capabilities: { toolChoice: { none: 'unsupported' } },
    });
    const error = await model
      .generate({ messages: MESSAGES, tools: [WEATHER], toolChoice: ToolChoice.none() })
      .catch((thrown: unknown) => thrown);
    expect(UnsupportedToolChoiceError.isInstance(error)).toBe(true);
    expect(server.requests).toHaveLength(0);
  });
});
