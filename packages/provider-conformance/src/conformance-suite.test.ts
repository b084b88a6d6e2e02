import { createReferenceFixture, REFERENCE_CONTENT_LIMITS } from './__fixtures__/reference-model.js';
import { type HarnessCapabilities, runConformanceSuite } from './index.js';

// What the reference model's harness provides for the reasoning, content-part and structured-output cases: it
// renders reasoning and projects every fact (`projectModelRequest`).
const FEATURES: HarnessCapabilities = {
  reasoning: 'round-trip',
  contentParts: { limits: REFERENCE_CONTENT_LIMITS },
  structuredOutput: true,
};

// The suite run against an offline model that honours the contract: every case must pass, network cases included
// (the reference model renders scripted errors, disconnects and stalls itself).
runConformanceSuite({
  name: 'reference offline model',
  capabilities: { errorReplies: true, disconnects: true, stalls: true, ...FEATURES },
  createFixture: async () => createReferenceFixture(),
});

// The same model as a scripted model would declare it: no network, so only the always-on cases run.
runConformanceSuite({
  name: 'reference offline model without network cases',
  capabilities: FEATURES,
  createFixture: async () => createReferenceFixture(),
});

// A model without native structured output: a request with a response format is refused before sending.
runConformanceSuite({
  name: 'reference offline model without structured output',
  capabilities: FEATURES,
  createFixture: async () => createReferenceFixture({ structuredOutput: false }),
});
