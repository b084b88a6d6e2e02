import {
  collectStream,
  InvalidMessageHistoryError,
  InvalidRequestError,
  type Message,
  type ModelRequest,
  type StreamPart,
  ToolChoice,
  UnsupportedToolChoiceError,
} from '@org/core';
import { describe, expect, it } from 'vitest';
import { SEARCH_TOOL, USER_ONLY, WEATHER_TOOL, withTestModel } from './test-provider.js';

const TEXT = { type: 'response', text: 'Done.', usage: { inputTokens: 5, outputTokens: 1 } } as const;
const CALL = {
  type: 'response',
  toolCalls: [{ id: 'call_1', toolName: 'get_weather', arguments: '{"city":"Paris"}' }],
  usage: { inputTokens: 5, outputTokens: 3 },
} as const;

const HISTORY: readonly Message[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Weather in Paris and Oslo?' },
  {
    role: 'assistant',
    content: 'Checking.',
    toolCalls: [
      { id: 'call_a', toolName: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_b', toolName: 'get_weather', arguments: '{"city":"Oslo"}' },
    ],
  },
  { role: 'tool', toolCallId: 'call_a', toolName: 'get_weather', content: '18 °C' },
  { role: 'tool', toolCallId: 'call_b', toolName: 'get_weather', content: 'city not found', isError: true },
  { role: 'user', content: 'Thanks. Anything else?' },
];

/** The README table, checked: each ToolChoice mode → the exact wire value, per API. */
const WIRE_TABLE = [
  [ToolChoice.auto(), 'auto', 'auto'],
  [ToolChoice.required(), 'required', 'required'],
  [ToolChoice.none(), 'none', 'none'],
  [
    ToolChoice.tool('get_weather'),
    { type: 'function', function: { name: 'get_weather' } },
    { type: 'function', name: 'get_weather' },
  ],
] as const;

describe('tool_choice on the wire (the README table)', () => {
  for (const [choice, chat, responses] of WIRE_TABLE) {
    it(`${choice.type} → chat ${JSON.stringify(chat)}, responses ${JSON.stringify(responses)}`, async () => {
      for (const [api, expected] of [
        ['chat', chat],
        ['responses', responses],
      ] as const) {
        await withTestModel({ api }, async ({ server, model }) => {
          server.enqueue(choice.type === 'none' ? TEXT : CALL);
          await model.generate({
            messages: USER_ONLY,
            tools: [WEATHER_TOOL, SEARCH_TOOL],
            toolChoice: choice,
          });
          expect(server.received[0]?.body.tool_choice).toEqual(expected);
        });
      }
    });
  }

  it('no tools → neither tools nor tool_choice nor parallel_tool_calls is sent', async () => {
    for (const api of ['chat', 'responses'] as const) {
      await withTestModel({ api }, async ({ server, model }) => {
        server.enqueue(TEXT);
        await model.generate({ messages: USER_ONLY, parallelToolCalls: false });
        const body = server.received[0]?.body ?? {};
        expect(Object.keys(body)).not.toContain('tools');
        expect(Object.keys(body)).not.toContain('tool_choice');
        expect(Object.keys(body)).not.toContain('parallel_tool_calls');
      });
    }
  });
});

describe('chat completions request', () => {
  it('maps history, tools, strict, parallel calls, limits, temperature, stop and provider options', async () => {
    await withTestModel({ api: 'chat' }, async ({ server, model }) => {
      server.enqueue(TEXT);
      await model.generate({
        messages: HISTORY,
        tools: [{ ...WEATHER_TOOL, strict: true }, SEARCH_TOOL],
        parallelToolCalls: false,
        maxOutputTokens: 256,
        temperature: 0.2,
        stopSequences: ['\n\nUser:'],
        providerOptions: { openai: { user: 'user-42', service_tier: 'flex' }, anthropic: { ignored: true } },
      });
      const { body, headers } = server.received[0]!;
      expect(headers.authorization).toBe('Bearer sk-test-key-for-fake-server');
      expect(body).toEqual({
        model: 'gpt-test',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Weather in Paris and Oslo?' },
          {
            role: 'assistant',
            content: 'Checking.',
            tool_calls: [
              {
                id: 'call_a',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
              },
              {
                id: 'call_b',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
              },
            ],
          },
          { role: 'tool', tool_call_id: 'call_a', content: '18 °C' },
          { role: 'tool', tool_call_id: 'call_b', content: 'city not found' },
          { role: 'user', content: 'Thanks. Anything else?' },
        ],
        tools: [
          {
            type: 'function',
            function: {
              name: 'get_weather',
              description: WEATHER_TOOL.description,
              parameters: WEATHER_TOOL.inputSchema,
              strict: true,
            },
          },
          {
            type: 'function',
            function: {
              name: 'search_docs',
              description: SEARCH_TOOL.description,
              parameters: SEARCH_TOOL.inputSchema,
            },
          },
        ],
        tool_choice: 'auto',
        parallel_tool_calls: false,
        max_completion_tokens: 256,
        temperature: 0.2,
        stop: ['\n\nUser:'],
        user: 'user-42',
        service_tier: 'flex',
      });
    });
  });

  it('an assistant turn with only tool calls sends content null', async () => {
    await withTestModel({ api: 'chat' }, async ({ server, model }) => {
      server.enqueue(TEXT);
      await model.generate({
        messages: [
          { role: 'user', content: 'Hi' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'c1', toolName: 'get_weather', arguments: '{}' }],
          },
          { role: 'tool', toolCallId: 'c1', toolName: 'get_weather', content: 'ok' },
        ],
        tools: [WEATHER_TOOL],
      });
      const messages = server.received[0]?.body.messages as { content: unknown }[];
      expect(messages[1]?.content).toBeNull();
    });
  });

  it('streams with stream_options.include_usage, and reports usage with cached tokens', async () => {
    await withTestModel({ api: 'chat' }, async ({ server, model }) => {
      server.enqueue({
        type: 'raw',
        handle: ({ response }) => {
          response.writeHead(200, { 'content-type': 'text/event-stream' });
          const chunk = (payload: object): string => `data: ${JSON.stringify(payload)}\n\n`;
          response.write(
            chunk({ id: 'c', choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }] }),
          );
          response.write(chunk({ id: 'c', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
          response.write(
            chunk({
              id: 'c',
              choices: [],
              usage: {
                prompt_tokens: 1200,
                completion_tokens: 40,
                total_tokens: 1240,
                prompt_tokens_details: { cached_tokens: 1024 },
                completion_tokens_details: { reasoning_tokens: 12 },
              },
            }),
          );
          response.end('data: [DONE]\n\n');
        },
      });
      const response = await collectStream(model.stream({ messages: USER_ONLY }));
      expect(server.received[0]?.body.stream).toBe(true);
      expect(server.received[0]?.body.stream_options).toEqual({ include_usage: true });
      expect(response.usage).toEqual({
        inputTokens: 1200,
        outputTokens: 40,
        totalTokens: 1240,
        cachedInputTokens: 1024,
        reasoningTokens: 12,
      });
      expect(response.responseId).toBe('c');
    });
  });

  it('a compatible server: max_tokens, no stream_options, strict left out and reported', async () => {
    await withTestModel(
      {
        api: 'chat',
        maxTokensParameter: 'max_tokens',
        streamUsage: false,
        capabilities: { strictSchemas: false },
      },
      async ({ server, model }) => {
        server.enqueue(TEXT);
        const response = await collectStream(
          model.stream({
            messages: USER_ONLY,
            tools: [{ ...WEATHER_TOOL, strict: true }],
            maxOutputTokens: 64,
          }),
        );
        const body = server.received[0]!.body;
        expect(body.max_tokens).toBe(64);
        expect(body).not.toHaveProperty('max_completion_tokens');
        expect(body).not.toHaveProperty('stream_options');
        expect(JSON.stringify(body.tools)).not.toContain('strict');
        expect(response.adjustments.map((adjustment) => adjustment.kind)).toEqual(['setting-ignored']);
      },
    );
  });

  it('a raw response on request', async () => {
    await withTestModel({ api: 'chat' }, async ({ server, model }) => {
      server.enqueue(TEXT, TEXT);
      const withRaw = await model.generate({ messages: USER_ONLY, includeRawResponse: true });
      const without = await model.generate({ messages: USER_ONLY });
      expect((withRaw.rawResponse as { object: string }).object).toBe('chat.completion');
      expect(without).not.toHaveProperty('rawResponse');
    });
  });
});

describe('responses request', () => {
  it('maps history to input items, tools with explicit strict, limits, temperature, provider options', async () => {
    await withTestModel({ api: 'responses' }, async ({ server, model }) => {
      server.enqueue(TEXT);
      const response = await model.generate({
        messages: HISTORY,
        tools: [{ ...WEATHER_TOOL, strict: true }, SEARCH_TOOL],
        toolChoice: ToolChoice.required(),
        parallelToolCalls: true,
        maxOutputTokens: 300,
        temperature: 0,
        stopSequences: ['END'],
        providerOptions: { openai: { store: false, reasoning: { effort: 'low' } } },
      });
      expect(server.received[0]?.path).toBe('/v1/responses');
      expect(server.received[0]?.body).toEqual({
        model: 'gpt-test',
        input: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Weather in Paris and Oslo?' },
          { role: 'assistant', content: 'Checking.' },
          { type: 'function_call', call_id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { type: 'function_call', call_id: 'call_b', name: 'get_weather', arguments: '{"city":"Oslo"}' },
          { type: 'function_call_output', call_id: 'call_a', output: '18 °C' },
          { type: 'function_call_output', call_id: 'call_b', output: 'city not found' },
          { role: 'user', content: 'Thanks. Anything else?' },
        ],
        tools: [
          {
            type: 'function',
            name: 'get_weather',
            description: WEATHER_TOOL.description,
            parameters: WEATHER_TOOL.inputSchema,
            strict: true,
          },
          {
            type: 'function',
            name: 'search_docs',
            description: SEARCH_TOOL.description,
            parameters: SEARCH_TOOL.inputSchema,
            strict: false,
          },
        ],
        tool_choice: 'required',
        parallel_tool_calls: true,
        max_output_tokens: 300,
        temperature: 0,
        store: false,
        // With store: false, reasoning can only come back encrypted: the adapter asks for it.
        include: ['reasoning.encrypted_content'],
        reasoning: { effort: 'low' },
      });
      // The Responses API has no stop sequences: left out, and said so.
      expect(response.adjustments).toHaveLength(1);
      expect(response.adjustments[0]).toMatchObject({
        kind: 'setting-ignored',
        details: { setting: 'stopSequences' },
      });
    });
  });

  it('reads text, calls, usage with cached tokens, an incomplete answer as length', async () => {
    await withTestModel({ api: 'responses' }, async ({ server, model }) => {
      server.enqueue({
        type: 'raw',
        handle: ({ response }) => {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify({
              id: 'resp_9',
              object: 'response',
              status: 'incomplete',
              incomplete_details: { reason: 'max_output_tokens' },
              output: [
                { type: 'reasoning', id: 'rs_1', summary: [] },
                {
                  type: 'message',
                  id: 'm1',
                  role: 'assistant',
                  content: [{ type: 'output_text', text: 'Partial', annotations: [] }],
                },
                {
                  type: 'function_call',
                  id: 'fc_1',
                  call_id: 'call_z',
                  name: 'get_weather',
                  arguments: '{"city":"Pa',
                },
              ],
              usage: {
                input_tokens: 2000,
                input_tokens_details: { cached_tokens: 1536 },
                output_tokens: 100,
                output_tokens_details: { reasoning_tokens: 64 },
                total_tokens: 2100,
              },
            }),
          );
        },
      });
      const response = await model.generate({ messages: USER_ONLY, tools: [WEATHER_TOOL] });
      expect(response).toMatchObject({
        text: 'Partial',
        toolCalls: [{ id: 'call_z', toolName: 'get_weather', arguments: '{"city":"Pa' }],
        finishReason: 'length',
        rawFinishReason: 'max_output_tokens',
        usage: {
          inputTokens: 2000,
          outputTokens: 100,
          totalTokens: 2100,
          cachedInputTokens: 1536,
          reasoningTokens: 64,
        },
        responseId: 'resp_9',
      });
    });
  });
});

describe('checked before sending', () => {
  const cases: readonly [string, ModelRequest, (error: unknown) => boolean][] = [
    [
      'a tool call without its result',
      {
        messages: [
          { role: 'user', content: 'Hi' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'c1', toolName: 'get_weather', arguments: '{}' }],
          },
          { role: 'user', content: 'Well?' },
        ],
        tools: [WEATHER_TOOL],
      },
      (error) => InvalidMessageHistoryError.isInstance(error) && error.toolCallId === 'c1',
    ],
    [
      'providerOptions setting a field the adapter owns',
      { messages: USER_ONLY, providerOptions: { openai: { stream: false, tools: [] } } },
      (error) => InvalidRequestError.isInstance(error) && /'stream', 'tools'/.test(error.message),
    ],
    [
      'a negative maxOutputTokens',
      { messages: USER_ONLY, maxOutputTokens: -1 },
      (error) => InvalidRequestError.isInstance(error),
    ],
    [
      'a temperature that is not a number',
      { messages: USER_ONLY, temperature: Number.NaN },
      (error) => InvalidRequestError.isInstance(error),
    ],
  ];
  for (const [name, request, check] of cases) {
    it(`${name} → a typed error and nothing sent`, async () => {
      for (const api of ['chat', 'responses'] as const) {
        await withTestModel({ api }, async ({ server, model }) => {
          const error = await model.generate(request).catch((caught: unknown) => caught);
          expect(check(error), String(error)).toBe(true);
          expect(server.received).toHaveLength(0);
        });
      }
    });
  }
});

describe('OpenAI-compatible servers: declared capabilities', () => {
  it("emulates 'required' with an instruction and reports it; an answer without a call is reported as not honoured", async () => {
    await withTestModel(
      { api: 'chat', capabilities: { toolChoice: { required: 'emulated' } } },
      async ({ server, model }) => {
        server.enqueue(CALL, TEXT);
        const request: ModelRequest = {
          messages: USER_ONLY,
          tools: [WEATHER_TOOL, SEARCH_TOOL],
          toolChoice: ToolChoice.required(),
        };
        const honoured = await model.generate(request);
        const body = server.received[0]!.body;
        expect(body.tool_choice).toBe('auto');
        expect((body.messages as { role: string; content: string }[])[0]).toEqual({
          role: 'system',
          content:
            'You must answer by calling at least one of the provided tools; do not answer with text alone.',
        });
        expect(honoured.adjustments.map((adjustment) => adjustment.kind)).toEqual(['tool-choice-emulated']);
        const ignored = await model.generate(request);
        expect(ignored.adjustments.at(-1)).toMatchObject({
          kind: 'tool-choice-emulated',
          details: { honoured: false },
        });
      },
    );
  });

  it("emulates 'required' with one tool by naming it", async () => {
    await withTestModel(
      { api: 'chat', capabilities: { toolChoice: { required: 'emulated' } } },
      async ({ server, model }) => {
        server.enqueue(CALL);
        await model.generate({
          messages: USER_ONLY,
          tools: [WEATHER_TOOL],
          toolChoice: ToolChoice.required(),
        });
        expect(server.received[0]?.body.tool_choice).toEqual({
          type: 'function',
          function: { name: 'get_weather' },
        });
      },
    );
  });

  it("emulates 'none' by leaving the tools out, and rejects a call that comes back anyway", async () => {
    await withTestModel(
      { api: 'chat', capabilities: { toolChoice: { none: 'emulated' } } },
      async ({ server, model }) => {
        server.enqueue(CALL);
        const response = await model.generate({
          messages: USER_ONLY,
          tools: [WEATHER_TOOL],
          toolChoice: ToolChoice.none(),
        });
        expect(server.received[0]?.body).not.toHaveProperty('tools');
        expect(response.toolCalls).toEqual([]);
        expect(response.adjustments.map((adjustment) => adjustment.kind)).toEqual([
          'tool-choice-emulated',
          'tools-dropped',
          'tool-calls-rejected',
        ]);
      },
    );
  });

  it('streamed, a call the emulated choice rejects never shows, not even as it starts (the tool-call policy of @org/core)', async () => {
    await withTestModel(
      { api: 'responses', capabilities: { toolChoice: { tool: 'emulated', required: 'emulated' } } },
      async ({ server, model }) => {
        server.enqueue({
          type: 'response',
          toolCalls: [
            { id: 'call_other', toolName: 'search_docs', arguments: '{"query":"umbrella"}' },
            { id: 'call_named', toolName: 'get_weather', arguments: '{"city":"Paris"}' },
          ],
        });
        const parts: StreamPart[] = [];
        for await (const part of model.stream({
          messages: USER_ONLY,
          tools: [WEATHER_TOOL, SEARCH_TOOL],
          toolChoice: ToolChoice.tool('get_weather'),
        })) {
          parts.push(part);
        }
        const callIds = parts.flatMap((part) =>
          part.type === 'tool-call-start' || part.type === 'tool-call-delta'
            ? [part.toolCallId]
            : part.type === 'tool-call'
              ? [part.toolCall.id]
              : [],
        );
        expect(new Set(callIds)).toEqual(new Set(['call_named']));
        const finish = parts.at(-1);
        expect(
          finish?.type === 'finish' ? finish.adjustments.map((adjustment) => adjustment.kind) : [],
        ).toContain('tool-calls-rejected');
      },
    );
  });

  it('an unsupported mode fails before sending; turning parallel calls off on a server without it is reported', async () => {
    await withTestModel(
      { api: 'chat', capabilities: { toolChoice: { tool: 'unsupported' }, parallelToolCalls: false } },
      async ({ server, model }) => {
        const error = await model
          .generate({
            messages: USER_ONLY,
            tools: [WEATHER_TOOL],
            toolChoice: ToolChoice.tool('get_weather'),
          })
          .catch((caught: unknown) => caught);
        expect(UnsupportedToolChoiceError.isInstance(error)).toBe(true);
        expect(server.received).toHaveLength(0);
        server.enqueue(TEXT);
        const response = await model.generate({
          messages: USER_ONLY,
          tools: [WEATHER_TOOL],
          parallelToolCalls: false,
        });
        expect(server.received[0]?.body).not.toHaveProperty('parallel_tool_calls');
        expect(response.adjustments.map((adjustment) => adjustment.kind)).toEqual(['setting-ignored']);
      },
    );
  });

  it('the provider name is the one given, for models and errors', async () => {
    await withTestModel({ api: 'chat', provider: { name: 'lmstudio' } }, async ({ server, model }) => {
      expect(model.provider).toBe('lmstudio');
      server.enqueue({ type: 'error', status: 400, message: 'bad' });
      const error = await model.generate({ messages: USER_ONLY }).catch((caught: unknown) => caught);
      expect((error as InvalidRequestError).provider).toBe('lmstudio');
    });
  });
});
