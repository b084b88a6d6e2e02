import type { ModelCapabilitiesOverride } from '@org/core';
import type { ConformanceHarness } from '@org/provider-conformance';
import { createOpenAI } from '../openai-provider.js';
import { startFakeOpenAIServer } from './fake-openai-server.js';

/** The conformance harness of the OpenAI adapter: a fresh fake server per test, the adapter's retries off. */
export function createOpenAIHarness(
  api: 'responses' | 'chat',
  options: { name?: string; capabilities?: ModelCapabilitiesOverride } = {},
): ConformanceHarness {
  return {
    name: options.name ?? `openai (${api})`,
    capabilities: { errorReplies: true, disconnects: true, stalls: true },
    createFixture: async () => {
      const server = await startFakeOpenAIServer();
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
