import { Mistral } from '@mistralai/mistralai';
import { AuthenticationError, InvalidProviderOptionsError, SPECIFICATION_VERSION } from '@org/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createMistral,
  MISTRAL_DEFAULT_CAPABILITIES,
  MISTRAL_FAMILY_CAPABILITIES,
  mistral,
} from '../src/index.js';
import { type FakeMistralServer, startFakeMistralServer } from './fake-mistral-server.js';
import { TEST_API_KEY } from './test-provider.js';

const MESSAGES = [{ role: 'user', content: 'Hi' }] as const;

let server: FakeMistralServer;
beforeEach(async () => {
  server = await startFakeMistralServer();
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await server.close();
});

describe('createMistral', () => {
  it('uses a ready client as is', async () => {
    server.enqueue({ type: 'response', text: 'from the client' });
    const client = new Mistral({ apiKey: TEST_API_KEY, serverURL: server.serverURL });
    const model = createMistral({ client, maxRetries: 0 })('mistral-small-latest');
    expect((await model.generate({ messages: MESSAGES })).text).toBe('from the client');
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${TEST_API_KEY}`);
  });

  it('reads MISTRAL_API_KEY at the first request, so the default instance can be imported first', async () => {
    vi.stubEnv('MISTRAL_API_KEY', 'key-from-the-environment');
    server.enqueue({ type: 'response', text: 'ok' });
    await createMistral({ serverURL: server.serverURL, maxRetries: 0 })('mistral-small-latest').generate({
      messages: MESSAGES,
    });
    expect(server.requests[0]?.headers.authorization).toBe('Bearer key-from-the-environment');
  });

  it('without any key, the server refuses and that is an AuthenticationError', async () => {
    vi.stubEnv('MISTRAL_API_KEY', '');
    const error = await createMistral({ serverURL: server.serverURL, maxRetries: 0 })('mistral-small-latest')
      .generate({ messages: MESSAGES })
      .catch((thrown: unknown) => thrown);
    expect(AuthenticationError.isInstance(error)).toBe(true);
  });

  it('the default instance gives models with the declared capabilities', () => {
    const model = mistral('mistral-large-latest');
    expect(model.provider).toBe('mistral');
    expect(model.specificationVersion).toBe(SPECIFICATION_VERSION);
    expect(model.capabilities).toEqual(MISTRAL_DEFAULT_CAPABILITIES);
    expect(mistral.languageModel('magistral-medium-latest', { family: 'magistral' }).capabilities).toEqual(
      MISTRAL_FAMILY_CAPABILITIES.get('magistral'),
    );
  });

  it.each([
    [{ client: new Mistral({ apiKey: 'k' }), apiKey: 'other' }, 'apiKey'],
    [{ client: new Mistral({ apiKey: 'k' }), serverURL: 'http://127.0.0.1:1' }, 'serverURL'],
    [{ apiKey: '  ' }, 'apiKey'],
    [{ serverURL: 'not a url' }, 'serverURL'],
    [{ timeoutMs: 0 }, 'timeoutMs'],
    [{ retry: { maxRetriez: 3 } }, 'retry.maxRetriez'],
  ])('refuses %o at once (option %s)', (options, option) => {
    const error = (() => {
      try {
        createMistral(options as Parameters<typeof createMistral>[0]);
        return undefined;
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(InvalidProviderOptionsError.isInstance(error)).toBe(true);
    expect((error as InvalidProviderOptionsError).option).toContain(option);
  });

  it('refuses an empty model id and an unknown family', () => {
    expect(() => mistral('')).toThrow(InvalidProviderOptionsError);
    expect(() => mistral('mistral-large-latest', { family: 'llama' as never })).toThrow(/settings.family/);
  });

  it('checks providerOptions.mistral before sending, with a did-you-mean', async () => {
    const model = createMistral({ apiKey: TEST_API_KEY, serverURL: server.serverURL })(
      'mistral-large-latest',
    );
    const error = await model
      .generate({ messages: MESSAGES, providerOptions: { mistral: { randomSeeds: 3 } } })
      .catch((thrown: unknown) => thrown);
    expect(InvalidProviderOptionsError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("did you mean 'randomSeed'");
    expect(server.requests).toHaveLength(0);
    server.enqueue({ type: 'response', text: 'ok' });
    await model.generate({
      messages: MESSAGES,
      providerOptions: { mistral: { randomSeed: 3, safePrompt: true } },
    });
    expect(server.requests[0]?.body).toMatchObject({ random_seed: 3, safe_prompt: true });
  });
});
