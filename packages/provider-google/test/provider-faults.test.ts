import { GoogleGenAI } from '@google/genai';
import {
  AuthenticationError,
  collectStream,
  InvalidProviderOptionsError,
  ProviderError,
  ProviderUnavailableError,
  RateLimitError,
  type StreamPart,
  TimeoutError,
} from '@org/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGoogle, FunctionCallFailedError } from '../src/index.js';
import { type FakeGoogleServer, startFakeGoogleServer } from './fake-google-server.js';

const PLANTED_KEY = 'planted-google-key-5f2c9d81e0b34a7c';
const MESSAGES = [{ role: 'user', content: 'Hi' }] as const;

let server: FakeGoogleServer;
beforeEach(async () => {
  server = await startFakeGoogleServer();
});
afterEach(async () => {
  await server.close();
});

/** A provider on the fake server whose retries wait on a virtual clock, recording each wait. */
function provider(options: { maxRetries?: number; maxRetryAfterMs?: number } = {}) {
  const waits: number[] = [];
  const created = createGoogle({
    apiKey: PLANTED_KEY,
    baseURL: server.baseURL,
    maxRetries: options.maxRetries ?? 2,
    retry: {
      ...(options.maxRetryAfterMs === undefined ? {} : { maxRetryAfterMs: options.maxRetryAfterMs }),
      sleep: async (delayMs) => {
        waits.push(delayMs);
      },
    },
  });
  return { model: created('gemini-2.5-flash'), waits };
}

describe('provider faults', () => {
  it('retries a 503 with the shared retry policy, then answers', async () => {
    server.enqueue({ type: 'error', status: 503, message: 'The model is overloaded.' });
    server.enqueue({ type: 'response', text: 'Hello!', usage: { inputTokens: 3, outputTokens: 2 } });
    const { model, waits } = provider();
    const response = await model.generate({ messages: MESSAGES });
    expect(response.text).toBe('Hello!');
    expect(server.requests).toHaveLength(2);
    expect(waits).toHaveLength(1);
  });

  it("honours the server's RetryInfo delay on a 429, for generate and stream", async () => {
    for (const mode of ['generate', 'stream'] as const) {
      server.enqueue({
        type: 'error',
        status: 429,
        message: 'Quota exceeded.',
        headers: { 'retry-after': '1.5' },
      });
      server.enqueue({ type: 'response', text: 'Now.' });
      const { model, waits } = provider();
      const response =
        mode === 'generate'
          ? await model.generate({ messages: MESSAGES })
          : await collectStream(model.stream({ messages: MESSAGES }));
      expect(response.text).toBe('Now.');
      expect(waits).toEqual([1500]);
    }
  });

  it('fails at once when the server asks for a wait longer than maxRetryAfterMs', async () => {
    server.enqueue({
      type: 'error',
      status: 429,
      message: 'Quota exceeded.',
      headers: { 'retry-after': '3600' },
    });
    const { model, waits } = provider({ maxRetryAfterMs: 10_000 });
    const error = await model.generate({ messages: MESSAGES }).catch((thrown: unknown) => thrown);
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect((error as RateLimitError).retryAfterMs).toBe(3_600_000);
    expect((error as RateLimitError).providerCode).toBe('RESOURCE_EXHAUSTED');
    expect(server.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('keeps the API key out of errors, even when the server echoes it', async () => {
    server.enqueue({ type: 'error', status: 400, message: `API key not valid: ${PLANTED_KEY}.` });
    const { model } = provider({ maxRetries: 0 });
    const error = await model.generate({ messages: MESSAGES }).catch((thrown: unknown) => thrown);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect(server.requests[0]?.headers['x-goog-api-key']).toBe(PLANTED_KEY);
    const seen = JSON.stringify({
      error: String(error),
      body: (error as ProviderError).responseBody,
      cause: String((error as Error).cause),
    });
    expect(seen).not.toContain(PLANTED_KEY);
    expect(seen).toContain('API key not valid');
  });

  it('an attempt that runs past timeout is a TimeoutError, for generate and stream', async () => {
    server.enqueue({ type: 'stall' });
    server.enqueue({ type: 'stall' });
    const model = createGoogle({ apiKey: PLANTED_KEY, baseURL: server.baseURL, maxRetries: 0, timeout: 50 })(
      'gemini-2.5-flash',
    );
    const error = await model.generate({ messages: MESSAGES }).catch((thrown: unknown) => thrown);
    expect(TimeoutError.isInstance(error), String(error)).toBe(true);
    expect((error as TimeoutError).timeoutMs).toBe(50);
    const parts: StreamPart[] = [];
    for await (const part of model.stream({ messages: MESSAGES })) parts.push(part);
    const last = parts.at(-1);
    expect(last?.type === 'error' && TimeoutError.isInstance(last.error), String(last?.type)).toBe(true);
  });

  it('maps an error sent inside a stream to the error family', async () => {
    server.enqueue({
      type: 'raw',
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      body: `data: ${JSON.stringify({ error: { code: 503, message: 'Backend overloaded.', status: 'UNAVAILABLE' } })}\r\n\r\n`,
    });
    const { model } = provider({ maxRetries: 0 });
    const parts: StreamPart[] = [];
    for await (const part of model.stream({ messages: MESSAGES })) parts.push(part);
    const last = parts.at(-1);
    const error = last?.type === 'error' ? last.error : undefined;
    expect(ProviderUnavailableError.isInstance(error), String(error)).toBe(true);
    expect((error as ProviderUnavailableError).providerCode).toBe('UNAVAILABLE');
  });

  it('turns an answer that breaks the protocol into a ProviderError, for generate and stream', async () => {
    const broken = JSON.stringify({
      candidates: [{ content: { parts: [{ functionCall: { args: {} } }] }, finishReason: 'STOP' }],
    });
    server.enqueue({ type: 'raw', status: 200, body: broken });
    server.enqueue({
      type: 'raw',
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      body: `data: ${broken}\r\n\r\n`,
    });
    const { model } = provider({ maxRetries: 0 });
    const error = await model.generate({ messages: MESSAGES }).catch((thrown: unknown) => thrown);
    expect((error as ProviderError).providerCode).toBe('invalid_response');
    const parts: StreamPart[] = [];
    for await (const part of model.stream({ messages: MESSAGES })) parts.push(part);
    const last = parts.at(-1);
    expect(last?.type === 'error' ? (last.error as ProviderError).providerCode : last?.type).toBe(
      'invalid_response',
    );
  });

  it('a function-calling failure is typed and retryable by the caller, not retried inside', async () => {
    server.enqueue({
      type: 'gemini',
      chunks: [{ candidates: [{ finishReason: 'MALFORMED_FUNCTION_CALL', index: 0 }] }],
    });
    const { model } = provider();
    const error = await model.generate({ messages: MESSAGES }).catch((thrown: unknown) => thrown);
    expect(FunctionCallFailedError.isInstance(error)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });
});

describe('options', () => {
  it('refuses a ready client with options that would be ignored, and Vertex options without vertexai', () => {
    expect(() => createGoogle({ client: {} as never, apiKey: 'k' })).toThrow(InvalidProviderOptionsError);
    expect(() => createGoogle({ project: 'p' })).toThrow(/vertexai: true/);
    expect(() => createGoogle({ timeout: 0 })).toThrow(InvalidProviderOptionsError);
    expect(() => createGoogle({ apiKey: 'k' })('gemini-3-flash', { family: 'gemini-9' as never })).toThrow(
      /settings.family/,
    );
  });

  it('uses a ready client as is (its key, endpoint and headers), its key kept out of errors', async () => {
    server.enqueue({ type: 'response', text: 'From the ready client.' });
    server.enqueue({ type: 'error', status: 400, message: 'API key not valid: ready-client-key-7d3e.' });
    const client = new GoogleGenAI({
      apiKey: 'ready-client-key-7d3e',
      httpOptions: { baseUrl: server.baseURL, headers: { 'x-team': 'search' } },
    });
    const model = createGoogle({ client, maxRetries: 0 })('gemini-2.5-flash');
    const response = await model.generate({ messages: MESSAGES });
    expect(response.text).toBe('From the ready client.');
    expect(server.requests[0]?.headers['x-goog-api-key']).toBe('ready-client-key-7d3e');
    // Its key is a registered secret too.
    const error = await model.generate({ messages: MESSAGES }).catch((thrown: unknown) => thrown);
    expect(String(error)).toContain('API key not valid');
    expect(String(error)).not.toContain('ready-client-key-7d3e');
    expect(server.requests[0]?.headers['x-team']).toBe('search');
  });

  it("turns a ready client's own retries off: only the provider's retries run", async () => {
    server.enqueue({ type: 'error', status: 503, message: 'Overloaded.' });
    server.enqueue({ type: 'response', text: 'Too late.' });
    const client = new GoogleGenAI({
      apiKey: 'ready-client-key',
      httpOptions: { baseUrl: server.baseURL, retryOptions: { attempts: 5, initialDelay: 0.01 } },
    });
    const error = await createGoogle({ client, maxRetries: 0 })('gemini-2.5-flash')
      .generate({ messages: MESSAGES })
      .catch((thrown: unknown) => thrown);
    expect(ProviderUnavailableError.isInstance(error)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('refuses unknown and conflicting thinking options before sending', async () => {
    const { model } = provider();
    for (const options of [
      { thinkingConfig: { thinkingBudget: 1024, thinkingLevel: 'low' } },
      { thinkingConfig: { thinkingBudjet: 1024 } },
      { functionCallingMode: 'ANY' },
    ]) {
      const error = await model
        .generate({ messages: MESSAGES, providerOptions: { google: options } })
        .catch((thrown: unknown) => thrown);
      expect(InvalidProviderOptionsError.isInstance(error), JSON.stringify(options)).toBe(true);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('fails with AuthenticationError, sending nothing, when the Gemini API has no key', async () => {
    const saved = { gemini: process.env.GEMINI_API_KEY, google: process.env.GOOGLE_API_KEY };
    delete process.env.GEMINI_API_KEY;
    delete process.env.GOOGLE_API_KEY;
    try {
      const model = createGoogle({ baseURL: server.baseURL })('gemini-3-flash');
      const error = await model.generate({ messages: MESSAGES }).catch((thrown: unknown) => thrown);
      expect(AuthenticationError.isInstance(error)).toBe(true);
      expect(server.requests).toHaveLength(0);
    } finally {
      if (saved.gemini !== undefined) process.env.GEMINI_API_KEY = saved.gemini;
      if (saved.google !== undefined) process.env.GOOGLE_API_KEY = saved.google;
    }
  });
});
