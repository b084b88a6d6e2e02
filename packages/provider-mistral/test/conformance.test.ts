import { runConformanceSuite } from '@org/provider-conformance';
import { createMistralHarness } from './fake-mistral-server.js';

// The shared provider conformance suite (tool choice, streams, errors, reasoning, content parts, structured output),
// through the real @mistralai/mistralai SDK against the fake server.
runConformanceSuite(createMistralHarness());

// A model whose tool choices are emulated (checked with the shared tool-call policy), without parallel-call control
// or structured output: the suite checks the Adjustments, and the InvalidRequestError for a response format.
runConformanceSuite(
  createMistralHarness({
    name: 'mistral (open-weights family: emulated tool choice, no structured output)',
    settings: { family: 'open-weights' },
    capabilities: { toolChoice: { none: 'emulated' } },
  }),
);
