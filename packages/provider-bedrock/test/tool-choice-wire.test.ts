import {
  collectStream,
  InvalidToolChoiceError,
  type Message,
  type ModelRequest,
  ToolChoice,
  type ToolSpec,
  UnsupportedToolChoiceError,
} from '@org/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NONE_INSTRUCTION, REQUIRED_INSTRUCTION } from '../src/index.js';
import {
  type FakeBedrockServer,
  type FakeResponse,
  type StreamItem,
  startFakeBedrock,
} from './fake-bedrock-server.js';
import { createTestBedrock } from './test-provider.js';

const TOOLS: ToolSpec[] = [
  {
    name: 'get_weather',
    description: 'Current weather for a city',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  {
    name: 'search_docs',
    description: 'Search the documentation',
    inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  },
];
const WIRE_TOOLS = [
  {
    toolSpec: {
      name: 'get_weather',
      description: 'Current weather for a city',
      inputSchema: { json: TOOLS[0]?.inputSchema },
    },
  },
  {
    toolSpec: {
      name: 'search_docs',
      description: 'Search the documentation',
      inputSchema: { json: TOOLS[1]?.inputSchema },
    },
  },
];
const HISTORY: Message[] = [
  { role: 'system', content: 'You are a weather assistant.' },
  { role: 'user', content: 'Weather in Paris?' },
  {
    role: 'assistant',
    content: 'Let me look.',
    toolCalls: [{ id: 'call_1', toolName: 'get_weather', arguments: '{"city":"Paris"}' }],
  },
  { role: 'tool', toolCallId: 'call_1', toolName: 'get_weather', content: '{"temp":21}' },
  { role: 'user', content: 'And should I bring an umbrella?' },
];

const textAnswer = (text: string): FakeResponse => ({
  json: {
    output: { message: { role: 'assistant', content: [{ text }] } },
    stopReason: 'end_turn',
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
  },
});
const toolAnswer = (
  calls: Array<{ id: string; name: string; input: object }>,
  text?: string,
): FakeResponse => ({
  json: {
    output: {
      message: {
        role: 'assistant',
        content: [
          ...(text === undefined ? [] : [{ text }]),
          ...calls.map((call) => ({ toolUse: { toolUseId: call.id, name: call.name, input: call.input } })),
        ],
      },
    },
    stopReason: 'tool_use',
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
  },
});

let server: FakeBedrockServer;
beforeEach(async () => {
  server = await startFakeBedrock();
});
afterEach(async () => {
  await server.close();
});

function lastBody(): Record<string, unknown> {
  const body = server.requests.at(-1)?.body;
  if (body === undefined) throw new Error('no request reached the fake server');
  return body;
}

describe('each ToolChoice mode → exactly what goes on the wire', () => {
  it.each([
    ['auto', ToolChoice.auto(), { auto: {} }],
    ['required', ToolChoice.required(), { any: {} }],
    ['tool', ToolChoice.tool('search_docs'), { tool: { name: 'search_docs' } }],
  ] as const)('%s', async (_name, toolChoice, wire) => {
    server.enqueue(toolAnswer([{ id: 't1', name: 'search_docs', input: { query: 'umbrella' } }]));
    const model = createTestBedrock(server).provider('anthropic.claude-3-5-sonnet-20240620-v1:0');
    const response = await model.generate({ messages: HISTORY, tools: TOOLS, toolChoice });
    expect(lastBody().toolConfig).toEqual({ tools: WIRE_TOOLS, toolChoice: wire });
    expect(lastBody().system).toEqual([{ text: 'You are a weather assistant.' }]);
    expect(response.adjustments).toEqual([]);
    expect(response.toolCalls).toEqual([
      { id: 't1', toolName: 'search_docs', arguments: '{"query":"umbrella"}' },
    ]);
  });

  it('no tool choice given means auto', async () => {
    server.enqueue(textAnswer('ok'));
    await createTestBedrock(server).provider('m').generate({ messages: HISTORY, tools: TOOLS });
    expect(lastBody().toolConfig).toEqual({ tools: WIRE_TOOLS, toolChoice: { auto: {} } });
  });

  it('no tools and no tool history: no toolConfig at all', async () => {
    server.enqueue(textAnswer('ok'));
    await createTestBedrock(server)
      .provider('m')
      .generate({ messages: [{ role: 'user', content: 'Hi' }] });
    expect(lastBody()).not.toHaveProperty('toolConfig');
  });

  it('a named tool that is not offered is refused before sending, with the closest name', async () => {
    const model = createTestBedrock(server).provider('m');
    const error = await model
      .generate({ messages: HISTORY, tools: TOOLS, toolChoice: ToolChoice.tool('get_wether') })
      .catch((thrown: unknown) => thrown);
    expect(InvalidToolChoiceError.isInstance(error)).toBe(true);
    expect((error as InvalidToolChoiceError).suggestion).toBe('get_weather');
    expect(server.requests).toHaveLength(0);
  });
});

describe("tool choice 'none': the three policies", () => {
  it('instruct-and-reject (default): tools and history kept, auto + instruction; a call that comes back is rejected, never returned', async () => {
    server.enqueue(
      toolAnswer([{ id: 'rogue_1', name: 'get_weather', input: { city: 'Paris' } }], 'Probably not.'),
    );
    const model = createTestBedrock(server).provider('m');
    const response = await model.generate({ messages: HISTORY, tools: TOOLS, toolChoice: ToolChoice.none() });

    const body = lastBody();
    expect(body.toolConfig).toEqual({ tools: WIRE_TOOLS, toolChoice: { auto: {} } });
    expect(body.system).toEqual([{ text: 'You are a weather assistant.' }, { text: NONE_INSTRUCTION }]);
    expect(JSON.stringify(body.messages)).toContain('"toolUse"');
    expect(JSON.stringify(body.messages)).toContain('"toolResult"');

    expect(response.text).toBe('Probably not.');
    expect(response.toolCalls).toEqual([]);
    expect(response.finishReason).toBe('stop');
    expect(response.rawFinishReason).toBe('tool_use');
    expect(response.adjustments.map((adjustment) => adjustment.kind)).toEqual([
      'tool-choice-emulated',
      'tool-calls-rejected',
    ]);
    expect(response.adjustments[1]?.details).toEqual({
      provider: 'bedrock',
      reason: 'tool-choice-none',
      toolCalls: [{ id: 'rogue_1', toolName: 'get_weather', arguments: '{"city":"Paris"}' }],
    });
  });

  it('instruct-and-reject while streaming: no tool-call-start, delta or tool-call part for the rejected call', async () => {
    const items: StreamItem[] = [
      { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text: 'No umbrella.' } } },
      {
        event: 'contentBlockStart',
        payload: { contentBlockIndex: 1, start: { toolUse: { toolUseId: 'r1', name: 'get_weather' } } },
      },
      {
        event: 'contentBlockDelta',
        payload: { contentBlockIndex: 1, delta: { toolUse: { input: '{"city":"Paris"}' } } },
      },
      { event: 'contentBlockStop', payload: { contentBlockIndex: 1 } },
      { event: 'messageStop', payload: { stopReason: 'tool_use' } },
    ];
    server.enqueue({ stream: items });
    const model = createTestBedrock(server).provider('m');
    const parts = [];
    for await (const part of model.stream({
      messages: HISTORY,
      tools: TOOLS,
      toolChoice: ToolChoice.none(),
    })) {
      parts.push(part);
    }
    expect(parts.map((part) => part.type)).toEqual(['text-delta', 'finish']);
    expect(parts[1]).toMatchObject({ finishReason: 'stop', rawFinishReason: 'tool_use' });
  });

  it('rewrite-history-as-text: no toolConfig; tool blocks become text', async () => {
    server.enqueue(textAnswer('Take one.'));
    const model = createTestBedrock(server).provider('m', {
      noneToolChoicePolicy: 'rewrite-history-as-text',
    });
    const response = await model.generate({ messages: HISTORY, tools: TOOLS, toolChoice: ToolChoice.none() });
    const body = lastBody();
    expect(body).not.toHaveProperty('toolConfig');
    expect(body.system).toEqual([{ text: 'You are a weather assistant.' }]);
    expect(body.messages).toEqual([
      { role: 'user', content: [{ text: 'Weather in Paris?' }] },
      {
        role: 'assistant',
        content: [{ text: 'Let me look.' }, { text: '[Tool call call_1: get_weather({"city":"Paris"})]' }],
      },
      {
        role: 'user',
        content: [
          { text: '[Tool result for call_1 (get_weather): {"temp":21}]' },
          { text: 'And should I bring an umbrella?' },
        ],
      },
    ]);
    expect(response.adjustments.map((adjustment) => adjustment.kind)).toEqual([
      'tools-dropped',
      'history-rewritten',
    ]);
    expect(response.adjustments[1]?.details).toEqual({ mode: 'as-text', blocks: 2 });
  });

  it('drop-tools: no toolConfig; tool blocks removed, turns merged', async () => {
    server.enqueue(textAnswer('Take one.'));
    const model = createTestBedrock(server).provider('m', { noneToolChoicePolicy: 'drop-tools' });
    const response = await model.generate({ messages: HISTORY, tools: TOOLS, toolChoice: ToolChoice.none() });
    const body = lastBody();
    expect(body).not.toHaveProperty('toolConfig');
    expect(body.messages).toEqual([
      { role: 'user', content: [{ text: 'Weather in Paris?' }] },
      { role: 'assistant', content: [{ text: 'Let me look.' }] },
      { role: 'user', content: [{ text: 'And should I bring an umbrella?' }] },
    ]);
    expect(response.adjustments[0]).toMatchObject({
      kind: 'tools-dropped',
      details: { mode: 'none', policy: 'drop-tools', toolNames: ['get_weather', 'search_docs'] },
    });
    expect(response.adjustments.some((adjustment) => adjustment.kind === 'history-rewritten')).toBe(true);
  });

  it('an unknown policy is refused when the model is created, with a suggestion', () => {
    const provider = createTestBedrock(server).provider;
    expect(() => provider('m', { noneToolChoicePolicy: 'drop-tool' as never })).toThrow(
      /Did you mean 'drop-tools'/,
    );
  });
});

describe('models that reject toolChoice any / tool', () => {
  const rejection = (field: 'any' | 'tool'): FakeResponse => ({
    errorType: 'ValidationException',
    status: 400,
    message: `This model doesn't support the toolConfig.toolChoice.${field} field. Remove toolConfig.toolChoice.${field} and try again.`,
  });

  it.each([
    ['required', ToolChoice.required(), 'any'],
    ['tool', ToolChoice.tool('get_weather'), 'tool'],
  ] as const)(
    '%s rejected by Bedrock → UnsupportedToolChoiceError naming the model and mode',
    async (mode, toolChoice, field) => {
      server.enqueue(rejection(field));
      const model = createTestBedrock(server).provider('mistral.mistral-large-2407-v1:0');
      const error = await model
        .generate({ messages: HISTORY, tools: TOOLS, toolChoice })
        .catch((thrown: unknown) => thrown);
      expect(UnsupportedToolChoiceError.isInstance(error), String(error)).toBe(true);
      expect((error as UnsupportedToolChoiceError).modelId).toBe('mistral.mistral-large-2407-v1:0');
      expect((error as UnsupportedToolChoiceError).mode).toBe(mode);
      expect((error as Error).message).toContain('emulateUnsupportedToolChoice');
      expect(server.requests).toHaveLength(1);
    },
  );

  it('opt-in fallback: required is emulated (auto + instruction) and the answer is checked', async () => {
    server.enqueue(
      rejection('any'),
      toolAnswer([{ id: 't1', name: 'get_weather', input: { city: 'Paris' } }]),
    );
    const model = createTestBedrock(server).provider('mistral.mistral-large-2407-v1:0', {
      emulateUnsupportedToolChoice: true,
    });
    const response = await model.generate({
      messages: HISTORY,
      tools: TOOLS,
      toolChoice: ToolChoice.required(),
    });
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]?.body.toolConfig).toMatchObject({ toolChoice: { any: {} } });
    expect(lastBody().toolConfig).toMatchObject({ toolChoice: { auto: {} } });
    expect(lastBody().system).toEqual([
      { text: 'You are a weather assistant.' },
      { text: REQUIRED_INSTRUCTION },
    ]);
    expect(response.toolCalls).toHaveLength(1);
    expect(response.adjustments).toEqual([
      expect.objectContaining({
        kind: 'tool-choice-emulated',
        details: { mode: 'required', reason: 'rejected-by-model' },
      }),
    ]);
  });

  it('opt-in fallback while streaming, for a named tool: calls to other tools are rejected, the named one returned', async () => {
    server.enqueue(rejection('tool'), {
      stream: [
        {
          event: 'contentBlockStart',
          payload: { contentBlockIndex: 0, start: { toolUse: { toolUseId: 'x', name: 'search_docs' } } },
        },
        {
          event: 'contentBlockDelta',
          payload: { contentBlockIndex: 0, delta: { toolUse: { input: '{"query":"a"}' } } },
        },
        { event: 'contentBlockStop', payload: { contentBlockIndex: 0 } },
        {
          event: 'contentBlockStart',
          payload: { contentBlockIndex: 1, start: { toolUse: { toolUseId: 'y', name: 'get_weather' } } },
        },
        {
          event: 'contentBlockDelta',
          payload: { contentBlockIndex: 1, delta: { toolUse: { input: '{"city":"Paris"}' } } },
        },
        { event: 'contentBlockStop', payload: { contentBlockIndex: 1 } },
        { event: 'messageStop', payload: { stopReason: 'tool_use' } },
      ],
    });
    const model = createTestBedrock(server).provider('m', { emulateUnsupportedToolChoice: true });
    const response = await collectStream(
      model.stream({ messages: HISTORY, tools: TOOLS, toolChoice: ToolChoice.tool('get_weather') }),
    );
    expect(response.toolCalls).toEqual([{ id: 'y', toolName: 'get_weather', arguments: '{"city":"Paris"}' }]);
    expect(response.adjustments.map((adjustment) => adjustment.kind)).toEqual([
      'tool-choice-emulated',
      'tool-calls-rejected',
    ]);
  });

  it("declared 'unsupported' → UnsupportedToolChoiceError before anything is sent", async () => {
    const model = createTestBedrock(server).provider('meta.llama3-70b-instruct-v1:0', {
      capabilities: { toolChoice: { required: 'unsupported' } },
    });
    const error = await model
      .generate({ messages: HISTORY, tools: TOOLS, toolChoice: ToolChoice.required() })
      .catch((thrown: unknown) => thrown);
    expect(UnsupportedToolChoiceError.isInstance(error)).toBe(true);
    expect(server.requests).toHaveLength(0);
  });

  it("declared 'emulated': sent as auto + instruction at once; an answer without the call is reported not honoured", async () => {
    server.enqueue(textAnswer('I would rather not.'));
    const model = createTestBedrock(server).provider('meta.llama3-70b-instruct-v1:0', {
      capabilities: { toolChoice: { tool: 'emulated' } },
    });
    expect(model.capabilities.toolChoice.tool).toBe('emulated');
    const response = await model.generate({
      messages: HISTORY,
      tools: TOOLS,
      toolChoice: ToolChoice.tool('get_weather'),
    });
    expect(server.requests).toHaveLength(1);
    expect(lastBody().toolConfig).toMatchObject({ toolChoice: { auto: {} } });
    expect(response.adjustments.map((adjustment) => adjustment.details)).toEqual([
      { mode: 'tool', reason: 'declared', toolName: 'get_weather' },
      { provider: 'bedrock', mode: 'tool', toolName: 'get_weather', honoured: false },
    ]);
  });

  it('a ValidationException about something else is not mistaken for an unsupported tool choice', async () => {
    server.enqueue({ errorType: 'ValidationException', status: 400, message: 'Malformed input request' });
    const model = createTestBedrock(server).provider('m', { emulateUnsupportedToolChoice: true });
    const error = await model
      .generate({ messages: HISTORY, tools: TOOLS, toolChoice: ToolChoice.required() } satisfies ModelRequest)
      .catch((thrown: unknown) => thrown);
    expect(UnsupportedToolChoiceError.isInstance(error)).toBe(false);
    expect(server.requests).toHaveLength(1);
  });
});
