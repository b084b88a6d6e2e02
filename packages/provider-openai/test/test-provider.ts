import type { LanguageModel, Message, ModelCapabilitiesOverride, ToolSpec } from '@org/core';
import type { ConformanceHarness } from '@org/provider-conformance';
import { createOpenAI, OPENAI_CONTENT_LIMITS, type OpenAIProviderOptions } from '../src/index.js';
import { type FakeOpenAIServer, startFakeOpenAIServer, type ToolCallOrder } from './fake-openai-server.js';

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
    toolCallOrder?: ToolCallOrder;
  },
  body: (setup: TestSetup) => Promise<void>,
): Promise<void> {
  const server = await startFakeOpenAIServer(
    options.toolCallOrder === undefined ? {} : { toolCallOrder: options.toolCallOrder },
  );
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

/** The conformance harness of the OpenAI adapter: a fresh fake server per test, the adapter's retries off. */
export function createOpenAIHarness(
  api: 'responses' | 'chat',
  options: { name?: string; capabilities?: ModelCapabilitiesOverride } = {},
): ConformanceHarness {
  return {
    name: options.name ?? `openai (${api})`,
    capabilities: {
      errorReplies: true,
      disconnects: true,
      stalls: true,
      // Chat Completions carries no reasoning; the Responses API sends it back as reasoning items.
      reasoning: api === 'chat' ? 'not-on-wire' : 'round-trip',
      contentParts: { limits: OPENAI_CONTENT_LIMITS },
      structuredOutput: true,
      sequentialToolCalls: true,
    },
    createFixture: async () => {
      // Parallel calls one after the other, as OpenAI streams them (other tests stress interleaved ones).
      const server = await startFakeOpenAIServer({ toolCallOrder: 'sequential' });
      const provider = createOpenAI({
        apiKey: 'sk-conformance-test-key-0000',
        baseURL: server.baseURL,
        maxRetries: 0,
        timeout: 10_000,
      });
      return {
        model: provider('gpt-test', {
          api,
          ...(options.capabilities === undefined ? {} : { capabilities: options.capabilities }),
        }),
        enqueue: (reply) => server.enqueue(reply),
        requests: () => server.wireRequests(),
        close: () => server.close(),
      };
    },
  };
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
