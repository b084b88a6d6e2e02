import type { LanguageModel, Message, ModelCapabilitiesOverride, ToolSpec } from '@org/core';
import { createOpenAI, type OpenAIProviderOptions } from '../openai-provider.js';
import { type FakeOpenAIServer, startFakeOpenAIServer } from './fake-openai-server.js';

/** A fake server and a model on it, with retries that wait on a recorded, instant clock. */
export interface TestSetup {
  readonly server: FakeOpenAIServer;
  readonly model: LanguageModel;
  /** Every wait the retry policy asked for, in milliseconds. */
  readonly waits: number[];
}

/** Starts a fake server, builds a model on it, runs `body`, and always closes the server. */
export async function withTestModel(
  options: {
    api: 'responses' | 'chat';
    provider?: Partial<OpenAIProviderOptions>;
    capabilities?: ModelCapabilitiesOverride;
    maxTokensParameter?: 'max_completion_tokens' | 'max_tokens';
    streamUsage?: boolean;
  },
  body: (setup: TestSetup) => Promise<void>,
): Promise<void> {
  const server = await startFakeOpenAIServer();
  const waits: number[] = [];
  try {
    const provider = createOpenAI({
      apiKey: 'sk-test-key-for-fake-server',
      baseURL: server.baseURL,
      timeout: 10_000,
      ...options.provider,
      retry: {
        sleep: async (milliseconds) => {
          waits.push(milliseconds);
        },
        ...options.provider?.retry,
      },
    });
    const model = provider('gpt-test', {
      api: options.api,
      ...(options.capabilities === undefined ? {} : { capabilities: options.capabilities }),
      ...(options.maxTokensParameter === undefined ? {} : { maxTokensParameter: options.maxTokensParameter }),
      ...(options.streamUsage === undefined ? {} : { streamUsage: options.streamUsage }),
    });
    await body({ server, model, waits });
  } finally {
    await server.close();
  }
}

export const WEATHER_TOOL: ToolSpec = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
};

export const SEARCH_TOOL: ToolSpec = {
  name: 'search_docs',
  description: 'Search the docs.',
  inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
};

export const USER_ONLY: readonly Message[] = [{ role: 'user', content: 'Weather in Paris?' }];
