import { inspect } from 'node:util';
import {
  AbortedError,
  AuthenticationError,
  ContextLengthExceededError,
  InvalidRequestError,
  type ModelRequest,
  type ProviderError,
  ProviderUnavailableError,
  RateLimitError,
  StreamInterruptedError,
  type StreamPart,
} from '@org/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createOpenAI } from '../src/index.js';
import {
  errorBody,
  jsonReply,
  resetBeforeHeaders,
  sseReply,
  startFakeOpenAIServer,
} from './fake-openai-server.js';
import { USER_ONLY, WEATHER_TOOL, withTestModel } from './test-provider.js';

const REQUEST: ModelRequest = { messages: USER_ONLY, tools: [WEATHER_TOOL] };
const APIS = ['responses', 'chat'] as const;

const SUCCESS = { type: 'response', text: 'Sunny.', usage: { inputTokens: 3, outputTokens: 2 } } as const;

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

async function parts(stream: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const collected: StreamPart[] = [];
  for await (const part of stream) collected.push(part);
  return collected;
}

const lastError = (collected: readonly StreamPart[]): Error | undefined => {
  const last = collected.at(-1);
  return last?.type === 'error' ? last.error : undefined;
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe.each(APIS)('faults through the real SDK · %s', (api) => {
  it('429 with retry-after: 2 → waits 2 s (on the injected clock), retries, succeeds', async () => {
    await withTestModel({ api }, async ({ server, model, waits }) => {
      server.enqueue(
        { type: 'error', status: 429, message: 'Rate limit reached', headers: { 'retry-after': '2' } },
        SUCCESS,
      );
      const response = await model.generate(REQUEST);
      expect(response.text).toBe('Sunny.');
      expect(waits).toEqual([2000]);
      expect(server.received).toHaveLength(2);
    });
  });

  it('429 with retry-after: 3600 → fails fast with the wait, no retry, no sleep', async () => {
    await withTestModel({ api }, async ({ server, model, waits }) => {
      server.enqueue(
        { type: 'error', status: 429, message: 'Rate limit reached', headers: { 'retry-after': '3600' } },
        SUCCESS,
      );
      const error = await failure(model.generate(REQUEST));
      expect(RateLimitError.isInstance(error)).toBe(true);
      expect((error as RateLimitError).retryAfterMs).toBe(3_600_000);
      expect(waits).toEqual([]);
      expect(server.received).toHaveLength(1);
    });
  });

  it('429 with x-should-retry: false → not retried', async () => {
    await withTestModel({ api }, async ({ server, model, waits }) => {
      server.enqueue(
        {
          type: 'error',
          status: 429,
          message: 'Slow down',
          headers: { 'x-should-retry': 'false', 'retry-after': '1' },
        },
        SUCCESS,
      );
      const error = await failure(model.generate(REQUEST));
      expect(RateLimitError.isInstance(error)).toBe(true);
      expect((error as RateLimitError).retryAfterMs).toBe(1000);
      expect(waits).toEqual([]);
      expect(server.received).toHaveLength(1);
    });
  });

  it('429 with retry-after-ms: 250 and with an HTTP date → the requested waits', async () => {
    await withTestModel({ api }, async ({ server, model, waits }) => {
      const inTwentySeconds = new Date(Date.now() + 20_000).toUTCString();
      server.enqueue(
        { type: 'error', status: 429, message: 'Slow down', headers: { 'retry-after-ms': '250' } },
        { type: 'error', status: 429, message: 'Slow down', headers: { 'retry-after': inTwentySeconds } },
        SUCCESS,
      );
      await model.generate(REQUEST);
      expect(waits[0]).toBe(250);
      expect(waits[1]).toBeGreaterThan(15_000);
      expect(waits[1]).toBeLessThanOrEqual(20_000);
    });
  });

  it('429 insufficient_quota → RateLimitError that is not retryable, not retried', async () => {
    await withTestModel({ api }, async ({ server, model, waits }) => {
      server.enqueue(
        jsonReply(
          429,
          errorBody('You exceeded your current quota.', 'insufficient_quota', 'insufficient_quota'),
        ),
      );
      const error = await failure(model.generate(REQUEST));
      expect(RateLimitError.isInstance(error)).toBe(true);
      expect((error as RateLimitError).retryable).toBe(false);
      expect(waits).toEqual([]);
    });
  });

  for (const status of [500, 502, 503, 529]) {
    it(`${status} then success → retried with back-off, succeeds`, async () => {
      await withTestModel({ api }, async ({ server, model, waits }) => {
        server.enqueue({ type: 'error', status, message: 'Upstream trouble' }, SUCCESS);
        const response = await model.generate(REQUEST);
        expect(response.text).toBe('Sunny.');
        expect(server.received).toHaveLength(2);
        expect(waits).toHaveLength(1);
        expect(waits[0]).toBeGreaterThan(0);
        expect(waits[0]).toBeLessThanOrEqual(500);
      });
    });
  }

  it('500 on every attempt → ProviderUnavailableError after 1 + maxRetries attempts', async () => {
    await withTestModel({ api, provider: { maxRetries: 2 } }, async ({ server, model, waits }) => {
      server.enqueue(
        { type: 'error', status: 500, message: 'boom 1' },
        { type: 'error', status: 500, message: 'boom 2' },
        { type: 'error', status: 500, message: 'boom 3' },
      );
      const error = await failure(model.generate(REQUEST));
      expect(ProviderUnavailableError.isInstance(error)).toBe(true);
      expect((error as ProviderUnavailableError).message).toContain('boom 3');
      expect(server.received).toHaveLength(3);
      expect(waits).toHaveLength(2);
      // Equal jitter: the first wait is in [250, 500), the second in [500, 1000); only their order is certain.
      expect(waits[1]!).toBeGreaterThan(waits[0]!);
    });
  });

  for (const [status, check] of [
    [400, InvalidRequestError],
    [401, AuthenticationError],
    [403, AuthenticationError],
    [404, InvalidRequestError],
    [422, InvalidRequestError],
  ] as const) {
    it(`${status} → ${check.name} with the API's message, never retried`, async () => {
      await withTestModel({ api }, async ({ server, model, waits }) => {
        server.enqueue({ type: 'error', status, message: `The API says no (${status}).` }, SUCCESS);
        const error = await failure(model.generate(REQUEST));
        expect(check.isInstance(error)).toBe(true);
        expect((error as ProviderError).message).toContain(`The API says no (${status}).`);
        expect((error as ProviderError).statusCode).toBe(status);
        expect(server.received).toHaveLength(1);
        expect(waits).toEqual([]);
      });
    });
  }

  it('context length exceeded → ContextLengthExceededError, not retried', async () => {
    await withTestModel({ api }, async ({ server, model }) => {
      server.enqueue(
        jsonReply(
          400,
          errorBody(
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
            'context_length_exceeded',
          ),
        ),
      );
      const error = await failure(model.generate(REQUEST));
      expect(ContextLengthExceededError.isInstance(error)).toBe(true);
      expect((error as ContextLengthExceededError).providerCode).toBe('context_length_exceeded');
    });
  });

  it('a proxy answering 502 with an HTML page → ProviderUnavailableError', async () => {
    await withTestModel({ api, provider: { maxRetries: 0 } }, async ({ server, model }) => {
      server.enqueue({
        type: 'raw',
        handle: ({ response }) => {
          response.writeHead(502, { 'content-type': 'text/html' });
          response.end('<html><body>502 Bad Gateway</body></html>');
        },
      });
      const error = await failure(model.generate(REQUEST));
      expect(ProviderUnavailableError.isInstance(error)).toBe(true);
      expect((error as ProviderUnavailableError).statusCode).toBe(502);
    });
  });

  it('a connection reset before the headers → retried as a connection error, then succeeds', async () => {
    await withTestModel({ api }, async ({ server, model, waits }) => {
      server.enqueue(resetBeforeHeaders(), SUCCESS);
      const response = await model.generate(REQUEST);
      expect(response.text).toBe('Sunny.');
      expect(server.received).toHaveLength(2);
      expect(waits).toHaveLength(1);
    });
  });

  it('a connection reset before the headers on every attempt → ProviderUnavailableError', async () => {
    await withTestModel({ api, provider: { maxRetries: 1 } }, async ({ server, model }) => {
      server.enqueue(resetBeforeHeaders(), resetBeforeHeaders());
      const error = await failure(model.generate(REQUEST));
      expect(ProviderUnavailableError.isInstance(error)).toBe(true);
      expect((error as ProviderUnavailableError).providerCode).toBe('connection_error');
      expect(server.received).toHaveLength(2);
    });
  });

  it('a streamed request reset before the headers is retried too', async () => {
    await withTestModel({ api }, async ({ server, model }) => {
      server.enqueue(resetBeforeHeaders(), SUCCESS);
      const collected = await parts(model.stream(REQUEST));
      expect(collected.at(-1)?.type).toBe('finish');
      expect(server.received).toHaveLength(2);
    });
  });

  it('a reset mid-stream → StreamInterruptedError with the partial text, the cut call never surfaces', async () => {
    await withTestModel({ api }, async ({ server, model }) => {
      server.enqueue({
        type: 'disconnect',
        text: 'Looking up Par',
        partialToolCall: { id: 'call_cut', toolName: 'get_weather', partialArguments: '{"city":"Pa' },
      });
      const collected = await parts(model.stream(REQUEST));
      expect(collected.some((part) => part.type === 'tool-call')).toBe(false);
      const error = lastError(collected);
      expect(StreamInterruptedError.isInstance(error)).toBe(true);
      expect((error as StreamInterruptedError).partialText).toBe('Looking up Par');
      expect((error as StreamInterruptedError).retryable).toBe(true);
      expect(server.received).toHaveLength(1);
    });
  });

  it('a consumer that stops reading early releases the connection (the server sees it close)', async () => {
    await withTestModel({ api }, async ({ server, model }) => {
      let closed: Promise<void> = Promise.resolve();
      server.enqueue({
        type: 'raw',
        handle: ({ response, socket, body }) => {
          closed = new Promise((resolve) => socket.once('close', () => resolve()));
          response.writeHead(200, { 'content-type': 'text/event-stream' });
          const delta =
            body.input === undefined
              ? { choices: [{ index: 0, delta: { content: 'First words' }, finish_reason: null }] }
              : { type: 'response.output_text.delta', delta: 'First words' };
          response.write(`data: ${JSON.stringify(delta)}\n\n`);
        },
      });
      for await (const part of model.stream(REQUEST)) {
        expect(part).toEqual({ type: 'text-delta', delta: 'First words' });
        break;
      }
      await closed;
    });
  });

  it('retries are abortable: an abort during the back-off ends the call at once', async () => {
    const controller = new AbortController();
    await withTestModel(
      {
        api,
        provider: {
          retry: {
            sleep: (_milliseconds, signal) =>
              new Promise((_, reject) => {
                signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
                controller.abort(new Error('user gave up'));
              }),
          },
        },
      },
      async ({ server, model }) => {
        server.enqueue({ type: 'error', status: 503, message: 'busy' }, SUCCESS);
        const error = await failure(model.generate({ ...REQUEST, signal: controller.signal }));
        expect(AbortedError.isInstance(error)).toBe(true);
        expect(server.received).toHaveLength(1);
      },
    );
  });

  it('a planted API key of no known shape appears in no error, part or log line', async () => {
    const planted = 'planted-credential-QzX81wErTy55Lm0';
    const logged: string[] = [];
    for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        logged.push(args.map((arg) => inspect(arg, { depth: 8 })).join(' '));
      });
    }
    const server = await startFakeOpenAIServer();
    try {
      const model = createOpenAI({ apiKey: planted, baseURL: server.baseURL, maxRetries: 0 })('gpt-test', {
        api,
      });
      // OpenAI echoes the key it was given in a 401; the invalid event is logged by the SDK.
      server.enqueue(
        jsonReply(
          401,
          errorBody(
            `Incorrect API key provided: ${planted}. Find your key at platform.openai.com.`,
            'invalid_api_key',
          ),
        ),
        jsonReply(400, errorBody(`Bad request for key=${planted}`)),
        sseReply([`{"broken": "${planted}"`], { done: false }),
      );
      const first = await failure(model.generate(REQUEST));
      const second = await failure(model.generate(REQUEST));
      const streamed = await parts(model.stream(REQUEST));
      expect(server.received[0]?.headers.authorization).toBe(`Bearer ${planted}`);
      expect(AuthenticationError.isInstance(first)).toBe(true);
      const everything = [
        first,
        second,
        ...streamed,
        ...streamed.map((part) => (part.type === 'error' ? part.error : part)),
      ]
        .map(
          (value) =>
            `${inspect(value, { depth: 12, showHidden: false })} ${JSON.stringify(value)} ${String(value)}`,
        )
        .concat(logged)
        .join('\n');
      expect(everything).not.toContain(planted);
      expect(everything).toContain('[REDACTED]');
    } finally {
      await server.close();
    }
  });
});

describe('malformed streams · chat', () => {
  const chunk = (delta: object, finish: string | null = null): object => ({
    id: 'chatcmpl-x',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-test',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });

  it('invalid JSON in an event → StreamInterruptedError carrying the text so far', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await withTestModel({ api: 'chat' }, async ({ server, model }) => {
      server.enqueue(
        sseReply([
          chunk({ content: 'Hello' }),
          '{"choices": [ {"delta": {"content": "wor',
          chunk({}, 'stop'),
        ]),
      );
      const collected = await parts(model.stream(REQUEST));
      const error = lastError(collected);
      expect(StreamInterruptedError.isInstance(error)).toBe(true);
      expect((error as StreamInterruptedError).providerCode).toBe('invalid_event');
      expect((error as StreamInterruptedError).partialText).toBe('Hello');
    });
  });

  it('a stream without data: [DONE] → StreamInterruptedError; its complete-looking call never surfaces', async () => {
    await withTestModel({ api: 'chat' }, async ({ server, model }) => {
      server.enqueue(
        sseReply(
          [
            chunk({
              tool_calls: [
                {
                  index: 0,
                  id: 'call_1',
                  type: 'function',
                  function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
                },
              ],
            }),
            chunk({}, 'tool_calls'),
          ],
          { done: false },
        ),
      );
      const collected = await parts(model.stream(REQUEST));
      expect(collected.some((part) => part.type === 'tool-call')).toBe(false);
      const error = lastError(collected);
      expect(StreamInterruptedError.isInstance(error)).toBe(true);
      expect((error as StreamInterruptedError).providerCode).toBe('missing_done');
    });
  });

  it('unknown fields and chunks are ignored', async () => {
    await withTestModel({ api: 'chat' }, async ({ server, model }) => {
      server.enqueue(
        sseReply([
          { object: 'chat.completion.chunk', future_field: { anything: true }, choices: [] },
          chunk({ content: 'Hi', future_delta_field: 'hmm', audio: null }),
          { id: 'x', object: 'something.else' },
          chunk({}, 'stop'),
        ]),
      );
      const collected = await parts(model.stream(REQUEST));
      expect(collected.map((part) => part.type)).toEqual(['text-delta', 'finish']);
    });
  });

  it('an error event inside the stream (rate limit) → RateLimitError', async () => {
    await withTestModel({ api: 'chat' }, async ({ server, model }) => {
      server.enqueue(
        sseReply([
          chunk({ content: 'Hel' }),
          { error: { message: 'Rate limit hit mid-stream', type: 'requests', code: 'rate_limit_exceeded' } },
        ]),
      );
      const error = lastError(await parts(model.stream(REQUEST)));
      expect(RateLimitError.isInstance(error)).toBe(true);
      expect((error as RateLimitError).message).toContain('Rate limit hit mid-stream');
    });
  });
});

describe('malformed streams · responses', () => {
  const event = (type: string, fields: object = {}): string => JSON.stringify({ type, ...fields });
  const completed = (output: object[] = []): string =>
    event('response.completed', {
      response: {
        id: 'resp_1',
        status: 'completed',
        output,
        usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
      },
    });

  it('a stream that ends without response.completed → StreamInterruptedError with the partial text', async () => {
    await withTestModel({ api: 'responses' }, async ({ server, model }) => {
      server.enqueue(
        sseReply(
          [
            event('response.created', { response: { id: 'resp_1' } }),
            event('response.output_text.delta', { delta: 'Half an ans' }),
          ],
          {
            done: false,
          },
        ),
      );
      const error = lastError(await parts(model.stream(REQUEST)));
      expect(StreamInterruptedError.isInstance(error)).toBe(true);
      expect((error as StreamInterruptedError).providerCode).toBe('missing_terminal_event');
      expect((error as StreamInterruptedError).partialText).toBe('Half an ans');
    });
  });

  it('unknown event types are ignored', async () => {
    await withTestModel({ api: 'responses' }, async ({ server, model }) => {
      server.enqueue(
        sseReply(
          [
            event('response.created', { response: { id: 'resp_1' } }),
            event('response.some_future_event', { payload: 1 }),
            event('response.output_text.delta', { delta: 'Hi' }),
            event('response.output_item.added', {
              output_index: 1,
              item: { type: 'future_item', id: 'fi_1' },
            }),
            event('response.output_item.done', {
              output_index: 1,
              item: { type: 'future_item', id: 'fi_1' },
            }),
            completed([
              { type: 'message', content: [{ type: 'output_text', text: 'Hi' }] },
              { type: 'future_item', id: 'fi_1' },
            ]),
          ],
          { done: false },
        ),
      );
      const collected = await parts(model.stream(REQUEST));
      expect(collected.map((part) => part.type)).toEqual(['text-delta', 'finish']);
    });
  });

  it('an error event → the mapped error; response.failed (server_error) → ProviderUnavailableError with the code', async () => {
    await withTestModel({ api: 'responses' }, async ({ server, model }) => {
      server.enqueue(
        sseReply([event('error', { code: 'rate_limit_exceeded', message: 'Too fast', param: null })], {
          done: false,
        }),
        sseReply(
          [
            event('response.failed', {
              response: {
                id: 'r',
                status: 'failed',
                error: { code: 'server_error', message: 'The model crashed' },
              },
            }),
          ],
          { done: false },
        ),
      );
      const first = lastError(await parts(model.stream(REQUEST)));
      expect(RateLimitError.isInstance(first)).toBe(true);
      const second = lastError(await parts(model.stream(REQUEST)));
      expect(ProviderUnavailableError.isInstance(second)).toBe(true);
      expect((second as ProviderError).providerCode).toBe('server_error');
      expect((second as ProviderError).message).toContain('The model crashed');
    });
  });

  it('invalid JSON in an event → StreamInterruptedError', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await withTestModel({ api: 'responses' }, async ({ server, model }) => {
      server.enqueue(
        sseReply(
          [
            event('response.output_text.delta', { delta: 'Par' }),
            '{"type": "response.output_text.delta", "delta": ',
          ],
          { done: false },
        ),
      );
      const error = lastError(await parts(model.stream(REQUEST)));
      expect(StreamInterruptedError.isInstance(error)).toBe(true);
      expect((error as StreamInterruptedError).partialText).toBe('Par');
    });
  });
});

describe('timeouts', () => {
  it('a server that never answers → ProviderUnavailableError (timeout) after the SDK timeout', async () => {
    await withTestModel(
      { api: 'chat', provider: { timeout: 150, maxRetries: 0 } },
      async ({ server, model }) => {
        server.enqueue({ type: 'stall' });
        const error = await failure(model.generate(REQUEST));
        expect(ProviderUnavailableError.isInstance(error)).toBe(true);
        expect((error as ProviderUnavailableError).providerCode).toBe('timeout');
      },
    );
  });
});
