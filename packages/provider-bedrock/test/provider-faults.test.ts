import { inspect } from 'node:util';
import {
  AbortedError,
  AuthenticationError,
  ContextLengthExceededError,
  IncompleteToolCallError,
  InvalidRequestError,
  type ModelRequest,
  ProviderError,
  ProviderUnavailableError,
  RateLimitError,
  StreamInterruptedError,
  type StreamPart,
} from '@org/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  encodeEvent,
  FAKE_CREDENTIALS,
  type FakeBedrockServer,
  type StreamItem,
  startFakeBedrock,
} from './fake-bedrock-server.js';
import { createTestBedrock } from './test-provider.js';

const MODEL_ID = 'us.anthropic.claude-3-5-sonnet-20240620-v1:0';
const REQUEST: ModelRequest = {
  messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
  tools: [
    {
      name: 'get_weather',
      description: 'Current weather for a city',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ],
};
const OK_JSON = {
  json: {
    output: { message: { role: 'assistant', content: [{ text: 'Sunny.' }] } },
    stopReason: 'end_turn',
    usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 },
  },
};
const text = (contentBlockIndex: number, delta: string): StreamItem => ({
  event: 'contentBlockDelta',
  payload: { contentBlockIndex, delta: { text: delta } },
});
const toolStart = (contentBlockIndex: number, id: string, name: string): StreamItem => ({
  event: 'contentBlockStart',
  payload: { contentBlockIndex, start: { toolUse: { toolUseId: id, name } } },
});
const toolInput = (contentBlockIndex: number, input: string): StreamItem => ({
  event: 'contentBlockDelta',
  payload: { contentBlockIndex, delta: { toolUse: { input } } },
});
const stop = (contentBlockIndex: number): StreamItem => ({
  event: 'contentBlockStop',
  payload: { contentBlockIndex },
});
const messageStop = (stopReason: string): StreamItem => ({ event: 'messageStop', payload: { stopReason } });
const metadata: StreamItem = {
  event: 'metadata',
  payload: { usage: { inputTokens: 11, outputTokens: 7, totalTokens: 18 }, metrics: { latencyMs: 3 } },
};
const OK_STREAM: StreamItem[] = [text(0, 'Sun'), text(0, 'ny.'), stop(0), messageStop('end_turn'), metadata];

let server: FakeBedrockServer;
beforeEach(async () => {
  server = await startFakeBedrock();
});
afterEach(async () => {
  await server.close();
});

async function streamParts(request: ModelRequest = REQUEST, options = {}): Promise<StreamPart[]> {
  const model = createTestBedrock(server, options).provider(MODEL_ID);
  const parts: StreamPart[] = [];
  for await (const part of model.stream(request)) parts.push(part);
  return parts;
}

function lastError(parts: readonly StreamPart[]): Error {
  const last = parts.at(-1);
  expect(last?.type).toBe('error');
  expect(parts.filter((part) => part.type === 'error' || part.type === 'finish')).toHaveLength(1);
  return (last as { error: Error }).error;
}

async function generateError(options = {}): Promise<unknown> {
  const model = createTestBedrock(server, options).provider(MODEL_ID);
  return model.generate(REQUEST).then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error,
  );
}

describe('throttling and retry (issue 11 item 16)', () => {
  it('1. 429 ThrottlingException with retry-after: 2 waits 2 s (virtual clock) and retries', async () => {
    server.enqueue(
      {
        errorType: 'ThrottlingException',
        status: 429,
        message: 'Too many requests',
        headers: { 'retry-after': '2' },
      },
      OK_JSON,
    );
    const { provider, sleeps } = createTestBedrock(server);
    const response = await provider(MODEL_ID).generate(REQUEST);
    expect(response.text).toBe('Sunny.');
    expect(sleeps).toEqual([2000]);
    expect(server.requests).toHaveLength(2);
  });

  it('2. 429 with retry-after: 3600 fails fast with the wait, no retry', async () => {
    server.enqueue({
      errorType: 'ThrottlingException',
      status: 429,
      message: 'Too many tokens, please wait before trying again.',
      headers: { 'retry-after': '3600' },
    });
    const { provider, sleeps } = createTestBedrock(server);
    const error = await provider(MODEL_ID)
      .generate(REQUEST)
      .catch((thrown: unknown) => thrown);
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect((error as RateLimitError).retryAfterMs).toBe(3_600_000);
    expect((error as RateLimitError).statusCode).toBe(429);
    expect((error as RateLimitError).requestId).toBe('fake-request-id');
    expect(sleeps).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('3. 429 with x-should-retry: false is not retried', async () => {
    server.enqueue({
      errorType: 'ThrottlingException',
      status: 429,
      message: 'Too many requests',
      headers: { 'x-should-retry': 'false' },
    });
    const error = await generateError();
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('4. x-amz-retry-after (milliseconds) is honoured', async () => {
    server.enqueue(
      {
        errorType: 'ThrottlingException',
        status: 429,
        message: 'slow down',
        headers: { 'x-amz-retry-after': '1500' },
      },
      OK_JSON,
    );
    const { provider, sleeps } = createTestBedrock(server);
    await provider(MODEL_ID).generate(REQUEST);
    expect(sleeps).toEqual([1500]);
  });

  it('5. throttling on every attempt: retries spent within the budget, exponential backoff, then RateLimitError', async () => {
    for (let index = 0; index < 3; index++) {
      server.enqueue({ errorType: 'ThrottlingException', status: 429, message: 'Rate exceeded' });
    }
    const { provider, sleeps } = createTestBedrock(server);
    const error = await provider(MODEL_ID)
      .generate(REQUEST)
      .catch((thrown: unknown) => thrown);
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect((error as RateLimitError).retryAfterMs).toBeUndefined();
    expect(server.requests).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
    expect(sleeps[0]).toBeGreaterThanOrEqual(250);
    expect(sleeps[0]).toBeLessThanOrEqual(500);
    expect(sleeps[1]).toBeGreaterThanOrEqual(500);
    expect(sleeps[1]).toBeLessThanOrEqual(1000);
  });

  it('6. ServiceQuotaExceededException is a RateLimitError that is not retried', async () => {
    server.enqueue({ errorType: 'ServiceQuotaExceededException', status: 400, message: 'Quota exceeded' });
    const error = await generateError();
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect((error as RateLimitError).retryable).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it('7. throttling before a stream opens is retried too, then streams', async () => {
    server.enqueue(
      {
        errorType: 'ThrottlingException',
        status: 429,
        message: 'Too many requests',
        headers: { 'retry-after': '1' },
      },
      { stream: OK_STREAM },
    );
    const parts = await streamParts();
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
    expect(server.requests.map((request) => request.operation)).toEqual([
      'converse-stream',
      'converse-stream',
    ]);
  });

  it('8. an abort during a retry wait ends with AbortedError', async () => {
    server.enqueue({
      errorType: 'ThrottlingException',
      status: 429,
      message: 'slow down',
      headers: { 'retry-after': '30' },
    });
    const controller = new AbortController();
    const { provider } = createTestBedrock(server, {
      retry: {
        sleep: async () => {
          controller.abort(new Error('caller gave up'));
          throw new AbortedError({ operation: 'retry wait' });
        },
      },
    });
    const error = await provider(MODEL_ID)
      .generate({ ...REQUEST, signal: controller.signal })
      .catch((thrown: unknown) => thrown);
    expect(AbortedError.isInstance(error)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });
});

describe('5xx then success; 4xx without retry (item 17)', () => {
  it.each([
    [
      '9. 500 InternalServerException',
      { errorType: 'InternalServerException', status: 500, message: 'Internal error' },
    ],
    [
      '10. 502 from a proxy (HTML body)',
      { status: 502, body: '<html>Bad Gateway</html>', headers: { 'content-type': 'text/html' } },
    ],
    [
      '11. 503 ServiceUnavailableException',
      { errorType: 'ServiceUnavailableException', status: 503, message: 'Service unavailable' },
    ],
    [
      '12. 529 overloaded',
      { status: 529, body: '{"message":"Overloaded"}', headers: { 'content-type': 'application/json' } },
    ],
    [
      '13. ModelNotReadyException (429)',
      { errorType: 'ModelNotReadyException', status: 429, message: 'Model is not ready' },
    ],
    [
      '14. ModelTimeoutException (408)',
      { errorType: 'ModelTimeoutException', status: 408, message: 'Model timed out' },
    ],
  ] as const)('%s, then success', async (_name, failure) => {
    server.enqueue(failure, OK_JSON);
    const { provider, sleeps } = createTestBedrock(server);
    const response = await provider(MODEL_ID).generate(REQUEST);
    expect(response.text).toBe('Sunny.');
    expect(server.requests).toHaveLength(2);
    expect(sleeps).toHaveLength(1);
  });

  it('15. 5xx on every attempt ends in ProviderUnavailableError (retryable) after 1 + maxRetries attempts', async () => {
    for (let index = 0; index < 4; index++) {
      server.enqueue({
        errorType: 'ServiceUnavailableException',
        status: 503,
        message: 'Service unavailable',
      });
    }
    const error = await generateError({ retry: { maxRetries: 3 } });
    expect(ProviderUnavailableError.isInstance(error)).toBe(true);
    expect((error as ProviderUnavailableError).retryable).toBe(true);
    expect((error as ProviderUnavailableError).statusCode).toBe(503);
    expect(server.requests).toHaveLength(4);
  });

  it.each([
    [
      '16. 400 ValidationException',
      { errorType: 'ValidationException', status: 400, message: 'temperature: must be at most 1' },
      InvalidRequestError,
      400,
    ],
    [
      '17. 401 UnrecognizedClientException',
      {
        errorType: 'UnrecognizedClientException',
        status: 401,
        message: 'The security token included in the request is invalid.',
      },
      AuthenticationError,
      401,
    ],
    [
      '18. 403 AccessDeniedException',
      {
        errorType: 'AccessDeniedException',
        status: 403,
        message: "You don't have access to the model with the specified model ID.",
      },
      AuthenticationError,
      403,
    ],
    [
      '19. 404 ResourceNotFoundException',
      { errorType: 'ResourceNotFoundException', status: 404, message: 'Model not found' },
      InvalidRequestError,
      404,
    ],
    [
      '20. 424 ModelErrorException',
      { errorType: 'ModelErrorException', status: 424, message: 'The model failed' },
      ProviderError,
      424,
    ],
    [
      '21. 422 unmodeled',
      { status: 422, body: '{"message":"Unprocessable"}', headers: { 'content-type': 'application/json' } },
      InvalidRequestError,
      422,
    ],
  ] as const)('%s → typed error, no retry', async (_name, failure, errorClass, status) => {
    server.enqueue(failure);
    const error = await generateError();
    expect(errorClass.isInstance(error), String(error)).toBe(true);
    expect((error as ProviderError).statusCode).toBe(status);
    expect((error as ProviderError).provider).toBe('bedrock');
    expect((error as ProviderError).retryable).toBe(false);
    if ('message' in failure) expect((error as Error).message).toContain(failure.message);
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    'Input is too long for requested model.',
    'prompt is too long: 210344 tokens > 200000 maximum',
    'The input length and `max_tokens` exceed context limit: 190000 + 20000 > 200000',
    "This model's maximum context length is 8192 tokens. Please reduce the length of the prompt.",
    'Too many input tokens. Max input tokens: 300000, request input token count: 300012',
  ])('22. ValidationException "%s" → ContextLengthExceededError', async (message) => {
    server.enqueue({ errorType: 'ValidationException', status: 400, message });
    const error = await generateError();
    expect(ContextLengthExceededError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toContain(message);
  });
});

describe('connection resets (item 18)', () => {
  it('23. a reset before the headers is retried as a connection error (generate)', async () => {
    server.enqueue({ resetBeforeHeaders: true }, OK_JSON);
    const { provider } = createTestBedrock(server);
    const response = await provider(MODEL_ID).generate(REQUEST);
    expect(response.text).toBe('Sunny.');
    expect(server.requests).toHaveLength(2);
  });

  it('24. a reset before the headers is retried (stream)', async () => {
    server.enqueue({ resetBeforeHeaders: true }, { stream: OK_STREAM });
    const parts = await streamParts();
    expect(parts.at(-1)).toMatchObject({ type: 'finish' });
    expect(server.requests).toHaveLength(2);
  });

  it('25. an HTTP/2 RST_STREAM before the headers is retried', async () => {
    server.enqueue({ rstStreamBeforeHeaders: true }, OK_JSON);
    const { provider } = createTestBedrock(server);
    expect((await provider(MODEL_ID).generate(REQUEST)).text).toBe('Sunny.');
    expect(server.requests).toHaveLength(2);
  });

  it('26. resets on every attempt end in ProviderUnavailableError (connection_error)', async () => {
    server.enqueue({ resetBeforeHeaders: true }, { resetBeforeHeaders: true }, { resetBeforeHeaders: true });
    const error = await generateError();
    expect(ProviderUnavailableError.isInstance(error), String(error)).toBe(true);
    expect((error as ProviderUnavailableError).providerCode).toBe('connection_error');
    expect(server.requests).toHaveLength(3);
  });

  it('27. a reset mid-stream after text: StreamInterruptedError with the partial text, not retried', async () => {
    server.enqueue({ stream: [text(0, 'The weather '), text(0, 'in Paris'), { reset: true }] });
    const parts = await streamParts();
    const error = lastError(parts);
    expect(StreamInterruptedError.isInstance(error), String(error)).toBe(true);
    expect((error as StreamInterruptedError).partialText).toBe('The weather in Paris');
    expect(server.requests).toHaveLength(1);
  });

  it('28. a reset in the middle of a tool call input: no tool call surfaces', async () => {
    server.enqueue({
      stream: [
        text(0, 'Checking.'),
        stop(0),
        toolStart(1, 'tooluse_1', 'get_weather'),
        toolInput(1, '{"city": "Par'),
        { reset: true },
      ],
    });
    const parts = await streamParts();
    expect(parts.some((part) => part.type === 'tool-call')).toBe(false);
    const error = lastError(parts);
    expect(StreamInterruptedError.isInstance(error), String(error)).toBe(true);
    expect((error as StreamInterruptedError).partialText).toBe('Checking.');
  });

  it('29. an HTTP/2 RST_STREAM mid-stream: StreamInterruptedError with the partial text', async () => {
    server.enqueue({ stream: [text(0, 'Half an answer'), { rstStream: true }] });
    const error = lastError(await streamParts());
    expect(StreamInterruptedError.isInstance(error), String(error)).toBe(true);
    expect((error as StreamInterruptedError).partialText).toBe('Half an answer');
  });
});

describe('malformed streams and in-stream exceptions (item 19)', () => {
  it('30. a frame with a broken checksum: StreamInterruptedError with the partial text', async () => {
    const broken = encodeEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'lost' } });
    broken[broken.length - 6] = (broken[broken.length - 6] ?? 0) ^ 0xff;
    server.enqueue({ stream: [text(0, 'Before'), { raw: broken }, messageStop('end_turn')] });
    const error = lastError(await streamParts());
    expect(StreamInterruptedError.isInstance(error), String(error)).toBe(true);
    expect((error as StreamInterruptedError).partialText).toBe('Before');
  });

  it('31. a truncated frame at the end of the body: StreamInterruptedError', async () => {
    const frame = encodeEvent('messageStop', { stopReason: 'end_turn' });
    server.enqueue({ stream: [text(0, 'Almost'), { raw: frame.slice(0, frame.length - 5) }] });
    const error = lastError(await streamParts());
    expect(StreamInterruptedError.isInstance(error), String(error)).toBe(true);
    expect((error as StreamInterruptedError).partialText).toBe('Almost');
  });

  it('32. invalid JSON in an event body: a typed error carrying the partial text', async () => {
    const { EventStreamCodec } = await import('@smithy/eventstream-codec');
    const { fromUtf8, toUtf8 } = await import('@smithy/util-utf8');
    const invalid = new EventStreamCodec(toUtf8, fromUtf8).encode({
      headers: {
        ':event-type': { type: 'string', value: 'contentBlockDelta' },
        ':content-type': { type: 'string', value: 'application/json' },
        ':message-type': { type: 'string', value: 'event' },
      },
      body: fromUtf8('{"contentBlockIndex":0,"delta":{"text":"x"'),
    });
    server.enqueue({ stream: [text(0, 'Valid part'), { raw: invalid }, messageStop('end_turn')] });
    const error = lastError(await streamParts());
    expect(StreamInterruptedError.isInstance(error), String(error)).toBe(true);
    expect((error as StreamInterruptedError).partialText).toBe('Valid part');
  });

  it('33. unknown event types are ignored', async () => {
    server.enqueue({
      stream: [
        { event: 'futureEventType', payload: { anything: true } },
        text(0, 'Fine'),
        { event: 'anotherNewEvent', payload: {} },
        messageStop('end_turn'),
        metadata,
      ],
    });
    const parts = await streamParts();
    expect(parts).toEqual([
      { type: 'text-delta', delta: 'Fine' },
      expect.objectContaining({ type: 'finish', finishReason: 'stop' }),
    ]);
  });

  it('34. a stream that ends without messageStop: StreamInterruptedError, no tool call', async () => {
    server.enqueue({
      stream: [
        text(0, 'Partial'),
        stop(0),
        toolStart(1, 't1', 'get_weather'),
        toolInput(1, '{"city":"Paris"}'),
        stop(1),
      ],
    });
    const parts = await streamParts();
    expect(parts.some((part) => part.type === 'tool-call')).toBe(false);
    const error = lastError(parts);
    expect(StreamInterruptedError.isInstance(error)).toBe(true);
    expect((error as StreamInterruptedError).partialText).toBe('Partial');
  });

  it('35. in-stream throttlingException → RateLimitError', async () => {
    server.enqueue({
      stream: [
        text(0, 'Start'),
        { exception: 'throttlingException', payload: { message: 'Too many tokens' } },
      ],
    });
    const error = lastError(await streamParts());
    expect(RateLimitError.isInstance(error), String(error)).toBe(true);
    expect(error.message).toContain('Too many tokens');
    expect(server.requests).toHaveLength(1);
  });

  it('36. in-stream modelStreamErrorException → StreamInterruptedError with the partial text', async () => {
    server.enqueue({
      stream: [
        text(0, 'Some text'),
        {
          exception: 'modelStreamErrorException',
          payload: { message: 'Model stream error', originalStatusCode: 500, originalMessage: 'boom' },
        },
      ],
    });
    const error = lastError(await streamParts());
    expect(StreamInterruptedError.isInstance(error), String(error)).toBe(true);
    expect((error as StreamInterruptedError).partialText).toBe('Some text');
    expect((error as StreamInterruptedError).providerCode).toBe('ModelStreamErrorException');
  });

  it.each([
    ['37. serviceUnavailableException', 'serviceUnavailableException', ProviderUnavailableError],
    ['38. internalServerException', 'internalServerException', ProviderUnavailableError],
    ['39. validationException', 'validationException', InvalidRequestError],
  ] as const)('%s in the stream → its core error', async (_name, exception, errorClass) => {
    server.enqueue({ stream: [text(0, 'x'), { exception, payload: { message: `${exception} happened` } }] });
    const error = lastError(await streamParts());
    expect(errorClass.isInstance(error), String(error)).toBe(true);
    expect(error.message).toContain(`${exception} happened`);
  });

  it('40. messageStop max_tokens in the middle of a tool input → IncompleteToolCallError, no tool call', async () => {
    server.enqueue({
      stream: [
        toolStart(0, 'tooluse_9', 'get_weather'),
        toolInput(0, '{"city": "Pa'),
        messageStop('max_tokens'),
        metadata,
      ],
    });
    const parts = await streamParts();
    expect(parts.some((part) => part.type === 'tool-call')).toBe(false);
    const error = lastError(parts);
    expect(IncompleteToolCallError.isInstance(error), String(error)).toBe(true);
    expect((error as IncompleteToolCallError).partialArguments).toBe('{"city": "Pa');
    expect((error as IncompleteToolCallError).toolName).toBe('get_weather');
  });

  it('41. generate with a max_tokens stop on a trailing toolUse → IncompleteToolCallError', async () => {
    server.enqueue({
      json: {
        output: {
          message: {
            role: 'assistant',
            content: [
              { text: 'Let me check' },
              { toolUse: { toolUseId: 't1', name: 'get_weather', input: {} } },
            ],
          },
        },
        stopReason: 'max_tokens',
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      },
    });
    const error = await generateError();
    expect(IncompleteToolCallError.isInstance(error), String(error)).toBe(true);
  });

  it('42. a toolUse fragment for a block that never started: typed malformed-stream error', async () => {
    server.enqueue({ stream: [text(0, 'a'), toolInput(3, '{"x":1}'), messageStop('tool_use')] });
    const error = lastError(await streamParts());
    expect(StreamInterruptedError.isInstance(error)).toBe(true);
    expect((error as StreamInterruptedError).providerCode).toBe('malformed_event_stream');
  });
});

describe('hostile or unusual answers', () => {
  it('47. a tool input holding __proto__ / constructor keys is passed on as text, and no prototype changes', async () => {
    const hostile =
      '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"city":"Paris"}';
    server.enqueue(
      {
        json: JSON.parse(
          `{"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"t1","name":"get_weather","input":${hostile}}}]}},"stopReason":"tool_use","usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2}}`,
        ),
      },
      {
        stream: [toolStart(0, 't2', 'get_weather'), toolInput(0, hostile), stop(0), messageStop('tool_use')],
      },
    );
    const model = createTestBedrock(server).provider(MODEL_ID);
    const generated = await model.generate(REQUEST);
    const parts = await streamParts();
    // Converse (generate): the SDK's JSON document deserializer assigns keys, so it drops a "__proto__" key (and
    // pollutes nothing); the rest arrives as plain data. ConverseStream: the raw input text is passed on as is.
    expect(generated.toolCalls[0]?.arguments).toBe(
      '{"constructor":{"prototype":{"polluted":true}},"city":"Paris"}',
    );
    expect(parts.find((part) => part.type === 'tool-call')).toMatchObject({
      toolCall: { arguments: hostile },
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('48. a guardrail intervention is a content-filter finish with the raw reason kept', async () => {
    server.enqueue({
      json: {
        output: { message: { role: 'assistant', content: [{ text: 'Sorry, I cannot help with that.' }] } },
        stopReason: 'guardrail_intervened',
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      },
    });
    const response = await createTestBedrock(server).provider(MODEL_ID).generate(REQUEST);
    expect(response.finishReason).toBe('content-filter');
    expect(response.rawFinishReason).toBe('guardrail_intervened');
  });
});

describe('closing what was opened', () => {
  it('44. a consumer that stops reading early closes the HTTP/2 stream', async () => {
    server.enqueue({ stream: [text(0, 'first'), { hang: true }] });
    const model = createTestBedrock(server).provider(MODEL_ID);
    for await (const part of model.stream(REQUEST)) {
      expect(part).toEqual({ type: 'text-delta', delta: 'first' });
      break;
    }
    await vi.waitFor(() => expect(server.released()).toBe(1));
  });

  it('45. an abort mid-stream ends with AbortedError and closes the stream', async () => {
    server.enqueue({ stream: [text(0, 'partial'), { hang: true }] });
    const controller = new AbortController();
    const model = createTestBedrock(server).provider(MODEL_ID);
    const parts: StreamPart[] = [];
    for await (const part of model.stream({ ...REQUEST, signal: controller.signal })) {
      parts.push(part);
      if (part.type === 'text-delta') controller.abort(new Error('user cancelled'));
    }
    expect(AbortedError.isInstance(lastError(parts))).toBe(true);
    await vi.waitFor(() => expect(server.released()).toBe(1));
  });
});

describe('a planted secret appears nowhere (item 20)', () => {
  it('46. secret key and session token echoed by the service are in no error, part, inspection or log line', async () => {
    const logged: string[] = [];
    const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((method) =>
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        logged.push(args.map((arg) => inspect(arg, { depth: 8 })).join(' '));
      }),
    );
    try {
      const echo = (token: unknown): string =>
        `The security token ${String(token)} is invalid; secret ${FAKE_CREDENTIALS.secretAccessKey}; ` +
        `key ${FAKE_CREDENTIALS.accessKeyId}`;
      server.enqueue(
        (request) => ({
          errorType: 'UnrecognizedClientException',
          status: 403,
          message: echo(request.headers['x-amz-security-token']),
        }),
        (request) => ({
          stream: [
            text(0, 'ok'),
            {
              exception: 'throttlingException',
              payload: { message: echo(request.headers['x-amz-security-token']) },
            },
          ],
        }),
        (request) => ({
          status: 500,
          body: echo(request.headers['x-amz-security-token']),
          headers: { 'content-type': 'text/plain' },
        }),
      );
      expect(server.requests).toHaveLength(0);
      const thrown = await generateError();
      const parts = await streamParts();
      const third = await generateError({ retry: { maxRetries: 0 } });
      expect(server.requests[0]?.headers['x-amz-security-token']).toBe(FAKE_CREDENTIALS.sessionToken);

      const surfaces = [thrown, third, ...parts].map((value) =>
        [
          inspect(value, { depth: 12, showHidden: true }),
          JSON.stringify(value),
          JSON.stringify((value as { toJSON?: () => unknown }).toJSON?.() ?? null),
          String((value as Error).stack),
        ].join('\n'),
      );
      for (const surface of [...surfaces, ...logged]) {
        expect(surface).not.toContain(FAKE_CREDENTIALS.secretAccessKey);
        expect(surface).not.toContain(FAKE_CREDENTIALS.sessionToken);
        expect(surface).not.toContain(FAKE_CREDENTIALS.accessKeyId);
      }
      expect(AuthenticationError.isInstance(thrown)).toBe(true);
      expect((thrown as Error).message).toContain('[REDACTED]');
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });

  it('47. a logger given in clientConfig only ever sees redacted lines', async () => {
    const logged: unknown[] = [];
    const record = (...args: unknown[]): void => {
      logged.push(args);
    };
    const logger = { trace: record, debug: record, info: record, warn: record, error: record };
    server.enqueue({
      json: {
        output: {
          message: { role: 'assistant', content: [{ text: `echo ${FAKE_CREDENTIALS.secretAccessKey}` }] },
        },
        stopReason: 'end_turn',
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      },
    });
    const model = createTestBedrock(server, { provider: { clientConfig: { logger } } }).provider(MODEL_ID);
    await model.generate({
      messages: [{ role: 'user', content: `My key is ${FAKE_CREDENTIALS.secretAccessKey}, keep it.` }],
    });
    // The SDK logs the command's input and output at info level: both held the secret.
    expect(logged.length).toBeGreaterThan(0);
    const lines = inspect(logged, { depth: 16 });
    expect(lines).toContain('[REDACTED]');
    expect(lines).not.toContain(FAKE_CREDENTIALS.secretAccessKey);
  });
});
