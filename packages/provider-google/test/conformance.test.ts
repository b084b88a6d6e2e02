import { runConformanceSuite } from '@org/provider-conformance';
import { createGoogleHarness } from './fake-google-server.js';

// The shared provider conformance suite (tool choice, streams, errors, reasoning, content parts, structured output),
// through the real @google/genai SDK against the fake Gemini server: the Gemini API with a Gemini 2.5 model (media of
// tool results moved to the user turn), Vertex AI with the default Gemini 3 traits (media inside function responses)
// on a Gemini 3 model id, which the fake server holds to Gemini 3's signature rule (the suite's histories carry no
// signatures: their calls go with the documented skip value, reported), a model whose tool choices are emulated, and
// the gemini-2.0 family (tools and response schemas in the OpenAPI subset).
runConformanceSuite(
  createGoogleHarness({
    name: 'google (Gemini API)',
    modelId: 'gemini-2.5-flash',
    settings: { family: 'gemini-2.5' },
  }),
);

runConformanceSuite(
  createGoogleHarness({ name: 'google (Vertex AI)', modelId: 'gemini-3-flash', vertex: true }),
);

runConformanceSuite(
  createGoogleHarness({
    name: 'google (emulated tool choice, no structured output)',
    capabilities: {
      toolChoice: { required: 'emulated', none: 'emulated', tool: 'emulated' },
      structuredOutput: false,
    },
  }),
);

runConformanceSuite(
  createGoogleHarness({
    name: 'google (Gemini 2.0: OpenAPI-subset schemas)',
    modelId: 'gemini-2.0-flash',
    settings: { family: 'gemini-2.0' },
  }),
);
