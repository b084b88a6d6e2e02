import {
  AbortedError,
  AuthenticationError,
  ContextLengthExceededError,
  InvalidRequestError,
  ProviderError,
  ProviderUnavailableError,
  RateLimitError,
  type StreamPart,
} from '@org/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMistral } from '../src/index.js';
import { type FakeMistralServer, startFakeMistralServer } from './fake-mistral-server.js';
import { recordSleeps, TEST_API_KEY, testProvider } from './test-provider.js';

const MESSAGES = [{ role: 'user', content: 'Hi' }] as const;

let server: FakeMistralServer;
beforeEach(async () => {
  server = await startFakeMistralServer();
});
afterEach(async () => {
  await server.close();
});

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable('the call succeeded'),
    (error: unknown) => error,
  );
}

async function streamError(stream: AsyncIterable<StreamPart>): Promise<unknown> {
  let last: StreamPart | undefined;
  for await (const part of stream) last = part;
  return last?.type === 'error' ? last.error : undefined;
}

describe('errors', () => {
  it.each([
    [401, AuthenticationError],
    [403, AuthenticationError],
    [400, InvalidRequestError],
    [404, InvalidRequestError],
    [500, ProviderUnavailableError],
    [502, ProviderUnavailableError],
    [503, ProviderUnavailableError],
  ] as const)("%i → %o, with Mistral's message and type, in generate and stream", async (status, type) => {
    const model = testProvider(server)('mistral-large-latest');
    server.enqueue({ type: 'error', status, message: `Refused with ${status}.` });
    const generated = await failure(model.generate({ messages: MESSAGES }));
    server.enqueue({ type: 'error', status, message: `Refused with ${status}.` });
    const streamed = await streamError(model.stream({ messages: MESSAGES }));
    for (const error of [generated, streamed]) {
      expect(type.isInstance(error)).toBe(true);
      expect((error as ProviderError).statusCode).toBe(status);
      expect((error as Error).message).toContain(`Refused with ${status}.`);
      expect((error as ProviderError).provider).toBe('mistral');
    }
  });

  it("422 (the API's validation error) → InvalidRequestError listing each field at fault", async () => {
    server.enqueue({
      type: 'raw',
      status: 422,
      body: JSON.stringify({
        detail: [
          { type: 'missing', loc: ['body', 'messages', 0, 'content'], msg: 'Field required', input: null },
        ],
      }),
    });
    const error = await failure(
      testProvider(server)('mistral-large-latest').generate({ messages: MESSAGES }),
    );
    expect(InvalidRequestError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('body.messages.0.content: Field required');
  });

  it('a context-length refusal → ContextLengthExceededError', async () => {
    server.enqueue({ type: 'error', status: 400, message: 'too long', reason: 'context-length-exceeded' });
    const error = await failure(
      testProvider(server)('mistral-large-latest').generate({ messages: MESSAGES }),
    );
    expect(ContextLengthExceededError.isInstance(error)).toBe(true);
  });

  it('429 → RateLimitError; the retry waits what the server asked (retry-after), then answers', async () => {
    server.enqueue({
      type: 'error',
      status: 429,
      message: 'Requests rate limit exceeded',
      headers: { 'retry-after': '7' },
    });
    server.enqueue({ type: 'response', text: 'Hello!' });
    const sleeps = recordSleeps();
    const response = await testProvider(server, { maxRetries: 2, sleeps })('mistral-large-latest').generate({
      messages: MESSAGES,
    });
    expect(response.text).toBe('Hello!');
    expect(sleeps.waits).toEqual([7000]);
  });

  it('429 with retry-after-ms in a stream is honoured too', async () => {
    server.enqueue({
      type: 'error',
      status: 429,
      message: 'Slow down.',
      headers: { 'retry-after-ms': '1250' },
    });
    server.enqueue({ type: 'response', text: 'Hello!' });
    const sleeps = recordSleeps();
    const parts: StreamPart[] = [];
    for await (const part of testProvider(server, { maxRetries: 1, sleeps })('mistral-large-latest').stream({
      messages: MESSAGES,
    }))
      parts.push(part);
    expect(parts.at(-1)?.type).toBe('finish');
    expect(sleeps.waits).toEqual([1250]);
  });

  it('fails at once with RateLimitError.retryAfterMs when the server asks for a wait longer than maxRetryAfterMs', async () => {
    server.enqueue({ type: 'error', status: 429, message: 'Slow down.', headers: { 'retry-after': '3600' } });
    const sleeps = recordSleeps();
    const model = testProvider(server, { maxRetries: 2, sleeps, retry: { maxRetryAfterMs: 10_000 } })(
      'mistral-large-latest',
    );
    const error = await failure(model.generate({ messages: MESSAGES }));
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect((error as RateLimitError).retryAfterMs).toBe(3_600_000);
    expect(sleeps.waits).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a 503, then answers; the SDK itself never retries', async () => {
    server.enqueue({ type: 'error', status: 503, message: 'Overloaded.' });
    server.enqueue({ type: 'response', text: 'Hello!' });
    const sleeps = recordSleeps();
    const response = await testProvider(server, { maxRetries: 1, sleeps })('mistral-large-latest').generate({
      messages: MESSAGES,
    });
    expect(response.text).toBe('Hello!');
    expect(server.requests).toHaveLength(2);
  });

  it('a refused connection → ProviderUnavailableError', async () => {
    const closed = await startFakeMistralServer();
    await closed.close();
    const model = createMistral({ apiKey: TEST_API_KEY, serverURL: closed.serverURL, maxRetries: 0 })(
      'mistral-small-latest',
    );
    const error = await failure(model.generate({ messages: MESSAGES }));
    expect(ProviderUnavailableError.isInstance(error)).toBe(true);
  });

  it('an answer that is not a chat completion → ProviderError invalid_response', async () => {
    server.enqueue({ type: 'raw', status: 200, body: '{"unexpected": true}' });
    const error = await failure(
      testProvider(server)('mistral-large-latest').generate({ messages: MESSAGES }),
    );
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as ProviderError).providerCode).toBe('invalid_response');
  });

  it('an answer that is not JSON → ProviderError invalid_response', async () => {
    server.enqueue({ type: 'raw', status: 200, body: '{"id": "cmpl-1", "choices": [' });
    const error = await failure(
      testProvider(server)('mistral-large-latest').generate({ messages: MESSAGES }),
    );
    expect((error as ProviderError).providerCode).toBe('invalid_response');
  });

  it('an answer past maxResponseBytes is cut off with ProviderError response_too_large, in generate and stream', async () => {
    const model = testProvider(server, { maxResponseBytes: 2048 })('mistral-large-latest');
    server.enqueue({ type: 'response', text: 'x'.repeat(10_000) });
    const generated = await failure(model.generate({ messages: MESSAGES }));
    server.enqueue({ type: 'response', text: 'x'.repeat(10_000) });
    const streamed = await streamError(model.stream({ messages: MESSAGES }));
    for (const error of [generated, streamed]) {
      expect(ProviderError.isInstance(error)).toBe(true);
      expect((error as ProviderError).providerCode).toBe('response_too_large');
    }
  });

  it('a history id the real API would refuse never reaches it: the fake server refuses it the same way', async () => {
    // What the API says when an id is sent unmapped (the adapter maps ids, so only a raw body shows it).
    server.enqueue({ type: 'response', text: 'ok' });
    const response = await fetch(`${server.serverURL}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer x', 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'm',
        messages: [{ role: 'tool', tool_call_id: 'call_abc', name: 'f', content: '1' }],
      }),
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(
      'Tool call id was call_abc but must be a-z, A-Z, 0-9, with a length of 9.',
    );
  });

  it('an aborted request → AbortedError', async () => {
    const controller = new AbortController();
    server.enqueue({ type: 'stall' });
    const pending = testProvider(server)('mistral-large-latest').generate({
      messages: MESSAGES,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error('user left')), 20);
    expect(AbortedError.isInstance(await failure(pending))).toBe(true);
  });

  it('a planted API key appears in no error, and no debug line of the SDK', async () => {
    const lines: unknown[][] = [];
    const record = (...args: unknown[]): void => {
      lines.push(args);
    };
    server.enqueue({ type: 'error', status: 401, message: `Bad key ${TEST_API_KEY}` });
    server.enqueue({ type: 'response', text: 'Hello!' });
    const model = testProvider(server, {
      logger: { error: record, warn: record, info: record, debug: record },
    })('mistral-large-latest');
    const error = await failure(model.generate({ messages: MESSAGES }));
    await model.generate({ messages: MESSAGES });
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${TEST_API_KEY}`);
    expect(lines.length).toBeGreaterThan(0);
    const seen = JSON.stringify(
      [String(error), (error as ProviderError).responseBody, lines],
      (_key, value: unknown) =>
        typeof value === 'object' &&
        value !== null &&
        !Array.isArray(value) &&
        Object.keys(value).length === 0
          ? String(value)
          : value,
    );
    expect(seen).not.toContain(TEST_API_KEY);
  });
});
