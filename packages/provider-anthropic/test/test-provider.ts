import { type AnthropicProvider, type AnthropicProviderOptions, createAnthropic } from '../src/index.js';
import type { FakeAnthropicServer } from './fake-anthropic-server.js';

/** A planted key: any test may check that it never shows up in an error, event or log line. */
export const TEST_API_KEY = 'sk-ant-api03-PLANTED-test-key-0123456789abcdef';

/** Waits the retry loop asked for, recorded instead of slept, so retry tests run on a virtual clock. */
export interface RecordedSleeps {
  readonly waits: number[];
  readonly sleep: (delayMs: number, signal?: AbortSignal) => Promise<void>;
}

export function recordSleeps(): RecordedSleeps {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (delayMs, signal) => {
      waits.push(delayMs);
      if (signal?.aborted) throw signal.reason;
    },
  };
}

/** A provider pointed at the fake server, with SDK logging off and retries on a recorded (virtual) clock. */
export function testProvider(
  server: FakeAnthropicServer,
  options: AnthropicProviderOptions & { sleeps?: RecordedSleeps } = {},
): AnthropicProvider {
  const { sleeps, ...rest } = options;
  return createAnthropic({
    apiKey: TEST_API_KEY,
    baseURL: server.baseURL,
    maxRetries: 0,
    clientOptions: { logLevel: 'off' },
    ...rest,
    retry: { sleep: (sleeps ?? recordSleeps()).sleep, ...rest.retry },
  });
}
