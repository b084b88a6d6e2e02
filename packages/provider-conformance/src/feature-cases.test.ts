import { describe, expect, it } from 'vitest';
import {
  createReferenceFixture,
  REFERENCE_CONTENT_LIMITS,
  type ReferenceFault,
  type ReferenceFixtureOptions,
} from './__fixtures__/reference-model.js';
import type { ConformanceCase } from './conformance-case.js';
import { contentPartCases } from './content-part-cases.js';
import type { ConformanceHarness, HarnessCapabilities, WireRequest } from './index.js';
import { reasoningCases } from './reasoning-cases.js';
import { structuredOutputCases } from './structured-output-cases.js';

// The reasoning, content-part and structured-output cases are only worth something if they fail on the faults
// adapters make, and fail with instructions when a harness lacks what they need. These run the cases directly
// against broken variants of the reference model and check which ones fail, and why.

const FEATURES: HarnessCapabilities = {
  reasoning: 'round-trip',
  contentParts: { limits: REFERENCE_CONTENT_LIMITS },
  structuredOutput: true,
};

function harness(
  options: ReferenceFixtureOptions = {},
  capabilities: HarnessCapabilities = FEATURES,
  projection: (wire: WireRequest) => WireRequest = (wire) => wire,
): ConformanceHarness {
  return {
    name: 'reference under test',
    capabilities,
    createFixture: async () => {
      const fixture = createReferenceFixture(options);
      return { ...fixture, requests: () => fixture.requests().map(projection) };
    },
  };
}

const allCases = (subject: ConformanceHarness): ConformanceCase[] => [
  ...reasoningCases(subject),
  ...contentPartCases(subject),
  ...structuredOutputCases(subject),
];

/** Runs every case; returns the failing ones, by name, with the message they failed with. */
async function failures(cases: readonly ConformanceCase[]): Promise<Map<string, string>> {
  const failed = new Map<string, string>();
  for (const conformanceCase of cases) {
    try {
      await conformanceCase.run();
    } catch (error) {
      failed.set(conformanceCase.name, error instanceof Error ? error.message : String(error));
    }
  }
  return failed;
}

/** Which case names a fault must fail, as a test on the name. */
const REPLY_CASE = (name: string): boolean =>
  name.includes('comes back as') || name.includes('the stream gives');
const STREAM_CASE = (name: string): boolean => name.includes('the stream gives');
const OWN_CASE = (name: string): boolean => name.includes("model's own reasoning");
const FOREIGN_CASE = (name: string): boolean => name.includes('another provider');
const MEDIA_CASE = (name: string): boolean =>
  name.includes('a user message with') || name.includes('tool result');
const LIMIT_CASE = (name: string): boolean => name.includes('over the limit');
const FORMAT_CASE = (name: string): boolean => name.startsWith('responseFormat');

const FAULTS: readonly (readonly [
  ReferenceFault,
  (name: string) => boolean,
  RegExp,
  ReferenceFixtureOptions?,
])[] = [
  ['reasoning-dropped', REPLY_CASE, /reasoning parts in the response/],
  ['reasoning-part-before-deltas', STREAM_CASE, /add up to its text/],
  ['own-reasoning-not-sent', OWN_CASE, /reasoning blocks sent back with the tool call/],
  ['foreign-reasoning-as-text', FOREIGN_CASE, /appears nowhere in the request body/],
  ['foreign-reasoning-unreported', FOREIGN_CASE, /'history-rewritten' Adjustment/],
  ['media-flattened', MEDIA_CASE, /the parts of the user message on the wire|'history-rewritten' Adjustment/],
  ['limits-unchecked', LIMIT_CASE, /ContentTooLargeError, got/],
  ['response-format-dropped', FORMAT_CASE, /a response format on the wire/],
  [
    'response-format-unchecked',
    FORMAT_CASE,
    /InvalidRequestError, got|nothing sent/,
    { structuredOutput: false },
  ],
];

describe('reasoning, content-part and structured-output cases', () => {
  it('all pass on the reference model, with and without native structured output', async () => {
    expect([...(await failures(allCases(harness())))]).toEqual([]);
    expect([...(await failures(allCases(harness({ structuredOutput: false }))))]).toEqual([]);
  });

  for (const [fault, expected, message, options] of FAULTS) {
    it(`fail on a model with the fault '${fault}', and only the cases about it`, async () => {
      const cases = allCases(harness({ ...options, faults: [fault] }));
      const failed = await failures(cases);
      const names = cases.map((conformanceCase) => conformanceCase.name);
      expect([...failed.keys()].sort()).toEqual(names.filter(expected).sort());
      expect(failed.size).toBeGreaterThan(0);
      for (const [name, reason] of failed) expect(reason, name).toMatch(message);
    });
  }

  it('fail, naming the capability to declare, when the harness declares none of them', async () => {
    const cases = allCases(harness({}, {}));
    const failed = await failures(cases);
    expect(failed.size).toBe(cases.length);
    for (const [name, reason] of failed) {
      expect(reason, name).toMatch(
        /does not declare capabilities\.(reasoning|contentParts|structuredOutput)/,
      );
      expect(reason, name).toContain('README');
    }
  });

  it('need no harness capability to check that a model without structured output refuses a response format', async () => {
    const cases = structuredOutputCases(harness({ structuredOutput: false }, {}));
    expect([...(await failures(cases))]).toEqual([]);
  });

  it('fail, naming the field, when the harness declares a capability but does not project its facts', async () => {
    const withoutBody = harness({}, FEATURES, ({ rawBody: _rawBody, ...wire }) => wire);
    const reasoning = await failures(reasoningCases(withoutBody));
    expect([...reasoning.keys()].every((name) => OWN_CASE(name) || FOREIGN_CASE(name))).toBe(true);
    expect(reasoning.size).toBe(4);
    for (const reason of reasoning.values()) expect(reason).toContain('WireRequest.rawBody');

    const withoutContent = harness({}, FEATURES, (wire) => ({
      ...wire,
      messages: wire.messages.map(({ content: _content, ...message }) => message),
    }));
    const content = await failures(contentPartCases(withoutContent));
    expect([...content.keys()].sort()).toEqual(
      contentPartCases(withoutContent)
        .map((conformanceCase) => conformanceCase.name)
        .filter(MEDIA_CASE)
        .sort(),
    );
    for (const reason of content.values()) expect(reason).toContain('WireMessage.content');
  });

  it("check, for a wire without reasoning ('not-on-wire'), that all reasoning stays off it and is reported", async () => {
    const capabilities: HarnessCapabilities = { ...FEATURES, reasoning: 'not-on-wire' };
    const cases = reasoningCases(harness({ reasoningOnWire: false }, capabilities));
    expect(cases.map((conformanceCase) => conformanceCase.name)).toHaveLength(4);
    expect([...(await failures(cases))]).toEqual([]);
    // A model that sends its reasoning on such a wire anyway fails the cases about its own reasoning.
    const sending = await failures(reasoningCases(harness({}, capabilities)));
    expect([...sending.keys()].every(OWN_CASE)).toBe(true);
    expect(sending.size).toBe(2);
  });
});
