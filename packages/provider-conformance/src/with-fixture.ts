import type { ConformanceFixture, ConformanceHarness } from './harness.js';

/** Runs `body` with a fresh fixture and always closes it, so no server or socket outlives its test. */
export async function withFixture(
  harness: ConformanceHarness,
  body: (fixture: ConformanceFixture) => Promise<void>,
): Promise<void> {
  const fixture = await harness.createFixture();
  try {
    await body(fixture);
  } finally {
    await fixture.close();
  }
}
