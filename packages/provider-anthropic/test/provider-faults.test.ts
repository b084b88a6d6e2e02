import { inspect } from 'node:util';
import { APIError } from '@anthropic-ai/sdk';
import {
  AbortedError,
  AuthenticationError,
  ContextLengthExceededError,
  collectStream,
  InvalidRequestError,
  type ModelRequest,
  OrgError,
  ProviderError,
  ProviderUnavailableError,
  RateLimitError,
  StreamInterruptedError,
  type StreamPart,
  TimeoutError,
  ToolChoice,
  type ToolSpec,
} from '@org/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropic, MalformedStreamError } from '../src/index.js';
import {
  type FakeAnthropicServer,
  type FakeReply,
  type MessageLike,
  messageToEvents,
  startFakeAnthropicServer,
} from './fake-anthropic-server.js';
import { recordSleeps, TEST_API_KEY, testProvider } from './test-provider.js';

// Issue 11, items 16-20 (provider faults), for Anthropic: every case goes through the real SDK to a local server.

let server: FakeAnthropicServer;
beforeEach(async () => {
  server = await startFakeAnthropicServer();
});
afterEach(async () => {
  await server.close();
});

const tools: ToolSpec[] = [
  {
    name: 'get_weather',
    description: 'Weather for a city.',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];
const request: ModelRequest = { messages: [{ role: 'user', content: 'Weather in Paris?' }], tools };

const answer: MessageLike = {
  id: 'msg_ok',
  model: 'claude-sonnet-5-5',
  content: [{ type: 'text', text: 'Sunny in Paris.' }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 9, output_tokens: 4 },
};
const okJson: FakeReply = { type: 'json', body: { type: 'message', role: 'assistant', ...answer } };
const okStream: FakeReply = { type: 'sse', events: messageToEvents(answer) };

const errorReply = (
  status: number,
  type: string,
  message: string,
  headers?: Record<string, string>,
): FakeReply => ({
  type: 'json',
  status,
  body: { type: 'error', error: { type, message }, request_id: 'req_fake_1' },
  ...(headers === undefined ? {} : { headers }),
});

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    expectCleanCauseChain(error);
    return error;
  }
  throw new Error('expected a failure');
}

async function partsOf(stream: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

function streamError(parts: StreamPart[]): unknown {
  const last = parts[parts.length - 1];
  expect(last?.type).toBe('error');
  expect(parts.filter((part) => part.type === 'error' || part.type === 'finish')).toHaveLength(1);
  const error = (last as { error: unknown }).error;
  expectCleanCauseChain(error);
  return error;
}

/** What `console.error(error)` prints, cause chain included, never holds the key. */
function expectCleanCauseChain(error: unknown): void {
  expect(inspect(error, { depth: 10 })).not.toContain(TEST_API_KEY);
  expect(inspect(error, { depth: 10, showHidden: true })).not.toContain(TEST_API_KEY);
}

describe('16. rate limits (429)', () => {
  it('waits the retry-after of 2 s and retries within the budget', async () => {
    const sleeps = recordSleeps();
    server.enqueue(
      errorReply(429, 'rate_limit_error', 'Number of requests has exceeded your rate limit.', {
        'retry-after': '2',
      }),
      okJson,
    );
    const response = await testProvider(server, { maxRetries: 2, sleeps })('m').generate(request);
    expect(response.text).toBe('Sunny in Paris.');
    expect(sleeps.waits).toEqual([2000]);
    expect(server.requests).toHaveLength(2);
  });

  it('fails fast with the wait when retry-after (3600 s) is beyond the budget', async () => {
    const sleeps = recordSleeps();
    server.enqueue(errorReply(429, 'rate_limit_error', 'Rate limited.', { 'retry-after': '3600' }), okJson);
    const error = await failureOf(testProvider(server, { maxRetries: 3, sleeps })('m').generate(request));
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect((error as RateLimitError).retryAfterMs).toBe(3_600_000);
    expect((error as RateLimitError).retryable).toBe(true);
    expect((error as RateLimitError).statusCode).toBe(429);
    expect(sleeps.waits).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry when the server says x-should-retry: false', async () => {
    const sleeps = recordSleeps();
    server.enqueue(
      errorReply(429, 'rate_limit_error', 'Quota exhausted.', {
        'x-should-retry': 'false',
        'retry-after': '1',
      }),
      okJson,
    );
    const error = await failureOf(testProvider(server, { maxRetries: 3, sleeps })('m').generate(request));
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect((error as RateLimitError).retryable).toBe(false);
    expect((error as RateLimitError).retryAfterMs).toBe(1000);
    expect(server.requests).toHaveLength(1);
    expect(sleeps.waits).toEqual([]);
  });

  it('honours retry-after-ms, and an HTTP date in retry-after', async () => {
    const sleeps = recordSleeps();
    const inFiveSeconds = new Date(Date.now() + 5000).toUTCString();
    server.enqueue(
      errorReply(429, 'rate_limit_error', 'slow down', { 'retry-after-ms': '250' }),
      errorReply(429, 'rate_limit_error', 'slow down', { 'retry-after': inFiveSeconds }),
      okJson,
    );
    await testProvider(server, { maxRetries: 2, sleeps })('m').generate(request);
    expect(sleeps.waits[0]).toBe(250);
    expect(sleeps.waits[1]).toBeGreaterThan(0);
    expect(sleeps.waits[1]).toBeLessThanOrEqual(5000);
  });

  it('maps a 429 with no retry budget left to RateLimitError with the requested wait', async () => {
    server.enqueue(errorReply(429, 'rate_limit_error', 'Rate limited.', { 'retry-after': '7' }));
    const error = await failureOf(testProvider(server, { maxRetries: 0 })('m').generate(request));
    expect(error).toMatchObject({
      code: 'rate_limited',
      retryAfterMs: 7000,
      providerCode: 'rate_limit_error',
      requestId: undefined,
    });
  });
});

describe('17. server errors retried, client errors not', () => {
  for (const [status, type] of [
    [500, 'api_error'],
    [502, 'api_error'],
    [503, 'api_error'],
    [529, 'overloaded_error'],
  ] as const) {
    it(`retries ${status} ${type} with backoff, then succeeds`, async () => {
      const sleeps = recordSleeps();
      server.enqueue(errorReply(status, type, 'temporary'), okJson);
      const response = await testProvider(server, { maxRetries: 2, sleeps })('m').generate(request);
      expect(response.text).toBe('Sunny in Paris.');
      expect(server.requests).toHaveLength(2);
      expect(sleeps.waits).toHaveLength(1);
      expect(sleeps.waits[0]).toBeGreaterThan(0);
      expect(sleeps.waits[0]).toBeLessThanOrEqual(500);
    });
  }

  it('retries a 529 before a stream starts, then streams', async () => {
    server.enqueue(errorReply(529, 'overloaded_error', 'Overloaded'), okStream);
    const response = await collectStream(testProvider(server, { maxRetries: 1 })('m').stream(request));
    expect(response.text).toBe('Sunny in Paris.');
    expect(server.requests).toHaveLength(2);
  });

  it('gives up after the budget with a retryable ProviderUnavailableError (529 overloaded)', async () => {
    const sleeps = recordSleeps();
    server.enqueue(...Array.from({ length: 3 }, () => errorReply(529, 'overloaded_error', 'Overloaded')));
    const error = await failureOf(testProvider(server, { maxRetries: 2, sleeps })('m').generate(request));
    expect(ProviderUnavailableError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ statusCode: 529, providerCode: 'overloaded_error', retryable: true });
    expect(server.requests).toHaveLength(3);
    expect(sleeps.waits).toHaveLength(2);
    expect(sleeps.waits[1]).toBeGreaterThan(sleeps.waits[0] ?? 0);
  });

  it('retries even a 401 when the server says x-should-retry: true', async () => {
    server.enqueue(
      errorReply(401, 'authentication_error', 'token being rotated', { 'x-should-retry': 'true' }),
      okJson,
    );
    const response = await testProvider(server, { maxRetries: 1 })('m').generate(request);
    expect(response.text).toBe('Sunny in Paris.');
    expect(server.requests).toHaveLength(2);
  });

  it('400 → InvalidRequestError with the API’s own message, no retry', async () => {
    server.enqueue(
      errorReply(
        400,
        'invalid_request_error',
        'messages.1.content.0.tool_use.input: Input should be a valid dictionary',
      ),
      okJson,
    );
    const error = await failureOf(testProvider(server, { maxRetries: 3 })('m').generate(request));
    expect(InvalidRequestError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(
      'messages.1.content.0.tool_use.input: Input should be a valid dictionary',
    );
    expect(error).toMatchObject({
      statusCode: 400,
      providerCode: 'invalid_request_error',
      retryable: false,
      requestId: undefined,
    });
    expect(server.requests).toHaveLength(1);
  });

  it('401 → AuthenticationError, no retry', async () => {
    server.enqueue(errorReply(401, 'authentication_error', 'invalid x-api-key'), okJson);
    const error = await failureOf(testProvider(server, { maxRetries: 3 })('m').generate(request));
    expect(AuthenticationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ statusCode: 401, retryable: false });
    expect(server.requests).toHaveLength(1);
  });

  it('403 → AuthenticationError (permission), no retry', async () => {
    server.enqueue(
      errorReply(
        403,
        'permission_error',
        'Your API key does not have permission to use the specified resource.',
      ),
    );
    const error = await failureOf(testProvider(server, { maxRetries: 3 })('m').generate(request));
    expect(AuthenticationError.isInstance(error)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('422 and 404 → InvalidRequestError, no retry', async () => {
    server.enqueue(
      errorReply(422, 'invalid_request_error', 'unprocessable'),
      errorReply(404, 'not_found_error', 'model: claude-nope'),
    );
    const model = testProvider(server, { maxRetries: 3 })('claude-nope');
    for (const status of [422, 404]) {
      const error = await failureOf(model.generate(request));
      expect(InvalidRequestError.isInstance(error)).toBe(true);
      expect((error as InvalidRequestError).statusCode).toBe(status);
    }
    expect(server.requests).toHaveLength(2);
  });

  it('a prompt that does not fit → ContextLengthExceededError', async () => {
    server.enqueue(
      errorReply(400, 'invalid_request_error', 'prompt is too long: 215000 tokens > 200000 maximum'),
    );
    const error = await failureOf(testProvider(server)('m').generate(request));
    expect(ContextLengthExceededError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('prompt is too long: 215000 tokens > 200000 maximum');
  });

  it('a stream request that fails with 400 yields one error part', async () => {
    server.enqueue(errorReply(400, 'invalid_request_error', 'tools.0.name: String should match pattern'));
    const error = streamError(await partsOf(testProvider(server)('m').stream(request)));
    expect(InvalidRequestError.isInstance(error)).toBe(true);
  });
});

describe('18. connection resets', () => {
  it('retries a reset before the headers as a connection error, then succeeds', async () => {
    const sleeps = recordSleeps();
    server.enqueue({ type: 'reset' }, okJson);
    const response = await testProvider(server, { maxRetries: 1, sleeps })('m').generate(request);
    expect(response.text).toBe('Sunny in Paris.');
    expect(server.requests).toHaveLength(2);
    expect(sleeps.waits).toHaveLength(1);
  });

  it('maps resets beyond the budget to a retryable ProviderUnavailableError', async () => {
    server.enqueue({ type: 'reset' }, { type: 'reset' });
    const error = await failureOf(testProvider(server, { maxRetries: 1 })('m').generate(request));
    expect(ProviderUnavailableError.isInstance(error)).toBe(true);
    expect((error as ProviderUnavailableError).retryable).toBe(true);
  });

  it('a reset in the middle of a stream → StreamInterruptedError with the partial text, no incomplete tool call', async () => {
    const events = messageToEvents(
      {
        id: 'msg_cut',
        content: [
          { type: 'text', text: 'Let me look that up.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
        ],
        stop_reason: 'tool_use',
        usage: { input_tokens: 1, output_tokens: 1 },
      },
      4,
    );
    // Cut inside the tool call's arguments.
    const cut = events.findIndex((event) => JSON.stringify(event).includes('"partial_json":"ty\\"'));
    expect(cut).toBeGreaterThan(0);
    server.enqueue({ type: 'sse', events: events.slice(0, cut + 1), ending: 'destroy' });
    const parts = await partsOf(testProvider(server, { maxRetries: 3 })('m').stream(request));
    const error = streamError(parts);
    expect(StreamInterruptedError.isInstance(error)).toBe(true);
    expect((error as StreamInterruptedError).partialText).toBe('Let me look that up.');
    expect((error as StreamInterruptedError).retryable).toBe(true);
    expect(parts.some((part) => part.type === 'tool-call')).toBe(false);
    expect(server.requests).toHaveLength(1);
  });
});

describe('19. malformed streams', () => {
  const start = messageToEvents(answer).slice(0, 4);

  it('invalid JSON in an event → MalformedStreamError (invalid-json) with the partial text', async () => {
    server.enqueue({
      type: 'sse',
      events: [...start, 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,\n\n'],
    });
    const error = streamError(await partsOf(testProvider(server)('m').stream(request)));
    expect(MalformedStreamError.isInstance(error)).toBe(true);
    expect(StreamInterruptedError.isInstance(error)).toBe(true);
    expect((error as MalformedStreamError).reason).toBe('invalid-json');
    expect((error as MalformedStreamError).partialText).toBe('Sunny i');
  });

  it('a stream that ends without message_stop → MalformedStreamError (missing-message-stop)', async () => {
    const events = messageToEvents(answer);
    server.enqueue({ type: 'sse', events: events.slice(0, -1) });
    const parts = await partsOf(testProvider(server)('m').stream(request));
    const error = streamError(parts);
    expect((error as MalformedStreamError).reason).toBe('missing-message-stop');
    expect((error as MalformedStreamError).partialText).toBe('Sunny in Paris.');
  });

  it('an empty event stream → MalformedStreamError, not a silent empty answer', async () => {
    server.enqueue({ type: 'sse', events: [] });
    const error = streamError(await partsOf(testProvider(server)('m').stream(request)));
    expect(MalformedStreamError.isInstance(error)).toBe(true);
  });

  it('unknown events and messages without an event line are ignored', async () => {
    const events = messageToEvents(answer);
    server.enqueue({
      type: 'sse',
      events: [
        events[0] ?? {},
        { type: 'brand_new_event', payload: { nested: true } },
        'data: {"type":"content_block_start","index":7,"content_block":{"type":"text","text":"ghost"}}\n\n',
        ': a comment line\n\n',
        ...events.slice(1),
      ],
    });
    const response = await collectStream(testProvider(server)('m').stream(request));
    expect(response.text).toBe('Sunny in Paris.');
    expect(response.finishReason).toBe('stop');
  });

  it('an in-stream overloaded_error → retryable ProviderUnavailableError', async () => {
    server.enqueue({
      type: 'sse',
      events: [...start, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }],
    });
    const parts = await partsOf(testProvider(server)('m').stream(request));
    const error = streamError(parts);
    expect(ProviderUnavailableError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ providerCode: 'overloaded_error', retryable: true });
    expect(
      parts
        .filter((part) => part.type === 'text-delta')
        .map((part) => (part as { delta: string }).delta)
        .join(''),
    ).toBe('Sunny i');
  });

  it('an in-stream rate_limit_error → RateLimitError', async () => {
    server.enqueue({
      type: 'sse',
      events: [...start, { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }],
    });
    const error = streamError(await partsOf(testProvider(server)('m').stream(request)));
    expect(RateLimitError.isInstance(error)).toBe(true);
  });

  it('a different message_start while a message is open → MalformedStreamError (spliced-message)', async () => {
    const second = messageToEvents({ ...answer, id: 'msg_other' });
    server.enqueue({ type: 'sse', events: [...start, ...second] });
    const parts = await partsOf(testProvider(server)('m').stream(request));
    const error = streamError(parts);
    expect((error as MalformedStreamError).reason).toBe('spliced-message');
    expect(parts.some((part) => part.type === 'finish')).toBe(false);
  });

  it('a delta for a block that never started → MalformedStreamError (unexpected-event)', async () => {
    server.enqueue({
      type: 'sse',
      events: [
        ...start,
        {
          type: 'content_block_delta',
          index: 4,
          delta: { type: 'input_json_delta', partial_json: '{"city":' },
        },
      ],
    });
    const error = streamError(await partsOf(testProvider(server)('m').stream(request)));
    expect((error as MalformedStreamError).reason).toBe('unexpected-event');
  });

  it('a 200 whose body is not JSON → a typed ProviderError, not a crash', async () => {
    server.enqueue({
      type: 'sse',
      events: ['this is not json'],
      headers: { 'content-type': 'application/json' },
    });
    const error = await failureOf(testProvider(server)('m').generate(request));
    expect(ProviderError.isInstance(error) || OrgError.isInstance(error)).toBe(true);
  });
});

describe('aborts and timeouts', () => {
  it('an aborted signal before the request → AbortedError, nothing sent', async () => {
    const controller = new AbortController();
    controller.abort(new Error('user cancelled'));
    const model = testProvider(server)('m');
    const error = await failureOf(model.generate({ ...request, signal: controller.signal }));
    expect(AbortedError.isInstance(error)).toBe(true);
    expect(streamError(await partsOf(model.stream({ ...request, signal: controller.signal })))).toSatisfy(
      (error) => AbortedError.isInstance(error),
    );
    expect(server.requests).toHaveLength(0);
  });

  it('an abort in the middle of a stream → AbortedError as the last part', async () => {
    server.enqueue({ type: 'sse', events: messageToEvents(answer).slice(0, 4), ending: 'hang' });
    const controller = new AbortController();
    const parts: StreamPart[] = [];
    for await (const part of testProvider(server)('m').stream({ ...request, signal: controller.signal })) {
      parts.push(part);
      if (part.type === 'text-delta') controller.abort(new Error('user cancelled'));
    }
    expect(AbortedError.isInstance(streamError(parts))).toBe(true);
  });

  it('an abort while a generate request is stalled → AbortedError', async () => {
    server.enqueue({ type: 'stall' });
    const controller = new AbortController();
    const pending = testProvider(server, { maxRetries: 2 })('m').generate({
      ...request,
      signal: controller.signal,
    });
    while (server.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new Error('user cancelled'));
    expect(AbortedError.isInstance(await failureOf(pending))).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('a request that outlives the client timeout → TimeoutError after the retries', async () => {
    server.enqueue({ type: 'stall' }, { type: 'stall' });
    const error = await failureOf(
      testProvider(server, { maxRetries: 1, timeout: 50 })('m').generate(request),
    );
    expect(TimeoutError.isInstance(error)).toBe(true);
    expect((error as TimeoutError).timeoutMs).toBe(50);
    expect(server.requests).toHaveLength(2);
  });

  it('an abort during the wait before a retry → AbortedError, no second request', async () => {
    const controller = new AbortController();
    server.enqueue(errorReply(503, 'api_error', 'unavailable'), okJson);
    const error = await failureOf(
      testProvider(server, {
        maxRetries: 2,
        retry: {
          sleep: async () => {
            controller.abort(new Error('user cancelled'));
            throw controller.signal.reason;
          },
        },
      })('m').generate({ ...request, signal: controller.signal }),
    );
    expect(AbortedError.isInstance(error)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });
});

describe('20. a planted API key never leaks', () => {
  it('appears in no error message, JSON, body, stream error part or SDK log line', async () => {
    const logLines: string[] = [];
    const capture = (...items: unknown[]): void => {
      logLines.push(
        items
          .map((item) => (typeof item === 'string' ? item : (JSON.stringify(item) ?? String(item))))
          .join(' '),
      );
    };
    const model = createAnthropic({
      apiKey: TEST_API_KEY,
      baseURL: server.baseURL,
      maxRetries: 1,
      retry: { sleep: async () => {} },
      clientOptions: {
        logLevel: 'debug',
        logger: { debug: capture, info: capture, warn: capture, error: capture },
      },
    })('m');
    const echo = `invalid x-api-key: ${TEST_API_KEY}`;
    server.enqueue(
      errorReply(401, 'authentication_error', echo, { 'x-echoed-key': TEST_API_KEY }),
      errorReply(500, 'api_error', `upstream said Authorization: Bearer ${TEST_API_KEY}`),
      errorReply(500, 'api_error', `key ${TEST_API_KEY} overloaded`),
      {
        type: 'sse',
        events: [
          ...messageToEvents(answer).slice(0, 3),
          { type: 'error', error: { type: 'api_error', message: echo } },
        ],
      },
    );
    const errors: unknown[] = [
      await failureOf(model.generate(request)),
      await failureOf(model.generate(request)),
      streamError(await partsOf(model.stream(request))),
    ];
    expect(errors.map((error) => (error as OrgError).code)).toEqual([
      'authentication_failed',
      'provider_unavailable',
      'provider_unavailable',
    ]);
    for (const error of errors) {
      const text = [
        String(error),
        (error as Error).message,
        JSON.stringify(error),
        JSON.stringify((error as ProviderError).responseBody),
        inspect(error, { depth: 10 }),
      ].join('\n');
      expect(text).not.toContain(TEST_API_KEY);
      expect(text).toContain('[REDACTED]');
    }
    // The cause is the SDK's own error, scrubbed in place: still an APIError, with its headers readable.
    const cause = (errors[0] as Error).cause;
    expect(cause).toBeInstanceOf(APIError);
    expect((cause as APIError).headers?.get('x-echoed-key')).toBe('[REDACTED]');
    expect(inspect(cause, { depth: 10 })).toContain('[REDACTED]');
    expect(logLines.join('\n')).toContain('[REDACTED]');
    expect(logLines.join('\n')).not.toContain(TEST_API_KEY);
  });

  it('redacts a key of an unknown shape, registered when the provider is created', async () => {
    const oddKey = 'odd-shaped-credential-9f8e7d6c5b4a';
    server.enqueue(errorReply(401, 'authentication_error', `bad key ${oddKey}`));
    const model = createAnthropic({
      apiKey: oddKey,
      baseURL: server.baseURL,
      maxRetries: 0,
      clientOptions: { logLevel: 'off' },
    })('m');
    const error = await failureOf(model.generate({ ...request, toolChoice: ToolChoice.auto() }));
    expect(JSON.stringify(error)).not.toContain(oddKey);
    expect((error as Error).message).not.toContain(oddKey);
    expect(inspect(error, { depth: 10 })).not.toContain(oddKey);
  });
});
