import type { RetryOptions } from '../src/index.js';
import { type BedrockProviderOptions, createBedrock } from '../src/index.js';
import { FAKE_CREDENTIALS, FAKE_REGION, type FakeBedrockServer } from './fake-bedrock-server.js';

/**
 * A provider pointed at the fake server with fake static credentials and a fixed region. Retry waits are recorded
 * in `sleeps` instead of slept (a virtual clock), so no test waits on a real timer.
 */
export function createTestBedrock(
  server: FakeBedrockServer,
  options: { retry?: RetryOptions; provider?: Partial<BedrockProviderOptions> } = {},
): { provider: ReturnType<typeof createBedrock>; sleeps: number[] } {
  const sleeps: number[] = [];
  const provider = createBedrock({
    region: FAKE_REGION,
    endpoint: server.url,
    credentials: FAKE_CREDENTIALS,
    retry: {
      sleep: async (delayMs) => {
        sleeps.push(delayMs);
      },
      ...options.retry,
    },
    ...options.provider,
  });
  return { provider, sleeps };
}
