import { createMistral, type MistralProvider, type MistralProviderOptions } from '../src/index.js';
import type { FakeMistralServer } from './fake-mistral-server.js';

/** A planted key: any test may check that it never shows up in an error, part or log line. */
export const TEST_API_KEY = 'planted-mistral-key-5f2c9d81e0b34a7c';

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

/** A provider pointed at the fake server, with retries on a recorded (virtual) clock. */
export function testProvider(
  server: FakeMistralServer,
  options: MistralProviderOptions & { sleeps?: RecordedSleeps } = {},
): MistralProvider {
  const { sleeps, ...rest } = options;
  return createMistral({
    apiKey: TEST_API_KEY,
    serverURL: server.serverURL,
    maxRetries: 0,
    ...rest,
    retry: { sleep: (sleeps ?? recordSleeps()).sleep, ...rest.retry },
  });
}
