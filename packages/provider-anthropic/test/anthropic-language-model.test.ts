import {
  AuthenticationError,
  collectStream,
  IncompleteToolCallError,
  InvalidMessageHistoryError,
  InvalidRequestError,
  InvalidToolChoiceError,
  type Message,
  type ModelRequest,
  SPECIFICATION_VERSION,
  type StreamPart,
  ToolChoice,
  type ToolSpec,
  UnsupportedToolChoiceError,
} from '@org/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ANTHROPIC_CAPABILITIES,
  anthropic,
  createAnthropic,
  DEFAULT_MAX_OUTPUT_TOKENS,
  InvalidProviderOptionsError,
  StreamingRequiredError,
} from '../src/index.js';
import {
  type FakeAnthropicServer,
  type MessageLike,
  messageToEvents,
  startFakeAnthropicServer,
} from './fake-anthropic-server.js';
import { TEST_API_KEY, testProvider } from './test-provider.js';

let server: FakeAnthropicServer;
beforeEach(async () => {
  server = await startFakeAnthropicServer();
});
afterEach(async () => {
  await server.close();
});

const weather: ToolSpec = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const search: ToolSpec = {
  name: 'search',
  description: 'Search the web.',
  inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
};

const textAnswer = (text: string, id = 'msg_text'): MessageLike => ({
  id,
  model: 'claude-sonnet-5-5',
  content: [{ type: 'text', text }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 12, output_tokens: 4 },
});

const jsonReply = (message: MessageLike) =>
  ({ type: 'json', body: { type: 'message', role: 'assistant', ...message } }) as const;

async function partsOf(stream: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

const lastBody = (): Record<string, unknown> => {
  const request = server.requests[server.requests.length - 1];
  if (request === undefined) throw new Error('no request reached the fake server');
  return request.body;
};

describe('the model', () => {
  it('declares the contract version, provider, model id and native capabilities', () => {
    const model = testProvider(server)('claude-sonnet-5-5');
    expect(model.specificationVersion).toBe(SPECIFICATION_VERSION);
    expect(model.provider).toBe('anthropic');
    expect(model.modelId).toBe('claude-sonnet-5-5');
    expect(model.capabilities).toEqual(ANTHROPIC_CAPABILITIES);
    expect(model.capabilities.toolChoice).toEqual({
      auto: 'native',
      required: 'native',
      none: 'native',
      tool: 'native',
    });
  });

  it('lets a user override capabilities per model, without touching other models', () => {
    const provider = testProvider(server);
    const limited = provider('compatible-server-model', {
      capabilities: { toolChoice: { none: 'unsupported' }, parallelToolCalls: false },
    });
    expect(limited.capabilities.toolChoice.none).toBe('unsupported');
    expect(limited.capabilities.toolChoice.required).toBe('native');
    expect(limited.capabilities.parallelToolCalls).toBe(false);
    expect(provider('claude-sonnet-5-5').capabilities).toEqual(ANTHROPIC_CAPABILITIES);
  });

  it('sends a text request through the SDK with the key as a bearer token, and maps the answer', async () => {
    server.enqueue(jsonReply(textAnswer('Hello!')));
    const response = await testProvider(server)('claude-sonnet-5-5').generate({
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Hi' },
      ],
    });
    expect(response).toEqual({
      text: 'Hello!',
      toolCalls: [],
      finishReason: 'stop',
      rawFinishReason: 'end_turn',
      usage: { inputTokens: 12, outputTokens: 4, totalTokens: 16 },
      adjustments: [],
      responseId: 'msg_text',
    });
    const request = server.requests[0];
    expect(request?.path).toBe('/v1/messages');
    expect(request?.headers.authorization).toBe(`Bearer ${TEST_API_KEY}`);
    expect(request?.body).toEqual({
      model: 'claude-sonnet-5-5',
      max_tokens: DEFAULT_MAX_OUTPUT_TOKENS,
      system: [{ type: 'text', text: 'You are terse.' }],
      messages: [{ role: 'user', content: 'Hi' }],
      stream: false,
    });
  });

  it('counts cached input tokens into the input and reports thinking tokens as reasoning', async () => {
    server.enqueue(
      jsonReply({
        ...textAnswer('ok'),
        usage: {
          input_tokens: 10,
          cache_creation_input_tokens: 5,
          cache_read_input_tokens: 100,
          output_tokens: 40,
          output_tokens_details: { thinking_tokens: 30 },
        },
      }),
    );
    const response = await testProvider(server)('m').generate({ messages: [{ role: 'user', content: 'x' }] });
    expect(response.usage).toEqual({
      inputTokens: 115,
      outputTokens: 40,
      totalTokens: 155,
      cachedInputTokens: 100,
      reasoningTokens: 30,
    });
  });

  it('attaches the raw answer only when asked', async () => {
    server.enqueue(jsonReply(textAnswer('a')), jsonReply(textAnswer('b')));
    const model = testProvider(server)('m');
    const plain = await model.generate({ messages: [{ role: 'user', content: 'x' }] });
    const withRaw = await model.generate({
      messages: [{ role: 'user', content: 'x' }],
      includeRawResponse: true,
    });
    expect(plain.rawResponse).toBeUndefined();
    expect(withRaw.rawResponse).toMatchObject({ id: 'msg_text', content: [{ type: 'text', text: 'b' }] });
  });
});

describe('tool choice on the wire', () => {
  const cases: { choice: ToolChoice | undefined; parallel?: boolean; wire: unknown }[] = [
    { choice: undefined, wire: { type: 'auto' } },
    { choice: ToolChoice.auto(), wire: { type: 'auto' } },
    { choice: ToolChoice.required(), wire: { type: 'any' } },
    { choice: ToolChoice.tool('search'), wire: { type: 'tool', name: 'search' } },
    { choice: ToolChoice.none(), wire: { type: 'none' } },
    { choice: ToolChoice.auto(), parallel: false, wire: { type: 'auto', disable_parallel_tool_use: true } },
    {
      choice: ToolChoice.required(),
      parallel: false,
      wire: { type: 'any', disable_parallel_tool_use: true },
    },
    {
      choice: ToolChoice.tool('search'),
      parallel: false,
      wire: { type: 'tool', name: 'search', disable_parallel_tool_use: true },
    },
    { choice: ToolChoice.auto(), parallel: true, wire: { type: 'auto', disable_parallel_tool_use: false } },
    { choice: ToolChoice.none(), parallel: false, wire: { type: 'none' } },
  ];

  for (const { choice, parallel, wire } of cases) {
    it(`${choice?.type ?? 'unset'}${parallel === undefined ? '' : `, parallel ${parallel}`} → ${JSON.stringify(wire)}, tools kept`, async () => {
      server.enqueue(jsonReply(textAnswer('ok')));
      await testProvider(server)('m').generate({
        messages: [{ role: 'user', content: 'weather in Paris?' }],
        tools: [weather, search],
        ...(choice === undefined ? {} : { toolChoice: choice }),
        ...(parallel === undefined ? {} : { parallelToolCalls: parallel }),
      });
      const body = lastBody();
      expect(body.tool_choice).toEqual(wire);
      expect(body.tools).toEqual([
        { name: 'get_weather', description: weather.description, input_schema: weather.inputSchema },
        { name: 'search', description: search.description, input_schema: search.inputSchema },
      ]);
    });
  }

  it('keeps the tools with none, so a history that used them stays valid', async () => {
    server.enqueue(jsonReply(textAnswer('It is sunny.')));
    const response = await testProvider(server)('m').generate({
      messages: [
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'toolu_1', toolName: 'get_weather', arguments: '{"city":"Paris"}' }],
        },
        { role: 'tool', toolCallId: 'toolu_1', toolName: 'get_weather', content: '{"sky":"sunny"}' },
      ],
      tools: [weather],
      toolChoice: ToolChoice.none(),
    });
    expect(response.adjustments).toEqual([]);
    const body = lastBody();
    expect(body.tool_choice).toEqual({ type: 'none' });
    expect(body.tools).toHaveLength(1);
  });

  it('sends no tools and no tool_choice when no tools are offered', async () => {
    server.enqueue(jsonReply(textAnswer('ok')), jsonReply(textAnswer('ok')));
    const model = testProvider(server)('m');
    await model.generate({ messages: [{ role: 'user', content: 'x' }] });
    await model.generate({
      messages: [{ role: 'user', content: 'x' }],
      toolChoice: ToolChoice.none(),
      parallelToolCalls: false,
    });
    for (const request of server.requests) {
      expect(request.body).not.toHaveProperty('tools');
      expect(request.body).not.toHaveProperty('tool_choice');
    }
  });

  it('leaves out parallelToolCalls: true on a model declared without parallel calls, and reports it', async () => {
    server.enqueue(jsonReply(textAnswer('ok')));
    const response = await testProvider(server)('single-call', {
      capabilities: { parallelToolCalls: false },
    }).generate({
      messages: [{ role: 'user', content: 'x' }],
      tools: [weather],
      parallelToolCalls: true,
    });
    expect(lastBody().tool_choice).toEqual({ type: 'auto' });
    expect(response.adjustments).toMatchObject([
      { kind: 'setting-ignored', details: { setting: 'parallelToolCalls' } },
    ]);
  });

  it('sends strict on tools that ask for it', async () => {
    server.enqueue(jsonReply(textAnswer('ok')));
    await testProvider(server)('m').generate({
      messages: [{ role: 'user', content: 'x' }],
      tools: [{ ...weather, strict: true }],
    });
    expect(lastBody().tools).toEqual([
      {
        name: 'get_weather',
        description: weather.description,
        input_schema: weather.inputSchema,
        strict: true,
      },
    ]);
  });

  it('rejects a named tool that is not offered before sending, with a suggestion', async () => {
    const model = testProvider(server)('m');
    const request: ModelRequest = {
      messages: [{ role: 'user', content: 'x' }],
      tools: [weather],
      toolChoice: ToolChoice.tool('get_wether'),
    };
    const error = await model.generate(request).catch((caught: unknown) => caught);
    expect(InvalidToolChoiceError.isInstance(error)).toBe(true);
    expect((error as InvalidToolChoiceError).suggestion).toBe('get_weather');
    const parts = await partsOf(model.stream(request));
    expect(parts).toHaveLength(1);
    expect(parts[0]?.type).toBe('error');
    expect(server.requests).toHaveLength(0);
  });

  it('rejects required without tools', async () => {
    const error = await testProvider(server)('m')
      .generate({ messages: [{ role: 'user', content: 'x' }], toolChoice: ToolChoice.required() })
      .catch((caught: unknown) => caught);
    expect(InvalidToolChoiceError.isInstance(error)).toBe(true);
    expect(server.requests).toHaveLength(0);
  });

  it('fails with UnsupportedToolChoiceError for a mode declared unsupported', async () => {
    const model = testProvider(server)('compatible', {
      capabilities: { toolChoice: { none: 'unsupported' } },
    });
    const error = await model
      .generate({
        messages: [{ role: 'user', content: 'x' }],
        tools: [weather],
        toolChoice: ToolChoice.none(),
      })
      .catch((caught: unknown) => caught);
    expect(UnsupportedToolChoiceError.isInstance(error)).toBe(true);
    expect((error as UnsupportedToolChoiceError).mode).toBe('none');
    expect(server.requests).toHaveLength(0);
  });

  it('fails when tools are offered to a model declared without tool calls', async () => {
    const model = testProvider(server)('text-only', { capabilities: { toolCalls: false } });
    const error = await model
      .generate({ messages: [{ role: 'user', content: 'x' }], tools: [weather] })
      .catch((caught: unknown) => caught);
    expect(UnsupportedToolChoiceError.isInstance(error)).toBe(true);
  });

  it('emulates none when declared so: an instruction, auto on the wire, forbidden calls rejected and reported', async () => {
    const answer: MessageLike = {
      id: 'msg_e',
      content: [
        { type: 'text', text: 'Let me check.' },
        { type: 'tool_use', id: 'toolu_x', name: 'get_weather', input: { city: 'Oslo' } },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 1, output_tokens: 1 },
    };
    server.enqueue(jsonReply(answer), { type: 'sse', events: messageToEvents(answer) });
    const model = testProvider(server)('compatible', { capabilities: { toolChoice: { none: 'emulated' } } });
    const request: ModelRequest = {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'x' },
      ],
      tools: [weather],
      toolChoice: ToolChoice.none(),
    };
    const generated = await model.generate(request);
    const streamed = await collectStream(model.stream(request));
    for (const response of [generated, streamed]) {
      expect(response.toolCalls).toEqual([]);
      expect(response.text).toBe('Let me check.');
      expect(response.adjustments.map((adjustment) => adjustment.kind)).toEqual([
        'tool-choice-emulated',
        'tool-calls-rejected',
      ]);
    }
    expect(streamed).toEqual(generated);
    const body = lastBody();
    expect(body.tool_choice).toEqual({ type: 'auto' });
    expect(body.system).toEqual([
      { type: 'text', text: 'Be brief.' },
      { type: 'text', text: 'Do not call any tool in this answer; reply with text only.' },
    ]);
  });

  it('checks an emulated named tool with the shared policy: other calls rejected, the ignored choice reported', async () => {
    const answer: MessageLike = {
      id: 'msg_t',
      content: [{ type: 'tool_use', id: 'toolu_s', name: 'search', input: { query: 'Oslo' } }],
      stop_reason: 'tool_use',
      usage: { input_tokens: 1, output_tokens: 1 },
    };
    server.enqueue(jsonReply(answer), { type: 'sse', events: messageToEvents(answer) });
    const model = testProvider(server)('compatible', { capabilities: { toolChoice: { tool: 'emulated' } } });
    const request: ModelRequest = {
      messages: [{ role: 'user', content: 'x' }],
      tools: [weather, search],
      toolChoice: ToolChoice.tool('get_weather'),
    };
    const generated = await model.generate(request);
    const streamed = await collectStream(model.stream(request));
    expect(streamed).toEqual(generated);
    expect(generated.toolCalls).toEqual([]);
    expect(generated.adjustments.map((adjustment) => [adjustment.kind, adjustment.details?.reason])).toEqual([
      ['tool-choice-emulated', undefined],
      ['tool-calls-rejected', 'not-the-named-tool'],
      ['tool-choice-emulated', undefined],
    ]);
    expect(generated.adjustments[2]?.details).toMatchObject({ toolName: 'get_weather', honoured: false });
  });
});

describe('conversation history', () => {
  it('maps tool calls and results (is_error for failures) and merges consecutive turns, reporting it', async () => {
    server.enqueue(jsonReply(textAnswer('Done.')));
    const messages: Message[] = [
      { role: 'system', content: 'Rules.' },
      { role: 'user', content: 'Weather in Paris and Oslo?' },
      { role: 'user', content: 'Also search the news.' },
      {
        role: 'assistant',
        content: 'Checking.',
        toolCalls: [
          { id: 'toolu_a', toolName: 'get_weather', arguments: '{"city":"Paris"}' },
          { id: 'toolu_b', toolName: 'get_weather', arguments: '{"city":"Oslo"}' },
        ],
      },
      { role: 'tool', toolCallId: 'toolu_a', toolName: 'get_weather', content: '{"sky":"sunny"}' },
      {
        role: 'tool',
        toolCallId: 'toolu_b',
        toolName: 'get_weather',
        content: 'city service down',
        isError: true,
      },
      { role: 'user', content: 'Be quick.' },
    ];
    const response = await testProvider(server)('m').generate({ messages, tools: [weather] });
    expect(lastBody().messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather in Paris and Oslo?' },
          { type: 'text', text: 'Also search the news.' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_a', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_b', name: 'get_weather', input: { city: 'Oslo' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: '{"sky":"sunny"}' },
          { type: 'tool_result', tool_use_id: 'toolu_b', content: 'city service down', is_error: true },
          { type: 'text', text: 'Be quick.' },
        ],
      },
    ]);
    expect(response.adjustments).toHaveLength(1);
    expect(response.adjustments[0]).toMatchObject({
      kind: 'history-rewritten',
      details: {
        reason: 'merged-consecutive-turns',
        mergedMessageIndexes: [
          [1, 2],
          [4, 5, 6],
        ],
      },
    });
  });

  it('does not report the normal grouping of one turn’s tool results', async () => {
    server.enqueue(jsonReply(textAnswer('ok')));
    const response = await testProvider(server)('m').generate({
      messages: [
        { role: 'user', content: 'x' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'a', toolName: 'get_weather', arguments: '{"city":"A"}' },
            { id: 'b', toolName: 'get_weather', arguments: '{"city":"B"}' },
          ],
        },
        { role: 'tool', toolCallId: 'a', toolName: 'get_weather', content: '1' },
        { role: 'tool', toolCallId: 'b', toolName: 'get_weather', content: '2' },
      ],
      tools: [weather],
    });
    expect(response.adjustments).toEqual([]);
  });

  it('checks tool-call pairing before sending anything', async () => {
    const model = testProvider(server)('m');
    const unanswered: Message[] = [
      { role: 'user', content: 'x' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'toolu_1', toolName: 'get_weather', arguments: '{}' }],
      },
      { role: 'user', content: 'and?' },
    ];
    const orphan: Message[] = [
      { role: 'user', content: 'x' },
      { role: 'tool', toolCallId: 'toolu_9', toolName: 'get_weather', content: 'r' },
    ];
    for (const messages of [unanswered, orphan]) {
      const error = await model.generate({ messages, tools: [weather] }).catch((caught: unknown) => caught);
      expect(InvalidMessageHistoryError.isInstance(error)).toBe(true);
      const parts = await partsOf(model.stream({ messages, tools: [weather] }));
      expect(parts.map((part) => part.type)).toEqual(['error']);
    }
    expect(
      (await model
        .generate({ messages: unanswered })
        .catch((caught: unknown) => caught)) as InvalidMessageHistoryError,
    ).toMatchObject({
      messageIndex: 1,
      toolCallId: 'toolu_1',
    });
    expect(server.requests).toHaveLength(0);
  });

  it('moves a mid-conversation system message into the system prompt and says so', async () => {
    server.enqueue(jsonReply(textAnswer('ok')));
    const response = await testProvider(server)('m').generate({
      messages: [
        { role: 'system', content: 'First.' },
        { role: 'user', content: 'x' },
        { role: 'assistant', content: 'y' },
        { role: 'system', content: 'Now answer in French.' },
        { role: 'user', content: 'z' },
      ],
    });
    expect(lastBody().system).toEqual([
      { type: 'text', text: 'First.' },
      { type: 'text', text: 'Now answer in French.' },
    ]);
    expect(lastBody().messages).toEqual([
      { role: 'user', content: 'x' },
      { role: 'assistant', content: 'y' },
      { role: 'user', content: 'z' },
    ]);
    expect(response.adjustments).toMatchObject([
      { kind: 'history-rewritten', details: { reason: 'system-message-moved', messageIndexes: [3] } },
    ]);
  });

  it('sends {} for broken call arguments answered by an error result, and reports it', async () => {
    server.enqueue(jsonReply(textAnswer('ok')));
    const response = await testProvider(server)('m').generate({
      messages: [
        { role: 'user', content: 'x' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'toolu_1', toolName: 'get_weather', arguments: '{"city": "Par' }],
        },
        {
          role: 'tool',
          toolCallId: 'toolu_1',
          toolName: 'get_weather',
          content: 'arguments were not valid JSON',
          isError: true,
        },
      ],
      tools: [weather],
    });
    expect(lastBody().messages).toMatchObject([
      { role: 'user' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', input: {} }] },
      { role: 'user' },
    ]);
    expect(response.adjustments).toMatchObject([
      {
        kind: 'history-rewritten',
        details: { reason: 'tool-arguments-replaced', toolCalls: [{ toolCallId: 'toolu_1' }] },
      },
    ]);
  });

  it('leaves out an empty assistant turn (a refusal) and reports it; refuses an empty user message', async () => {
    server.enqueue(jsonReply(textAnswer('ok')));
    const model = testProvider(server)('m');
    const response = await model.generate({
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: '' },
        { role: 'user', content: 'try again' },
      ],
    });
    expect(lastBody().messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'x' },
          { type: 'text', text: 'try again' },
        ],
      },
    ]);
    expect(response.adjustments.map((adjustment) => adjustment.details?.reason)).toEqual([
      'merged-consecutive-turns',
      'empty-assistant-message-dropped',
    ]);
    const error = await model
      .generate({ messages: [{ role: 'user', content: '' }] })
      .catch((caught: unknown) => caught);
    expect(InvalidMessageHistoryError.isInstance(error)).toBe(true);
  });
});

describe('request settings', () => {
  it('uses 4096 max_tokens by default, the model setting, then the request', async () => {
    server.enqueue(jsonReply(textAnswer('a')), jsonReply(textAnswer('b')), jsonReply(textAnswer('c')));
    const provider = testProvider(server);
    await provider('m').generate({ messages: [{ role: 'user', content: 'x' }] });
    await provider('m', { maxOutputTokens: 1000 }).generate({ messages: [{ role: 'user', content: 'x' }] });
    await provider('m', { maxOutputTokens: 1000 }).generate({
      messages: [{ role: 'user', content: 'x' }],
      maxOutputTokens: 77,
    });
    expect(server.requests.map((request) => request.body.max_tokens)).toEqual([4096, 1000, 77]);
  });

  it('rejects a max_tokens that is not a positive integer before sending', async () => {
    for (const maxOutputTokens of [0, -5, 1.5, Number.NaN]) {
      const error = await testProvider(server)('m')
        .generate({ messages: [{ role: 'user', content: 'x' }], maxOutputTokens })
        .catch((caught: unknown) => caught);
      expect(InvalidRequestError.isInstance(error)).toBe(true);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('maps the SDK’s refusal of a long non-streaming request to StreamingRequiredError, and streams it fine', async () => {
    const model = testProvider(server)('m');
    const request: ModelRequest = {
      messages: [{ role: 'user', content: 'write a book' }],
      maxOutputTokens: 64_000,
    };
    const error = await model.generate(request).catch((caught: unknown) => caught);
    expect(StreamingRequiredError.isInstance(error)).toBe(true);
    expect((error as StreamingRequiredError).code).toBe('streaming_required');
    expect((error as StreamingRequiredError).maxOutputTokens).toBe(64_000);
    expect((error as Error).message).toMatch(/model\.stream/);
    expect((error as Error).message).toMatch(/lower maxOutputTokens/);
    expect(server.requests).toHaveLength(0);

    server.enqueue({ type: 'sse', events: messageToEvents(textAnswer('Chapter one.')) });
    const streamed = await collectStream(model.stream(request));
    expect(streamed.text).toBe('Chapter one.');
    expect(lastBody().max_tokens).toBe(64_000);
  });

  it('sends stop sequences, passes provider options through, and leaves temperature out with an adjustment', async () => {
    server.enqueue(jsonReply(textAnswer('ok')));
    const response = await testProvider(server)('m').generate({
      messages: [{ role: 'user', content: 'x' }],
      stopSequences: ['END'],
      temperature: 0.2,
      providerOptions: { anthropic: { metadata: { user_id: 'u-1' } } },
    });
    const body = lastBody();
    expect(body.stop_sequences).toEqual(['END']);
    expect(body.metadata).toEqual({ user_id: 'u-1' });
    expect(body.max_tokens).toBe(4096);
    expect(body).not.toHaveProperty('temperature');
    expect(response.adjustments).toMatchObject([
      { kind: 'setting-ignored', details: { setting: 'temperature', value: 0.2 } },
    ]);
  });
});

describe('request provider options', () => {
  it('refuses a provider option that sets a field the adapter builds, naming every one, before any request', async () => {
    const model = testProvider(server)('m');
    const request = {
      messages: [{ role: 'user' as const, content: 'x' }],
      providerOptions: {
        anthropic: { max_tokens: 1, tools: [], stream: true, metadata: { user_id: 'u-1' } },
      },
    };
    for (const attempt of [() => model.generate(request), () => collectStream(model.stream(request))]) {
      const error = await attempt().catch((caught: unknown) => caught);
      expect(InvalidRequestError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: 'invalid_request', providerCode: 'reserved_provider_option' });
      expect((error as Error).message).toContain("'max_tokens', 'tools', 'stream'");
    }
    expect(server.requests).toHaveLength(0);
  });
});

describe('provider options', () => {
  it('rejects contradictory or out-of-range options at once', () => {
    const attempts: [() => unknown, string][] = [
      () => createAnthropic({ maxRetries: -1 }),
      () => createAnthropic({ maxRetries: 1.5 }),
      () => createAnthropic({ timeout: 0 }),
      () => createAnthropic({ timeout: 3_000_000_000 }),
      () => createAnthropic({ retry: null as never }),
      () => createAnthropic({ apiKey: '' }),
      () => createAnthropic({ retry: { maxRetryAfterMs: -3 } }),
      () => createAnthropic({ retry: { maxWaitMs: 1000 } as never }),
      () => testProvider(server)(''),
      () => testProvider(server)('m', { maxOutputTokens: 0 }),
      () => createAnthropic({ maxRetries: 1, retry: { maxRetries: 2 } }),
      () => testProvider(server)('m', { retry: { maxDelayMs: -1 } }),
      () => testProvider(server)('m', { contentLimits: { maxImageBytes: 0 } }),
      () =>
        createAnthropic({
          apiKey: 'sk-ant-a-key-0123456789',
          clientOptions: { authToken: 'a-token-0123456789' },
        }),
    ].map((attempt, index) => [attempt, String(index)]);
    for (const [attempt] of attempts) {
      let thrown: unknown;
      try {
        attempt();
      } catch (error) {
        thrown = error;
      }
      expect(InvalidProviderOptionsError.isInstance(thrown)).toBe(true);
    }
  });

  it('takes a model’s own retry options over the provider’s, field by field', async () => {
    const unavailable = {
      type: 'json',
      status: 503,
      headers: { 'x-should-retry': 'true' },
      body: { type: 'error', error: { type: 'api_error', message: 'try again' } },
    } as const;
    server.enqueue(unavailable, jsonReply(textAnswer('second attempt')));
    const provider = testProvider(server); // maxRetries: 0 for every model
    const response = await provider('m', { retry: { maxRetries: 1 } }).generate({
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(response.text).toBe('second attempt');
    expect(server.requests).toHaveLength(2);
    server.enqueue(unavailable);
    const failure = await provider('m')
      .generate({ messages: [{ role: 'user', content: 'x' }] })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'provider_unavailable' });
    expect(server.requests).toHaveLength(3);
  });

  it('uses a ready client as is, and refuses options it would ignore', async () => {
    const { default: Anthropic } = await import('@anthropic-ai/sdk');
    const client = new Anthropic({
      apiKey: TEST_API_KEY,
      baseURL: server.baseURL,
      maxRetries: 0,
      logLevel: 'off',
    });
    expect(() => createAnthropic({ client, apiKey: 'sk-ant-other-key-123456' })).toThrowError(/'apiKey'/);
    server.enqueue(jsonReply(textAnswer('from a ready client')));
    const response = await createAnthropic({ client })('m').generate({
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(response.text).toBe('from a ready client');
  });

  it('reads ANTHROPIC_API_KEY on the first request when no key is given', async () => {
    const previous = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = 'sk-ant-from-environment-0123456789';
    try {
      const model = createAnthropic({
        baseURL: server.baseURL,
        maxRetries: 0,
        clientOptions: { logLevel: 'off' },
      })('m');
      server.enqueue(jsonReply(textAnswer('ok')));
      await model.generate({ messages: [{ role: 'user', content: 'x' }] });
      expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-ant-from-environment-0123456789');
    } finally {
      if (previous === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = previous;
    }
  });
});

describe('credentials', () => {
  it('without any key, fails with AuthenticationError naming ANTHROPIC_API_KEY, before reaching the server', async () => {
    const names = [
      'ANTHROPIC_API_KEY',
      'ANTHROPIC_AUTH_TOKEN',
      'ANTHROPIC_PROFILE',
      'ANTHROPIC_IDENTITY_TOKEN',
      'ANTHROPIC_IDENTITY_TOKEN_FILE',
      'ANTHROPIC_CONFIG_DIR',
    ];
    const saved = new Map(names.map((name) => [name, process.env[name]]));
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const emptyConfig = mkdtempSync(join(tmpdir(), 'anthropic-config-'));
    for (const name of names) delete process.env[name];
    process.env.ANTHROPIC_CONFIG_DIR = emptyConfig;
    try {
      const model = createAnthropic({
        baseURL: server.baseURL,
        maxRetries: 0,
        clientOptions: { logLevel: 'off' },
      })('m');
      const error = await model
        .generate({ messages: [{ role: 'user', content: 'x' }] })
        .catch((caught: unknown) => caught);
      expect(AuthenticationError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(/ANTHROPIC_API_KEY/);
      expect(server.requests).toHaveLength(0);
    } finally {
      for (const [name, value] of saved) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      rmSync(emptyConfig, { recursive: true, force: true });
    }
  });

  it('the default instance is a ready provider that reads its key at request time', () => {
    const model = anthropic('claude-sonnet-5-5');
    expect(model.provider).toBe('anthropic');
    expect(model.modelId).toBe('claude-sonnet-5-5');
    expect(anthropic.languageModel('claude-haiku-5-5').modelId).toBe('claude-haiku-5-5');
  });
});

describe('streaming', () => {
  it('assembles text and tool calls per block index, ignoring pings and unknown events', async () => {
    server.enqueue({
      type: 'sse',
      events: [
        {
          type: 'message_start',
          message: {
            id: 'msg_s',
            type: 'message',
            role: 'assistant',
            content: [],
            model: 'm',
            stop_reason: null,
            usage: { input_tokens: 20, output_tokens: 1 },
          },
        },
        { type: 'ping' },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Checking ' } },
        { type: 'some_future_event', index: 0, detail: 'ignored' },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'both.' } },
        { type: 'content_block_stop', index: 0 },
        {
          type: 'content_block_start',
          index: 1,
          content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} },
        },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '' } },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"ci' } },
        { type: 'ping' },
        {
          type: 'content_block_delta',
          index: 1,
          delta: { type: 'input_json_delta', partial_json: 'ty": "Paris"}' },
        },
        { type: 'content_block_stop', index: 1 },
        // The whole input in content_block_start, no deltas.
        {
          type: 'content_block_start',
          index: 2,
          content_block: { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Oslo' } },
        },
        { type: 'content_block_stop', index: 2 },
        {
          type: 'message_delta',
          delta: { stop_reason: 'tool_use', stop_sequence: null },
          usage: { output_tokens: 61 },
        },
        { type: 'message_stop' },
      ],
    });
    const parts = await partsOf(
      testProvider(server)('m').stream({ messages: [{ role: 'user', content: 'x' }], tools: [weather] }),
    );
    expect(parts).toEqual([
      { type: 'text-delta', delta: 'Checking ' },
      { type: 'text-delta', delta: 'both.' },
      { type: 'tool-call-start', toolCallId: 'toolu_1', toolName: 'get_weather' },
      { type: 'tool-call-delta', toolCallId: 'toolu_1', argumentsDelta: '{"ci' },
      { type: 'tool-call-delta', toolCallId: 'toolu_1', argumentsDelta: 'ty": "Paris"}' },
      {
        type: 'tool-call',
        toolCall: { id: 'toolu_1', toolName: 'get_weather', arguments: '{"city": "Paris"}' },
      },
      { type: 'tool-call-start', toolCallId: 'toolu_2', toolName: 'get_weather' },
      { type: 'tool-call-delta', toolCallId: 'toolu_2', argumentsDelta: '{"city":"Oslo"}' },
      {
        type: 'tool-call',
        toolCall: { id: 'toolu_2', toolName: 'get_weather', arguments: '{"city":"Oslo"}' },
      },
      {
        type: 'finish',
        finishReason: 'tool-calls',
        rawFinishReason: 'tool_use',
        usage: { inputTokens: 20, outputTokens: 61, totalTokens: 81 },
        adjustments: [],
        responseId: 'msg_s',
      },
    ]);
    expect(lastBody().stream).toBe(true);
  });

  it('turns a max_tokens stop inside a tool input into IncompleteToolCallError, never a call', async () => {
    const events = [
      {
        type: 'message_start',
        message: {
          id: 'msg_cut',
          type: 'message',
          role: 'assistant',
          content: [],
          model: 'm',
          stop_reason: null,
          usage: { input_tokens: 5, output_tokens: 1 },
        },
      },
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_ok', name: 'search', input: {} },
      },
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: '{"query":"a"}' },
      },
      { type: 'content_block_stop', index: 0 },
      {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: 'toolu_cut', name: 'get_weather', input: {} },
      },
      {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'input_json_delta', partial_json: '{"city": "Par' },
      },
      { type: 'content_block_stop', index: 1 },
      {
        type: 'message_delta',
        delta: { stop_reason: 'max_tokens', stop_sequence: null },
        usage: { output_tokens: 20 },
      },
      { type: 'message_stop' },
    ];
    server.enqueue({ type: 'sse', events });
    const model = testProvider(server)('m');
    const request: ModelRequest = {
      messages: [{ role: 'user', content: 'x' }],
      tools: [weather, search],
      maxOutputTokens: 20,
    };
    const parts = await partsOf(model.stream(request));
    const last = parts[parts.length - 1];
    expect(last?.type).toBe('error');
    const error = (last as { error: unknown }).error as IncompleteToolCallError;
    expect(IncompleteToolCallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      toolCallId: 'toolu_cut',
      toolName: 'get_weather',
      partialArguments: '{"city": "Par',
      finishReason: 'max_tokens',
    });
    const calls = parts.filter((part) => part.type === 'tool-call');
    expect(calls).toEqual([
      { type: 'tool-call', toolCall: { id: 'toolu_ok', toolName: 'search', arguments: '{"query":"a"}' } },
    ]);
    expect(parts.some((part) => part.type === 'finish')).toBe(false);

    // The same answer, not streamed: the same typed error.
    server.enqueue(
      jsonReply({
        id: 'msg_cut',
        content: [
          { type: 'tool_use', id: 'toolu_ok', name: 'search', input: { query: 'a' } },
          { type: 'tool_use', id: 'toolu_cut', name: 'get_weather', input: {} },
        ],
        stop_reason: 'max_tokens',
        usage: { input_tokens: 5, output_tokens: 20 },
      }),
    );
    const thrown = await model.generate(request).catch((caught: unknown) => caught);
    expect(IncompleteToolCallError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ toolCallId: 'toolu_cut', toolName: 'get_weather' });
  });

  it('keeps a complete answer cut by max_tokens after its tool calls as a length finish', async () => {
    const answer: MessageLike = {
      id: 'msg_len',
      content: [
        { type: 'tool_use', id: 'toolu_1', name: 'search', input: { query: 'q' } },
        { type: 'text', text: 'And then I wou' },
      ],
      stop_reason: 'max_tokens',
      usage: { input_tokens: 1, output_tokens: 9 },
    };
    server.enqueue(jsonReply(answer), { type: 'sse', events: messageToEvents(answer) });
    const model = testProvider(server)('m');
    const request: ModelRequest = { messages: [{ role: 'user', content: 'x' }], tools: [search] };
    const generated = await model.generate(request);
    expect(generated.finishReason).toBe('length');
    expect(generated.toolCalls).toEqual([{ id: 'toolu_1', toolName: 'search', arguments: '{"query":"q"}' }]);
    expect(await collectStream(model.stream(request))).toEqual(generated);
  });

  it('stops reading at message_stop', async () => {
    server.enqueue({
      type: 'sse',
      events: [...messageToEvents(textAnswer('first')), ...messageToEvents(textAnswer('second', 'msg_2'))],
    });
    const response = await collectStream(
      testProvider(server)('m').stream({ messages: [{ role: 'user', content: 'x' }] }),
    );
    expect(response.text).toBe('first');
  });

  it('ends with one error part and no exception when the consumer stops early', async () => {
    server.enqueue({ type: 'sse', events: messageToEvents(textAnswer('a long answer in many pieces'), 2) });
    const stream = testProvider(server)('m').stream({ messages: [{ role: 'user', content: 'x' }] });
    let seen = 0;
    for await (const part of stream) {
      expect(part.type).toBe('text-delta');
      seen++;
      if (seen === 3) break;
    }
    expect(seen).toBe(3);
  });
});
