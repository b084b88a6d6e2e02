import { describe, expect, it } from 'vitest';
import { createReferenceFixture, type ReferenceFixtureOptions } from './__fixtures__/reference-model.js';
import { earlyToolCallCases } from './early-tool-call-cases.js';
import type { ConformanceHarness, HarnessCapabilities } from './harness.js';

// The early-completion case is only worth something if it fails on an adapter that emits every call at the end, and
// tells a harness that cannot show the order what to declare.

function harness(options: ReferenceFixtureOptions, capabilities: HarnessCapabilities): ConformanceHarness {
  return {
    name: 'reference under test',
    capabilities,
    createFixture: async () => createReferenceFixture(options),
  };
}

/** The failure message of the case, or `undefined` when it passed. */
async function failureOf(subject: ConformanceHarness): Promise<string | undefined> {
  const [only] = earlyToolCallCases(subject);
  try {
    await only?.run();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

describe('the early-completion case', () => {
  it('passes on the reference model, which renders calls in order, with or without the harness capability', async () => {
    expect(earlyToolCallCases(harness({}, {}))).toHaveLength(1);
    expect(await failureOf(harness({}, { sequentialToolCalls: true }))).toBeUndefined();
    expect(await failureOf(harness({}, {}))).toBeUndefined();
  });

  it('fails a model that emits every call at the end, showing the order it gave', async () => {
    const failure = await failureOf(
      harness({ faults: ['tool-calls-at-end'] }, { sequentialToolCalls: true }),
    );
    expect(failure).toMatch(
      /The tool-call part of call_first must come as soon as the wire shows the call complete/,
    );
    expect(failure).toContain(
      'tool-call-start call_first, tool-call-delta call_first, tool-call-start call_second, tool-call-delta call_second, tool-call call_first, tool-call call_second, finish',
    );
  });

  it('fails naming the capability to declare when the order fails and the harness does not declare it', async () => {
    const failure = await failureOf(harness({ faults: ['tool-calls-at-end'] }, {}));
    expect(failure).toMatch(/does not declare capabilities\.sequentialToolCalls/);
    expect(failure).toContain('README');
  });
});
