import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import {
  assertLanguageModel,
  InvalidMessageHistoryError,
  type Message,
  redactSecrets,
  ToolChoice,
  type ToolSpec,
} from '@org/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createBedrock, DEFAULT_BEDROCK_CAPABILITIES, InvalidBedrockOptionsError } from '../src/index.js';
import {
  FAKE_CREDENTIALS,
  type FakeBedrockServer,
  type FakeResponse,
  startFakeBedrock,
} from './fake-bedrock-server.js';
import { createTestBedrock } from './test-provider.js';

const answer = (
  content: unknown[] = [{ text: 'ok' }],
  stopReason = 'end_turn',
  usage: object = {},
): FakeResponse => ({
  json: {
    output: { message: { role: 'assistant', content } },
    stopReason,
    usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7, ...usage },
  },
});
const TOOL: ToolSpec = {
  name: 'get_weather',
  description: 'Weather',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
};

let server: FakeBedrockServer;
beforeEach(async () => {
  server = await startFakeBedrock();
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await server.close();
});

const body = (): Record<string, unknown> => server.requests.at(-1)?.body ?? {};

describe('the Converse request', () => {
  it('system messages become system blocks; a later one is moved and reported', async () => {
    server.enqueue(answer());
    const response = await createTestBedrock(server)
      .provider('m')
      .generate({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'system', content: 'Answer in French.' },
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: 'Bonjour' },
          { role: 'system', content: 'Now answer in English.' },
          { role: 'user', content: 'Again' },
        ],
      });
    expect(body().system).toEqual([
      { text: 'Be brief.' },
      { text: 'Answer in French.' },
      { text: 'Now answer in English.' },
    ]);
    expect(body().messages).toEqual([
      { role: 'user', content: [{ text: 'Hi' }] },
      { role: 'assistant', content: [{ text: 'Bonjour' }] },
      { role: 'user', content: [{ text: 'Again' }] },
    ]);
    expect(response.adjustments).toEqual([
      expect.objectContaining({ kind: 'history-rewritten', details: { movedSystemMessageIndexes: [4] } }),
    ]);
  });

  it('tool calls and results: toolUse with the parsed input, toolResult with status error only for failures, one user turn', async () => {
    server.enqueue(answer());
    const messages: Message[] = [
      { role: 'user', content: 'Weather in Paris and Oslo?' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'c1', toolName: 'get_weather', arguments: '{"city":"Paris"}' },
          { id: 'c2', toolName: 'get_weather', arguments: '{"city":"Oslo"}' },
        ],
      },
      { role: 'tool', toolCallId: 'c1', toolName: 'get_weather', content: '{"temp":21}' },
      {
        role: 'tool',
        toolCallId: 'c2',
        toolName: 'get_weather',
        content: 'City service down',
        isError: true,
      },
    ];
    const response = await createTestBedrock(server)
      .provider('m')
      .generate({ messages, tools: [TOOL] });
    expect(body().messages).toEqual([
      { role: 'user', content: [{ text: 'Weather in Paris and Oslo?' }] },
      {
        role: 'assistant',
        content: [
          { toolUse: { toolUseId: 'c1', name: 'get_weather', input: { city: 'Paris' } } },
          { toolUse: { toolUseId: 'c2', name: 'get_weather', input: { city: 'Oslo' } } },
        ],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: 'c1', content: [{ text: '{"temp":21}' }] } },
          { toolResult: { toolUseId: 'c2', content: [{ text: 'City service down' }], status: 'error' } },
        ],
      },
    ]);
    expect(response.adjustments).toEqual([]);
  });

  it('consecutive user messages and consecutive assistant messages are merged, and that is reported', async () => {
    server.enqueue(answer());
    const response = await createTestBedrock(server)
      .provider('m')
      .generate({
        messages: [
          { role: 'user', content: 'First' },
          { role: 'user', content: 'Second' },
          { role: 'assistant', content: 'A' },
          { role: 'assistant', content: 'B' },
          { role: 'user', content: 'Third' },
        ],
      });
    expect(body().messages).toEqual([
      { role: 'user', content: [{ text: 'First' }, { text: 'Second' }] },
      { role: 'assistant', content: [{ text: 'A' }, { text: 'B' }] },
      { role: 'user', content: [{ text: 'Third' }] },
    ]);
    expect(response.adjustments[0]).toMatchObject({
      kind: 'history-rewritten',
      details: {
        mergedMessageIndexes: [
          [0, 1],
          [2, 3],
        ],
      },
    });
  });

  it('tool call pairing is checked before sending', async () => {
    const error = await createTestBedrock(server)
      .provider('m')
      .generate({
        messages: [
          { role: 'user', content: 'x' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'c1', toolName: 'get_weather', arguments: '{}' }],
          },
          { role: 'user', content: 'y' },
        ],
        tools: [TOOL],
      })
      .catch((thrown: unknown) => thrown);
    expect(InvalidMessageHistoryError.isInstance(error)).toBe(true);
    expect((error as InvalidMessageHistoryError).toolCallId).toBe('c1');
    expect(server.requests).toHaveLength(0);
  });

  it('arguments in the history that are not a JSON object are sent as {} and reported with the raw text', async () => {
    server.enqueue(answer());
    const response = await createTestBedrock(server)
      .provider('m')
      .generate({
        messages: [
          { role: 'user', content: 'x' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'c1', toolName: 'get_weather', arguments: '{"city": Par' }],
          },
          { role: 'tool', toolCallId: 'c1', toolName: 'get_weather', content: 'invalid JSON', isError: true },
        ],
        tools: [TOOL],
      });
    expect(JSON.stringify(body().messages)).toContain('"input":{}');
    expect(response.adjustments[0]).toMatchObject({
      kind: 'history-rewritten',
      details: { calls: [{ toolCallId: 'c1', toolName: 'get_weather', arguments: '{"city": Par' }] },
    });
  });

  it('inferenceConfig from maxOutputTokens, temperature, stopSequences and providerOptions.bedrock.topP', async () => {
    server.enqueue(answer());
    await createTestBedrock(server)
      .provider('m')
      .generate({
        messages: [{ role: 'user', content: 'x' }],
        maxOutputTokens: 512,
        temperature: 0.2,
        stopSequences: ['END'],
        providerOptions: { bedrock: { topP: 0.9 } },
      });
    expect(body().inferenceConfig).toEqual({
      maxTokens: 512,
      temperature: 0.2,
      stopSequences: ['END'],
      topP: 0.9,
    });
  });

  it('additionalModelRequestFields and other Converse fields pass through untouched', async () => {
    server.enqueue(answer());
    const additional = { top_k: 200, thinking: { type: 'enabled', budget_tokens: 1024 } };
    await createTestBedrock(server)
      .provider('m')
      .generate({
        messages: [{ role: 'user', content: 'x' }],
        providerOptions: {
          bedrock: {
            additionalModelRequestFields: additional,
            additionalModelResponseFieldPaths: ['/stop_sequence'],
            requestMetadata: { team: 'search' },
          },
        },
      });
    expect(body().additionalModelRequestFields).toEqual(additional);
    expect(body().additionalModelResponseFieldPaths).toEqual(['/stop_sequence']);
    expect(body().requestMetadata).toEqual({ team: 'search' });
  });

  it('an unknown providerOptions.bedrock key is a typed error naming the closest key; nothing is sent', async () => {
    const error = await createTestBedrock(server)
      .provider('m')
      .generate({
        messages: [{ role: 'user', content: 'x' }],
        providerOptions: { bedrock: { additionalModelRequestField: { top_k: 1 } } },
      })
      .catch((thrown: unknown) => thrown);
    expect(InvalidBedrockOptionsError.isInstance(error)).toBe(true);
    expect((error as InvalidBedrockOptionsError).suggestion).toBe('additionalModelRequestFields');
    expect(server.requests).toHaveLength(0);
  });

  it('parallelToolCalls: false cannot be sent and is reported as setting-ignored', async () => {
    server.enqueue(answer());
    const response = await createTestBedrock(server)
      .provider('m')
      .generate({ messages: [{ role: 'user', content: 'x' }], tools: [TOOL], parallelToolCalls: false });
    expect(response.adjustments).toEqual([expect.objectContaining({ kind: 'setting-ignored' })]);
  });

  it('tool names Bedrock refuses are mapped on the wire and back in the answer', async () => {
    server.enqueue(
      answer([{ toolUse: { toolUseId: 't', name: 'math_factorial', input: { n: 5 } } }], 'tool_use'),
    );
    const response = await createTestBedrock(server)
      .provider('m')
      .generate({
        messages: [{ role: 'user', content: '5!' }],
        tools: [{ name: 'math.factorial', description: 'n!', inputSchema: { type: 'object' } }],
        toolChoice: ToolChoice.tool('math.factorial'),
      });
    expect(body().toolConfig).toMatchObject({
      tools: [{ toolSpec: { name: 'math_factorial' } }],
      toolChoice: { tool: { name: 'math_factorial' } },
    });
    expect(response.toolCalls).toEqual([{ id: 't', toolName: 'math.factorial', arguments: '{"n":5}' }]);
    expect(response.adjustments).toEqual([
      expect.objectContaining({
        kind: 'tool-names-mapped',
        details: { mapping: { 'math.factorial': 'math_factorial' } },
      }),
    ]);
  });

  it('usage maps cache reads to cachedInputTokens; includeRawResponse attaches the SDK output', async () => {
    server.enqueue(answer([{ text: 'ok' }], 'end_turn', { cacheReadInputTokens: 2 }));
    const response = await createTestBedrock(server)
      .provider('m')
      .generate({ messages: [{ role: 'user', content: 'x' }], includeRawResponse: true });
    expect(response.usage).toEqual({ inputTokens: 3, outputTokens: 4, totalTokens: 7, cachedInputTokens: 2 });
    expect(response.rawResponse).toMatchObject({ stopReason: 'end_turn' });
  });
});

describe('model ids, region, credentials and clients', () => {
  it.each([
    'anthropic.claude-3-5-sonnet-20240620-v1:0',
    'us.anthropic.claude-3-7-sonnet-20250219-v1:0',
    'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-7-sonnet-20250219-v1:0',
    'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6',
    'arn:aws:bedrock:us-east-1::foundation-model/amazon.nova-pro-v1:0',
  ])('model id %s reaches the service intact', async (modelId) => {
    server.enqueue(answer());
    const model = createTestBedrock(server).provider(modelId);
    await model.generate({ messages: [{ role: 'user', content: 'x' }] });
    expect(server.requests[0]?.modelId).toBe(modelId);
    expect(server.requests[0]?.path).toBe(`/model/${encodeURIComponent(modelId)}/converse`);
  });

  it('an empty model id is refused', () => {
    expect(() => createTestBedrock(server).provider('  ')).toThrow(InvalidBedrockOptionsError);
  });

  it('requests are SigV4-signed for the region, with the session token', async () => {
    server.enqueue(answer());
    await createTestBedrock(server)
      .provider('m')
      .generate({ messages: [{ role: 'user', content: 'x' }] });
    const headers = server.requests[0]?.headers ?? {};
    expect(String(headers.authorization)).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=${FAKE_CREDENTIALS.accessKeyId}/\\d{8}/us-east-1/bedrock/aws4_request`,
      ),
    );
    expect(headers['x-amz-security-token']).toBe(FAKE_CREDENTIALS.sessionToken);
  });

  it('the standard chain: region and credentials from the environment, and the secret is registered', async () => {
    const secret = 'env-secret-Rt5Yu7Io9Pa1Sd3Fg5Hj7';
    vi.stubEnv('AWS_REGION', 'eu-west-3');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIAENVENVENVENVENV1');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', secret);
    vi.stubEnv('AWS_SESSION_TOKEN', '');
    vi.stubEnv('AWS_PROFILE', '');
    server.enqueue(answer());
    const provider = createBedrock({ endpoint: server.url, retry: { maxRetries: 0 } });
    await provider('m').generate({ messages: [{ role: 'user', content: 'x' }] });
    expect(String(server.requests[0]?.headers.authorization)).toContain('/eu-west-3/bedrock/aws4_request');
    expect(redactSecrets(`leaked ${secret}`)).toBe('leaked [REDACTED]');
  });

  it('a ready BedrockRuntimeClient is used as is (its own retries; the adapter adds none)', async () => {
    const client = new BedrockRuntimeClient({
      region: 'ap-south-1',
      endpoint: server.url,
      credentials: { ...FAKE_CREDENTIALS },
      maxAttempts: 1,
    });
    try {
      server.enqueue({ errorType: 'InternalServerException', status: 500, message: 'boom' });
      const provider = createBedrock({ client });
      const error = await provider('m')
        .generate({ messages: [{ role: 'user', content: 'x' }] })
        .catch((thrown: unknown) => thrown);
      expect((error as Error).name).toBe('ProviderUnavailableError');
      expect(server.requests).toHaveLength(1);
      expect(String(server.requests[0]?.headers.authorization)).toContain('/ap-south-1/bedrock/aws4_request');
    } finally {
      client.destroy();
    }
  });

  it('client settings next to a ready client are refused', () => {
    const client = new BedrockRuntimeClient({ region: 'us-east-1' });
    try {
      expect(() => createBedrock({ client, region: 'eu-west-1' })).toThrow(
        /no client settings next to a ready client/,
      );
    } finally {
      client.destroy();
    }
  });

  it('capabilities: declared by the adapter, overridden per model by the user, never from the model id', () => {
    const { provider } = createTestBedrock(server);
    const model = assertLanguageModel(provider('meta.llama3-70b-instruct-v1:0'));
    expect(model.capabilities).toEqual(DEFAULT_BEDROCK_CAPABILITIES);
    expect(provider('anthropic.claude-3-haiku-20240307-v1:0').capabilities).toEqual(
      DEFAULT_BEDROCK_CAPABILITIES,
    );
    const declared = provider('meta.llama3-70b-instruct-v1:0', {
      capabilities: { toolChoice: { required: 'emulated', tool: 'unsupported' }, parallelToolCalls: true },
    });
    expect(declared.capabilities.toolChoice).toEqual({
      auto: 'native',
      required: 'emulated',
      tool: 'unsupported',
      none: 'emulated',
    });
    expect(declared.capabilities.parallelToolCalls).toBe(true);
    expect(provider.languageModel('m').provider).toBe('bedrock');
  });

  it('a credential provider that fails → AuthenticationError, nothing sent', async () => {
    const provider = createBedrock({
      region: 'us-east-1',
      endpoint: server.url,
      credentials: async () => {
        throw Object.assign(new Error('Could not load credentials from any providers'), {
          name: 'CredentialsProviderError',
        });
      },
      retry: { maxRetries: 0 },
    });
    const error = await provider('m')
      .generate({ messages: [{ role: 'user', content: 'x' }] })
      .catch((thrown: unknown) => thrown);
    expect((error as Error).name).toBe('AuthenticationError');
    expect((error as Error).message).toContain('Could not load credentials');
    expect(server.requests).toHaveLength(0);
  });

  it('a model declared streaming: false streams by replaying one Converse call', async () => {
    server.enqueue(
      answer(
        [
          { text: 'Calling.' },
          { toolUse: { toolUseId: 't1', name: 'get_weather', input: { city: 'Oslo' } } },
        ],
        'tool_use',
      ),
    );
    const model = createTestBedrock(server).provider('meta.llama3-1-70b-instruct-v1:0', {
      capabilities: { streaming: false },
    });
    const parts = [];
    for await (const part of model.stream({ messages: [{ role: 'user', content: 'x' }], tools: [TOOL] }))
      parts.push(part);
    expect(server.requests.map((request) => request.operation)).toEqual(['converse']);
    expect(parts).toEqual([
      { type: 'text-delta', delta: 'Calling.' },
      { type: 'tool-call-start', toolCallId: 't1', toolName: 'get_weather' },
      { type: 'tool-call-delta', toolCallId: 't1', argumentsDelta: '{"city":"Oslo"}' },
      { type: 'tool-call', toolCall: { id: 't1', toolName: 'get_weather', arguments: '{"city":"Oslo"}' } },
      expect.objectContaining({ type: 'finish', finishReason: 'tool-calls', rawFinishReason: 'tool_use' }),
    ]);
  });

  it("a model's retry fields override the provider's one by one (the provider's sleep is kept)", async () => {
    server.enqueue(
      { errorType: 'ThrottlingException', status: 429, message: 'slow', headers: { 'retry-after': '1' } },
      { errorType: 'ThrottlingException', status: 429, message: 'slow', headers: { 'retry-after': '1' } },
    );
    const { provider, sleeps } = createTestBedrock(server);
    const error = await provider('m', { retry: { maxRetries: 1 } })
      .generate({ messages: [{ role: 'user', content: 'x' }] })
      .catch((thrown: unknown) => thrown);
    expect((error as Error).name).toBe('RateLimitError');
    expect(sleeps).toEqual([1000]);
    expect(server.requests).toHaveLength(2);
  });

  it('retry options are checked', () => {
    expect(() => createTestBedrock(server, { retry: { maxRetries: -1 } }).provider('m')).toThrow(
      /retry.maxRetries/,
    );
  });
});
