import { InvalidProviderOptionsError, type InvalidRequestError } from '@org/core';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { createOpenAI } from '../src/index.js';
import { startFakeOpenAIServer } from './fake-openai-server.js';
import { USER_ONLY } from './test-provider.js';

const TEXT = { type: 'response', text: 'Done.', usage: { inputTokens: 5, outputTokens: 1 } } as const;

describe('createOpenAI', () => {
  it('accepts a ready SDK client, whose own retries are not used', async () => {
    const server = await startFakeOpenAIServer();
    try {
      const client = new OpenAI({ apiKey: 'sk-ready-client-key', baseURL: server.baseURL, maxRetries: 5 });
      const model = createOpenAI({ client, maxRetries: 0 })('gpt-test', { api: 'chat' });
      server.enqueue({ type: 'error', status: 500, message: 'down' }, TEXT);
      const error = await model.generate({ messages: USER_ONLY }).catch((caught: unknown) => caught);
      expect((error as InvalidRequestError).statusCode).toBe(500);
      expect(server.received).toHaveLength(1);
      expect(server.received[0]?.headers.authorization).toBe('Bearer sk-ready-client-key');
    } finally {
      await server.close();
    }
  });

  it('refuses bad or contradictory options at once, with the option named, before any request', () => {
    const client = new OpenAI({ apiKey: 'sk-ready-client-key', baseURL: 'http://127.0.0.1:9/v1' });
    const attempts: [() => unknown, string][] = [
      [() => createOpenAI({ client, apiKey: 'sk-other-key-0000' }), 'apiKey'],
      [() => createOpenAI({ client, baseURL: 'http://127.0.0.1:9/v1' }), 'baseURL'],
      [() => createOpenAI({ apiKey: '' }), 'apiKey'],
      [() => createOpenAI({ baseURL: 'localhost:1234' }), 'baseURL'],
      [() => createOpenAI({ maxRetries: -1 }), 'maxRetries'],
      [() => createOpenAI({ maxRetries: 1.5 }), 'maxRetries'],
      [() => createOpenAI({ timeout: 0 }), 'timeout'],
      [() => createOpenAI({ timeout: 3_000_000_000 }), 'timeout'],
      [() => createOpenAI(null as never), 'options'],
      [() => createOpenAI({ retry: { maxWaitMs: 1000 } as never }), 'retry.maxWaitMs'],
      [() => createOpenAI({ retry: { maxDelayMs: -5 } }), 'retry.maxDelayMs'],
      [() => createOpenAI({ name: '' }), 'name'],
      [() => createOpenAI({ apiKey: 'sk-test-key-0000' })(''), 'modelId'],
      [
        () => createOpenAI({ apiKey: 'sk-test-key-0000' })('gpt-test', { api: 'completions' as never }),
        'settings.api',
      ],
      [
        () =>
          createOpenAI({ apiKey: 'sk-test-key-0000' }).chat('gpt-test', {
            maxTokensParameter: 'max' as never,
          }),
        'settings.maxTokensParameter',
      ],
    ];
    for (const [attempt, option] of attempts) {
      let thrown: unknown;
      try {
        attempt();
      } catch (error) {
        thrown = error;
      }
      expect(InvalidProviderOptionsError.isInstance(thrown), option).toBe(true);
      expect(thrown).toMatchObject({ code: 'invalid_provider_options', provider: 'openai', option });
    }
    expect(() =>
      createOpenAI({ client, maxRetries: 0, timeout: 5_000, retry: { maxRetryAfterMs: 1000 } }),
    ).not.toThrow();
  });

  it('without a key: importing works, the first call fails with AuthenticationError', async () => {
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      const model = createOpenAI({ baseURL: 'http://127.0.0.1:9/v1' })('gpt-test');
      const error = await model.generate({ messages: USER_ONLY }).catch((caught: unknown) => caught);
      expect((error as Error).name).toBe('AuthenticationError');
      expect((error as Error).message).toContain('OPENAI_API_KEY');
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
  });

  it('reads OPENAI_API_KEY at the first call; sends organization, project and extra headers', async () => {
    const server = await startFakeOpenAIServer();
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      const provider = createOpenAI({
        baseURL: server.baseURL,
        organization: 'org-acme',
        project: 'proj_tools',
        headers: { 'x-team': 'agents' },
      });
      process.env.OPENAI_API_KEY = 'sk-set-after-import-0000';
      server.enqueue(TEXT);
      await provider('gpt-test').generate({ messages: USER_ONLY });
      const { headers } = server.received[0]!;
      expect(headers.authorization).toBe('Bearer sk-set-after-import-0000');
      expect(headers['openai-organization']).toBe('org-acme');
      expect(headers['openai-project']).toBe('proj_tools');
      expect(headers['x-team']).toBe('agents');
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
      await server.close();
    }
  });

  it('provider.chat / provider.responses pick the API; the default is responses', async () => {
    const server = await startFakeOpenAIServer();
    try {
      const provider = createOpenAI({ apiKey: 'sk-test-key-0000', baseURL: server.baseURL });
      server.enqueue(TEXT, TEXT, TEXT);
      await provider('gpt-test').generate({ messages: USER_ONLY });
      await provider.chat('gpt-test').generate({ messages: USER_ONLY });
      await provider.responses('gpt-test').generate({ messages: USER_ONLY });
      expect(server.received.map((request) => request.path)).toEqual([
        '/v1/responses',
        '/v1/chat/completions',
        '/v1/responses',
      ]);
    } finally {
      await server.close();
    }
  });
});
